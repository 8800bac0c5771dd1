package fsutil

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
)

// MkdirAll makes the missing parents first, stops at an existing
// directory and refuses a file on the way.
func TestMkdirAll(t *testing.T) {
	notDir := errors.New("not a directory")
	type rec struct{ dir bool }
	for _, c := range []struct {
		name  string
		have  map[string]*rec
		made  []string
		isErr error
	}{
		{".", nil, nil, nil},
		{"a/b/c", map[string]*rec{"a": {true}}, []string{"a/b", "a/b/c"}, nil},
		{"a", map[string]*rec{"a": {true}}, nil, nil},
		{"f/x", map[string]*rec{"f": {false}}, nil, notDir},
	} {
		var made []string
		lookup := func(op, name string) (struct{}, *rec, error) {
			if r, ok := c.have[name]; ok {
				return struct{}{}, r, nil
			}
			return struct{}{}, nil, fs.ErrNotExist
		}
		mkdir := func(name string) error { made = append(made, name); return nil }
		err := MkdirAll(c.name, lookup, func(r *rec) bool { return r.dir }, notDir, mkdir)
		if !errors.Is(err, c.isErr) || (c.isErr == nil) != (err == nil) || !slices.Equal(made, c.made) {
			t.Errorf("%s: made %v, %v; want %v, %v", c.name, made, err, c.made, c.isErr)
		}
	}
}

// Put splits a write at extent ends and writes each piece where its
// extent lies; later writes go on from where the cursor stands.
func TestCursorPut(t *testing.T) {
	runs := [][2]int64{{1000, 4}, {2000, 2}, {3000, 8}}
	run := func(i int) (int64, int64) { return runs[i][0], runs[i][1] }
	type piece struct{ off, n int64 }
	var got []piece
	write := func(off int64, p []byte) error { got = append(got, piece{off, int64(len(p))}); return nil }
	var c Cursor
	if n, err := c.Put(make([]byte, 3), 0, run, write); n != 3 || err != nil {
		t.Fatalf("first put: %d, %v", n, err)
	}
	if n, err := c.Put(make([]byte, 5), 3, run, write); n != 5 || err != nil {
		t.Fatalf("second put: %d, %v", n, err)
	}
	want := []piece{{1000, 3}, {1003, 1}, {2000, 2}, {3000, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("pieces %v, want %v", got, want)
	}
	if off, n := c.Span(9, run); off != 3003 || n != 5 {
		t.Errorf("span of 9: %d+%d, want 3003+5", off, n)
	}
}
