package fsutil

import (
	"path"
	"strings"
	"testing"
)

// CleanPath returns a path already clean as it is, without a copy (a copy
// of a million files names a million), and cleans any other as before.
func TestCleanPath(t *testing.T) {
	slow := func(name string) string {
		name = strings.ReplaceAll(strings.TrimPrefix(name, "::"), "\\", "/")
		if name = path.Clean("/" + name); name == "/" {
			return "."
		}
		return name[1:]
	}
	for _, name := range []string{
		".", "", "/", "a", "a/b/c.txt", "/a/b", "a/b/", "a//b", "::/a", "::a", "a::b", `a\b`, `\a`,
		"a/./b", "a/../b", "..", "../a", "a/..", ".a/b.", "a/.../b", "./a", "a/.", "//", "::", ":::a",
	} {
		if got, want := CleanPath(name), slow(name); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", name, got, want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { CleanPath("t/folder0001/a file named 042.dat") }); n != 0 {
		t.Errorf("CleanPath of a clean path: %.0f allocations, want none", n)
	}
}
