package vol

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

// One path rule on both file systems (see paths.go): the io/fs methods
// take io/fs names (and a trailing slash for a directory), the changing
// methods volume paths, cleaned.
func TestPathRule(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			if err := v.MkdirAll("/a/b", stamp); err != nil {
				t.Fatal(err)
			}
			write(t, v, "a/../a/f.txt", []byte("x"))
			for _, c := range []struct {
				name string
				want error // nil, fs.ErrInvalid or ErrNotDir
			}{
				{".", nil},
				{"a", nil},
				{"a/b", nil},
				{"a/b/", nil},
				{"A/F.TXT", nil},
				{"a/f.txt/", ErrNotDir},
				{"/a/b", fs.ErrInvalid},
				{"a/../a/b", fs.ErrInvalid},
				{"a/./b", fs.ErrInvalid},
				{"./a", fs.ErrInvalid},
				{`a\b`, fs.ErrInvalid},
				{"::/a", fs.ErrInvalid},
				{"a//b", fs.ErrInvalid},
				{"", fs.ErrInvalid},
				{"/", fs.ErrInvalid},
			} {
				for op, call := range map[string]func(string) error{
					"Open":    func(n string) error { f, err := v.Open(n); closeIf(f); return err },
					"Stat":    func(n string) error { _, err := v.Stat(n); return err },
					"ReadDir": func(n string) error { _, err := v.ReadDir(n); return err },
				} {
					err := call(c.name)
					var pe *fs.PathError
					switch {
					case c.want == nil && err != nil && !(op == "ReadDir" && c.name == "A/F.TXT" && errors.Is(err, ErrNotDir)):
						t.Errorf("%s(%q): %v, want success", op, c.name, err)
					case c.want != nil && !errors.Is(err, c.want):
						t.Errorf("%s(%q): %v, want %v", op, c.name, err, c.want)
					case c.want == fs.ErrInvalid && (!errors.As(err, &pe) || pe.Path != c.name):
						t.Errorf("%s(%q): %v, want an *fs.PathError naming it", op, c.name, err)
					}
				}
			}
			// The changing methods clean their paths.
			for _, c := range []struct{ do, stat string }{
				{"/c", "c"}, {"a/../d", "d"}, {`\e`, "e"}, {"::/g", "g"}, {"a/b/../h/", "a/h"},
			} {
				if err := v.Mkdir(c.do, stamp); err != nil {
					t.Errorf("Mkdir(%q): %v", c.do, err)
					continue
				}
				if fi, err := v.Stat(c.stat); err != nil || !fi.IsDir() {
					t.Errorf("Mkdir(%q) then Stat(%q): %v", c.do, c.stat, err)
				}
			}
			if err := v.Rename("/a/f.txt", "a/../f2.txt"); err != nil {
				t.Errorf("Rename: %v", err)
			}
			if err := v.Remove("/f2.txt"); err != nil {
				t.Errorf("Remove: %v", err)
			}
		})
	}
}

func closeIf(f fs.File) {
	if f != nil {
		f.Close()
	}
}

// Both file systems pass testing/fstest through the Volume interface.
func TestFSThroughVol(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			if err := v.MkdirAll("dir/sub", stamp); err != nil {
				t.Fatal(err)
			}
			write(t, v, "top.txt", []byte("top"))
			write(t, v, "dir/Long File Name.txt", make([]byte, 5000))
			write(t, v, "dir/sub/empty", nil)
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(v, "top.txt", "dir/Long File Name.txt", "dir/sub/empty", "dir/sub"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
