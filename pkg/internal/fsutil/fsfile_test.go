package fsutil

import (
	"io"
	"io/fs"
	"testing"
	"time"
)

// Page hands out a directory's members n at a time (all when n <= 0),
// skipping the entries that are not members, and then says none is left;
// DirEnd is io.EOF only for a paged listing.
func TestPage(t *testing.T) {
	all := []string{"", "a", "b", "", "c", "d", "", "", "e", ""}
	member := func(s string) bool { return s != "" }
	for _, tc := range []struct {
		n     int
		pages []int
	}{{2, []int{2, 2, 1}}, {5, []int{5}}, {9, []int{5}}, {0, []int{5}}, {-1, []int{5}}} {
		at := 0
		for i, want := range tc.pages {
			if page, more := Page(all, &at, tc.n, member); len(page) != want || !more {
				t.Errorf("n %d: page %d has %d members (more %v), want %d", tc.n, i, len(page), more, want)
			}
		}
		if page, more := Page(all, &at, tc.n, member); page != nil || more {
			t.Errorf("n %d: a page past the end: %v, %v", tc.n, page, more)
		}
	}
	if DirEnd(1) != io.EOF || DirEnd(0) != nil || DirEnd(-1) != nil {
		t.Error("DirEnd: want io.EOF for n > 0 only")
	}
}

// ReadOn reads from the offset up to the file's size and moves on.
func TestReadOn(t *testing.T) {
	data := []byte("0123456789")
	readAt := func(p []byte, off int64) (int, error) { return copy(p, data[off:]), nil }
	off := int64(0)
	p := make([]byte, 4)
	var got []byte
	for {
		n, err := ReadOn(p, &off, 7, readAt)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil || n == 0 {
			t.Fatalf("ReadOn: %d, %v", n, err)
		}
	}
	if string(got) != "0123456" || off != 7 {
		t.Errorf("read %q to offset %d, want %q to 7", got, off, "0123456")
	}
}

// A directory has no size and mode 0755 whatever its entry says; a file
// is 0644, or 0444 when read-only.
func TestFileInfo(t *testing.T) {
	mod := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		dir, ro  bool
		size     int64
		wantMode fs.FileMode
		wantSize int64
	}{
		{false, false, 10, 0o644, 10},
		{false, true, 10, 0o444, 10},
		{true, true, 4096, fs.ModeDir | 0o755, 0},
	} {
		i := NewFileInfo("x", tc.dir, tc.size, tc.ro, mod, 7)
		if i.Mode() != tc.wantMode || i.Size() != tc.wantSize || i.IsDir() != tc.dir || i.Name() != "x" || !i.ModTime().Equal(mod) || i.Sys() != 7 {
			t.Errorf("%+v: mode %v size %d dir %v, want %v %d %v", tc, i.Mode(), i.Size(), i.IsDir(), tc.wantMode, tc.wantSize, tc.dir)
		}
	}
	if r := RootInfo("/", nil); r.Name() != "/" || !r.IsDir() || !r.ModTime().IsZero() {
		t.Errorf("root: %q dir %v time %v", r.Name(), r.IsDir(), r.ModTime())
	}
}
