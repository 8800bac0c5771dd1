package vol

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// A file open for writing in place through a locked volume: a reader
// opened before fails with ErrChanged once the file changes, and the
// volume's Close with the file still open records it (its grown clusters
// linked, its size written) and names it; the volume then checks clean.
func TestLockedUpdater(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			old := bytes.Repeat([]byte("o"), 10000)
			write(t, v, "f.bin", old)
			r, err := v.Open("f.bin")
			if err != nil {
				t.Fatal(err)
			}
			u, err := v.OpenFile("f.bin", os.O_RDWR|os.O_APPEND)
			if err != nil {
				t.Fatal(err)
			}
			more := bytes.Repeat([]byte("n"), 300000) // past the file's clusters
			if n, err := u.Write(more); err != nil || n != len(more) {
				t.Fatalf("Write: %d, %v", n, err)
			}
			if _, err := r.Read(make([]byte, 10)); !errors.Is(err, ErrChanged) {
				t.Errorf("a reader opened before the update: %v, want ErrChanged", err)
			}
			dev := v.Device()
			err = v.Close()
			if !errors.Is(err, ErrWriterOpen) || !strings.Contains(err.Error(), `"f.bin"`) {
				t.Fatalf("Close with an updater open: %v, want ErrWriterOpen naming f.bin", err)
			}
			if _, err := u.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
				t.Errorf("Write after the volume's Close: %v", err)
			}
			if err := u.Close(); err != nil {
				t.Errorf("a second Close: %v", err)
			}
			checkClean(t, dev, "check after Close")
			back, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			got, err := fs.ReadFile(back, "f.bin")
			if err != nil || !bytes.Equal(got, append(old, more...)) {
				t.Errorf("f.bin after Close: %d bytes, %v; want %d", len(got), err, len(old)+len(more))
			}
		})
	}
}
