package fsutil

import (
	"path"
	"strings"
)

// CleanPath turns a volume path ("/a/b", "a/b/", "::/a", "\a\b") into the
// form the walkers use: no leading or trailing slash, "." for the root.
// A path in that form already (every change a copy makes names one) is
// returned as it is, without the copies cleaning makes.
func CleanPath(name string) string {
	if isCleanPath(name) {
		return name
	}
	name = strings.TrimPrefix(name, "::")
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Clean("/" + name)
	if name == "/" {
		return "."
	}
	return name[1:]
}

// isCleanPath reports whether name is in CleanPath's form: "." or
// elements joined by single slashes, none empty, "." or "..", no
// backslash, no leading "::".
func isCleanPath(name string) bool {
	if name == "." {
		return true
	}
	if name == "" || strings.HasPrefix(name, "::") {
		return false
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		switch {
		case i == len(name) || name[i] == '/':
			if e := name[start:i]; e == "" || e == "." || e == ".." {
				return false
			}
			start = i + 1
		case name[i] == '\\':
			return false
		}
	}
	return true
}

// NamesDir reports whether name ends in a slash (or "/."), which says the
// last element must be a directory: as for open(2), "file/" is not the
// file but an error.
func NamesDir(name string) bool {
	name = strings.ReplaceAll(name, "\\", "/")
	return strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/.") || name == "."
}
