package fsutil

import (
	"slices"
	"strings"
	"testing"
)

// TouchPath marks the loaded directories on a path the most recently
// used, the root first, and stops at the first element that is not a
// loaded directory, loading none.
func TestTouchPath(t *testing.T) {
	// Directories are their paths; "/a/b/c" is a file, "/a/x" a
	// directory that is not loaded.
	loaded := map[string]bool{"/": true, "/a": true, "/a/b": true}
	var touched []string
	w := &Walker[string, string]{
		Root: func() (string, error) { return "/", nil },
		Lookup: func(d, name string) string {
			p := strings.TrimSuffix(d, "/") + "/" + name
			if p == "/a/b/c" || p == "/a/x" || loaded[p] {
				return p
			}
			return ""
		},
		IsDir:  func(r string) bool { return r != "/a/b/c" },
		Open:   func(string, string) (string, error) { t.Fatal("TouchPath loaded a directory"); return "", nil },
		Cached: func(_, r string) (string, bool) { return r, loaded[r] },
		Touch:  func(d string) { touched = append(touched, d) },
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{".", []string{"/"}},
		{"a", []string{"/", "/a"}},
		{"a/b/c", []string{"/", "/a", "/a/b"}},
		{"a/x/y", []string{"/", "/a"}},
		{"missing/b", []string{"/"}},
	} {
		touched = nil
		w.TouchPath(tc.path)
		if !slices.Equal(touched, tc.want) {
			t.Errorf("TouchPath(%q) touched %v, want %v", tc.path, touched, tc.want)
		}
	}
}

// Parent looks up each folder on the way and, only for a name that ends
// in a slash (which must then be a directory), the last element: a
// Create or Mkdir looks its name up itself, so a copy of a million files
// would otherwise look every name up twice.
func TestParentLookups(t *testing.T) {
	lookups := 0
	w := &Walker[string, string]{
		Root: func() (string, error) { return "/", nil },
		Lookup: func(d, name string) string {
			lookups++
			p := strings.TrimSuffix(d, "/") + "/" + name
			if p == "/a" || p == "/a/b" || p == "/a/b/f" {
				return p
			}
			return ""
		},
		IsDir: func(r string) bool { return r != "/a/b/f" },
		Open:  func(_, r string) (string, error) { return r, nil },
		Mark:  func(string) *uint64 { return new(uint64) },
		Walks: new(uint64),
	}
	for _, tc := range []struct {
		name    string
		lookups int
		err     bool
	}{
		{"a/b/new", 2, false},
		{"a/b/f", 2, false},
		{"a/b/f/", 3, true}, // names a directory: f is a file
		{"a/b/new/", 3, false},
	} {
		lookups = 0
		d, base, err := w.Parent("create", tc.name)
		if (err != nil) != tc.err || lookups != tc.lookups {
			t.Errorf("Parent(%q): %q %q, %v after %d lookups; want error %v after %d", tc.name, d, base, err, lookups, tc.err, tc.lookups)
		}
	}
}
