package fsutil

import (
	"path"
	"strings"
)

// CleanPath turns a volume path ("/a/b", "a/b/", "::/a", "\a\b") into the
// form the walkers use: no leading or trailing slash, "." for the root.
func CleanPath(name string) string {
	name = strings.TrimPrefix(name, "::")
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Clean("/" + name)
	if name == "/" {
		return "."
	}
	return name[1:]
}

// NamesDir reports whether name ends in a slash (or "/."), which says the
// last element must be a directory: as for open(2), "file/" is not the
// file but an error.
func NamesDir(name string) bool {
	name = strings.ReplaceAll(name, "\\", "/")
	return strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/.") || name == "."
}
