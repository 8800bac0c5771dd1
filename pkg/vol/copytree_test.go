package vol

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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
	links := t.TempDir()
	if err := errors.Join(os.WriteFile(filepath.Join(links, "file"), []byte("f"), 0o644), os.Mkdir(filepath.Join(links, "dir"), 0o755),
		os.Symlink("file", filepath.Join(links, "to-file")), os.Symlink("dir", filepath.Join(links, "to-dir"))); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dst string
		src       fs.FS
		refused   string // the path an ErrExist names; "" for a copy
		fails     string // what another refusal says
	}{
		{"into the root", "/", tree, "", ""},
		{"into a new folder", "new/in", tree, "", ""},
		{"merging into a folder", "::\\have", tree, "", ""},
		{"onto an existing file", "", fstest.MapFS{"b.txt": {}, "have/X.TXT": {Data: []byte("new")}}, "have/X.TXT", ""},
		{"a folder onto a file", "have", fstest.MapFS{"x.txt/y": {}}, "have/x.txt", ""},
		{"a file onto a folder", "", fstest.MapFS{"b.txt": {}, "HAVE": {}}, "HAVE", ""},
		{"two names one on the volume", "", fstest.MapFS{"a.txt": {}, "A.TXT": {}}, "a.txt", ""},
		{"not a regular file", "", fstest.MapFS{"a.txt": {}, "fifo": {Mode: fs.ModeNamedPipe}}, "", "fifo is not a regular file"},
		{"a link to a folder", "", os.DirFS(links), "", "to-dir is a link to a folder"},
		{"a name the volume cannot hold", "", fstest.MapFS{"a.txt": {}, "z/bad?.txt": {}}, "", "z/bad?.txt"},
		{"a name with a trailing dot", "", fstest.MapFS{"a.txt": {}, "dot.": {}}, "", "dot."},
		{"a destination the volume cannot hold", "new/CON", tree, "", "new/CON"},
		{"a file too large", "", bigFS{fstest.MapFS{"a.txt": {}, "big": {}}}, "", "big (5368709120 bytes)"},
	}
	for _, kind := range []string{"FAT32", "exFAT"} {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				dev, v := copyVolume(t, kind)
				before := voltest.DevBytes(t, dev)
				err := CopyFS(v, c.dst, c.src)
				if c.name == "a file too large" && kind == "exFAT" {
					// Part way: the file copied before is kept.
					if !IsFull(err) {
						t.Fatalf("CopyFS of 5 GiB into 64 MiB: %v", err)
					}
					if err := v.Close(); err != nil {
						t.Fatal(err)
					}
					fsck(t, kind, voltest.ImageFile(t, voltest.DevBytes(t, dev)))
					return
				} else if c.refused != "" || c.fails != "" {
					var pe *fs.PathError
					if c.refused != "" && (!errors.Is(err, fs.ErrExist) || !errors.As(err, &pe) || !strings.EqualFold(pe.Path, c.refused)) {
						t.Fatalf("CopyFS: %v, want fs.ErrExist naming %s", err, c.refused)
					} else if c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails)) {
						t.Fatalf("CopyFS: %v, want an error saying %q", err, c.fails)
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

// bigFS says its file "big" holds 5 GiB, past FAT's largest file.
type bigFS struct{ fstest.MapFS }

func (b bigFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := b.MapFS.Stat(name)
	if name == "big" && err == nil {
		return bigInfo{fi}, nil
	}
	return fi, err
}

type bigInfo struct{ fs.FileInfo }

func (bigInfo) Size() int64 { return 5 << 30 }

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
