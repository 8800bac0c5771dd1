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
