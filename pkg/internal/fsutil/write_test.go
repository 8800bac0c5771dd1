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
