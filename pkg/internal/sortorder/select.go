package sortorder

import "strings"

// Selection says which directories to sort, as fatsort's -d and -D do:
// every directory when both lists are empty; otherwise those in Only
// (that directory alone) and those in Tree (the directory and every one
// below it). Paths are cleaned volume paths ("." is the root, "a/b" a
// folder in a), matched without regard to case, as FAT and exFAT look
// names up.
type Selection struct {
	Only []string
	Tree []string
}

// Match says whether the directory at path p is sorted, and whether the
// walk must go below it (to a selected directory, or a Tree's members).
func (s Selection) Match(p string) (sort, descend bool) {
	if len(s.Only) == 0 && len(s.Tree) == 0 {
		return true, true
	}
	for _, t := range s.Tree {
		if within(p, t) {
			return true, true
		}
		if within(t, p) {
			descend = true
		}
	}
	for _, o := range s.Only {
		if strings.EqualFold(p, o) {
			sort = true
		} else if within(o, p) {
			descend = true
		}
	}
	return sort, descend
}

// within reports whether path p is dir or lies below it.
func within(p, dir string) bool {
	if dir == "." || strings.EqualFold(p, dir) {
		return true
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.EqualFold(p[:len(dir)], dir)
}

// Paths lists every path the selection names.
func (s Selection) Paths() []string { return append(append([]string(nil), s.Only...), s.Tree...) }
