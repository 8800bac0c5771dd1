package vol

import (
	"bytes"
	"errors"
	"io/fs"
	"os/exec"
	"path"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// copyVolume formats a memory device of kind holding the file have/x.txt
// and opens it again.
func copyVolume(t *testing.T, kind string) (*fio.Device, Volume) {
	t.Helper()
	dev := fio.NewMemDevice(64<<20, 512)
	o := FormatOptions{FAT: &FATParams{Type: fat.FAT32, AllowSmallFAT32: true}, Now: stamp}
	if kind == "exFAT" {
		o = FormatOptions{ExFAT: &exfat.FormatParams{Serial: 1}, Now: stamp}
	}
	if _, err := Format(dev, o); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.MkdirAll("have", stamp); err != nil {
		t.Fatal(err)
	}
	write(t, v, "have/x.txt", []byte("old"))
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if v, err = Open(dev); err != nil {
		t.Fatal(err)
	}
	return dev, v
}

func TestCopyFS(t *testing.T) {
	mod := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	tree := fstest.MapFS{
		"a.txt":               {Data: []byte("alpha"), ModTime: mod},
		"Long file name.txt":  {Data: bytes.Repeat([]byte("L"), 70000), ModTime: mod},
		"docs/notes.txt":      {Data: []byte("notes"), ModTime: mod},
		"docs/deep/empty.bin": {ModTime: mod},
		"docs/none":           {Mode: fs.ModeDir, ModTime: mod},
	}
	files := map[string]string{"a.txt": "alpha", "Long file name.txt": strings.Repeat("L", 70000),
		"docs/notes.txt": "notes", "docs/deep/empty.bin": ""}
	cases := []struct {
		name, dst string
		src       fs.FS
		refused   string // the path an ErrExist names; "" for a copy
	}{
		{"into the root", "/", tree, ""},
		{"into a new folder", "new/in", tree, ""},
		{"merging into a folder", "::\\have", tree, ""},
		{"onto an existing file", "", fstest.MapFS{"b.txt": {}, "have/X.TXT": {Data: []byte("new")}}, "have/X.TXT"},
		{"a folder onto a file", "have", fstest.MapFS{"x.txt/y": {}}, "have/x.txt"},
		{"a file onto a folder", "", fstest.MapFS{"b.txt": {}, "HAVE": {}}, "HAVE"},
		{"two names one on the volume", "", fstest.MapFS{"a.txt": {}, "A.TXT": {}}, "a.txt"},
		{"not a regular file", "", fstest.MapFS{"fifo": {Mode: fs.ModeNamedPipe}}, ""},
	}
	for _, kind := range []string{"FAT32", "exFAT"} {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				dev, v := copyVolume(t, kind)
				before := voltest.DevBytes(t, dev)
				err := CopyFS(v, c.dst, c.src)
				if c.refused != "" || c.name == "not a regular file" {
					var pe *fs.PathError
					if c.refused != "" && (!errors.Is(err, fs.ErrExist) || !errors.As(err, &pe) || !strings.EqualFold(pe.Path, c.refused)) {
						t.Fatalf("CopyFS: %v, want fs.ErrExist naming %s", err, c.refused)
					} else if err == nil {
						t.Fatal("CopyFS copied a named pipe")
					}
					if err := v.Close(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(before, voltest.DevBytes(t, dev)) {
						t.Fatal("a refused copy changed the image")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				dir := fsutil.CleanPath(c.dst)
				want := map[string]string{"have/x.txt": "old"}
				for name, data := range files {
					want[path.Join(dir, name)] = data
				}
				if err := v.Close(); err != nil {
					t.Fatal(err)
				}
				v, err = Open(dev)
				if err != nil {
					t.Fatal(err)
				}
				defer v.Close()
				voltest.ReadTreeBack(t, v, want, func() int64 { return 0 }, 1)
				for _, name := range []string{"a.txt", "docs/deep/empty.bin", "docs/none"} {
					fi, err := v.Stat(path.Join(dir, name))
					if err != nil || !fi.ModTime().Equal(mod) {
						t.Errorf("%s: %v, mtime %v, want %v", name, err, fi.ModTime(), mod)
					}
				}
				fsck(t, kind, voltest.ImageFile(t, voltest.DevBytes(t, dev)))
			})
		}
	}
}

// fsck runs the file system's checker, the oracle, on img, which must be
// clean; the test fails when the checker is missing.
func fsck(t *testing.T, kind, img string) {
	t.Helper()
	tool := "fsck.fat"
	if kind == "exFAT" {
		tool = "fsck.exfat"
	}
	if out, err := exec.Command(voltest.NeedTool(t, tool), "-n", img).CombinedOutput(); err != nil {
		t.Errorf("%s -n: %v\n%s", tool, err, out)
	}
}
