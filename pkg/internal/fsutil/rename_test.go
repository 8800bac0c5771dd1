package fsutil

import (
	"errors"
	"io/fs"
	"os"
	pathpkg "path"
	"strings"
	"testing"
)

// CheckReplace follows rename(2): a file over a file, a directory over
// an empty directory, nothing else.
func TestCheckReplace(t *testing.T) {
	notDir, isDir, notEmpty, eio := errors.New("notdir"), errors.New("isdir"), errors.New("notempty"), errors.New("eio")
	for _, c := range []struct {
		dir, targetDir bool
		empty          bool
		readErr        error
		want           error
	}{
		{false, false, false, nil, nil},
		{true, false, false, nil, notDir},
		{false, true, true, nil, isDir},
		{true, true, true, nil, nil},
		{true, true, false, nil, notEmpty},
		{true, true, false, eio, eio},
	} {
		empty := func() (bool, error) { return c.empty, c.readErr }
		if err := CheckReplace(c.dir, c.targetDir, empty, notDir, isDir, notEmpty); err != c.want {
			t.Errorf("%+v: %v, want %v", c, err, c.want)
		}
	}
}

// A move names both paths in its errors, finds what it replaces, and
// tells a change of case from a rename to the same name.
func TestMoveTarget(t *testing.T) {
	type rec struct{ name string }
	a, b := &rec{"A"}, &rec{"b"}
	change := func(op, name string) (int, *rec, error) { return 1, a, nil }
	parentOf := func(op, name string) (int, string, error) { return 2, pathpkg.Base(CleanPath(name)), nil }
	none := func() error { return nil }
	lookupPath := func(op, name string) (int, *rec, error) { return change(op, name) }
	moves := Changes[int, *rec]{Begin: none, Settle: none, Lookup: lookupPath, Parent: parentOf}
	byName := map[string]*rec{"a": a, "A": a, "b": b}
	lookup := func(d int, n string) *rec { return byName[n] }
	recName := func(r *rec) string { return r.name }
	isDir := func(r *rec) bool { return false }
	notDir := errors.New("notdir")
	for _, c := range []struct {
		to     string
		target *rec
		same   bool
	}{{"::/d/A", nil, true}, {"d/a", nil, false}, {"d/b", b, false}, {"d/c", nil, false}} {
		m, err := StartMove("/x/A", c.to, moves, isDir, notDir)
		if err != nil {
			t.Fatal(err)
		}
		if target, same := m.Target(lookup, recName); target != c.target || same != c.same {
			t.Errorf("%s: %v %v, want %v %v", c.to, target, same, c.target, c.same)
		}
	}
	m, _ := StartMove("x/A", "d/b", moves, isDir, notDir)
	var le *os.LinkError
	if err := m.Err(fs.ErrExist); !errors.As(err, &le) || le.Old != "/x/A" || le.New != "/d/b" {
		t.Errorf("error %v, want a LinkError naming /x/A and /d/b", err)
	}
}

// rename(2) refuses "." or ".." as the new last element, and a new name
// ending in "/" for a file, on both codecs alike.
func TestStartMoveRefusesNames(t *testing.T) {
	type rec struct{ dir bool }
	file, dir := &rec{}, &rec{dir: true}
	var moved *rec
	none := func() error { return nil }
	moves := Changes[int, *rec]{Begin: none, Settle: none,
		Lookup: func(op, name string) (int, *rec, error) { return 1, moved, nil },
		Parent: func(op, name string) (int, string, error) {
			return 2, pathpkg.Base(strings.TrimRight(strings.ReplaceAll(name, "\\", "/"), "/")), nil
		}}
	notDir := errors.New("notdir")
	isDir := func(r *rec) bool { return r.dir }
	for _, c := range []struct {
		r    *rec
		to   string
		want error
	}{
		{file, "d/.", fs.ErrInvalid}, {file, "d/..", fs.ErrInvalid}, {dir, "..", fs.ErrInvalid},
		{file, "d/b/", notDir}, {file, "d\\b\\", notDir}, {dir, "d/b/", nil}, {file, "d/b", nil},
	} {
		moved = c.r
		_, err := StartMove("x/A", c.to, moves, isDir, notDir)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%v -> %q: %v, want %v", c.r.dir, c.to, err, c.want)
		}
	}
}
