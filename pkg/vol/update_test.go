package vol

import (
	"io"
	"io/fs"
	"os"
	"testing"
)

// OpenFile updates a file in place the same way on both file systems,
// and CreateFile needs neither a size hint nor a time.
func TestOpenFileBothFileSystems(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			w, err := CreateFile(v, "log.txt", CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte("hello world")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if fi, err := v.Stat("log.txt"); err != nil || !fi.ModTime().Equal(stamp) {
				t.Fatalf("CreateFile's time: %v, %v; want the volume's clock", fi, err)
			}
			u, err := v.OpenFile("log.txt", os.O_RDWR)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := u.WriteAt([]byte("W"), 6); err != nil {
				t.Fatal(err)
			}
			if _, err := u.Seek(0, io.SeekEnd); err != nil {
				t.Fatal(err)
			}
			if _, err := u.Write([]byte("!\n")); err != nil {
				t.Fatal(err)
			}
			if err := u.Truncate(12); err != nil {
				t.Fatal(err)
			}
			if err := u.Close(); err != nil {
				t.Fatal(err)
			}
			a, err := v.OpenFile("log.txt", os.O_WRONLY|os.O_APPEND)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Write([]byte(" more")); err != nil {
				t.Fatal(err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			got, err := fs.ReadFile(v, "log.txt")
			if err != nil || string(got) != "hello World! more" {
				t.Fatalf("read %q, %v", got, err)
			}
		})
	}
}
