package fsutil

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Walker resolves volume paths over a codec's loaded directories, the same
// way for pkg/fat and pkg/exfat: D is the codec's directory, R its record
// of one entry (both pointers; R's zero value is "no entry", which also
// stands for the root, that has none). A Walker is built for one call and
// shares its volume's lock.
type Walker[D, R comparable] struct {
	Root  func() (D, error) // the root directory
	Walks *uint64           // the volume's count of walks so far
	// Lookup finds the entry name in d (as the codec compares names), or
	// R's zero value.
	Lookup func(d D, name string) R
	IsDir  func(r R) bool
	// Open loads the directory that r, an entry of d, names.
	Open func(d D, r R) (D, error)
	// Mark is where d keeps the number of the last walk through it.
	Mark func(d D) *uint64
	// NotDir is the codec's "not a directory" error; Loop its error for
	// an entry that leads back to a directory on its own path.
	NotDir, Loop error
	// Hidden, if set, says why directory d lists fewer members than it
	// holds (damaged entries), or nil: a name missed there may be one of
	// them, and the error says so (it still matches fs.ErrNotExist).
	Hidden func(d D) error
	// Cached, if set, returns the directory that r, an entry of d, names
	// when it is loaded already (without loading it), and Touch marks a
	// loaded directory the most recently used: see TouchPath.
	Cached func(d D, r R) (D, bool)
	Touch  func(d D)
}

// TouchPath marks the loaded directories on the clean path name (see
// CleanPath), the root first, the most recently used, without loading any:
// the directory cache keeps the most recently used one whatever its charge
// (a folder of 60,000 names would otherwise be read again for each of its
// files), so a call settles the cache after TouchPath to keep the folder
// it is about to use rather than the one the last call used (listing a
// tree would otherwise hold its largest folder while reading the next).
// It stops at the first element that is not a loaded directory.
func (w *Walker[D, R]) TouchPath(name string) {
	var noR R
	d, err := w.Root()
	if err != nil || w.Cached == nil {
		return
	}
	w.Touch(d)
	for rest := name; rest != "." && rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		r := w.Lookup(d, part)
		if r == noR || !w.IsDir(r) {
			return
		}
		next, ok := w.Cached(d, r)
		if !ok {
			return
		}
		w.Touch(next)
		d = next
	}
}

// Walk resolves the clean path name (see CleanPath) to the directory that
// holds its last element and that element's record; the root has a nil
// record and a nil directory. It marks the directories the path goes
// through with a new walk number, returned: a directory met twice on one
// path is a loop in a damaged image, an error, never an endless walk.
// (Marks on the cached directories cost nothing per step; a set would cost
// a map insert per path element, which a tree thousands of levels deep
// pays thousands of times per lookup.) dirOnly (see NamesDir) refuses a
// last element that is not a directory. op names the operation for errors.
func (w *Walker[D, R]) Walk(op, name string, dirOnly bool) (D, R, uint64, error) {
	var noD D
	var noR R
	root, err := w.Root()
	if err != nil {
		return noD, noR, 0, err
	}
	*w.Walks++
	walk := *w.Walks
	*w.Mark(root) = walk
	if name == "." {
		return noD, noR, walk, nil
	}
	d := root
	rest := name
	for {
		part, more, _ := strings.Cut(rest, "/")
		r := w.Lookup(d, part)
		if r == noR {
			err := fs.ErrNotExist
			if w.Hidden != nil {
				if h := w.Hidden(d); h != nil {
					err = fmt.Errorf("%w (%w)", fs.ErrNotExist, h)
				}
			}
			return noD, noR, 0, &fs.PathError{Op: op, Path: "/" + name, Err: err}
		}
		if more == "" {
			if dirOnly && !w.IsDir(r) {
				return noD, noR, 0, &fs.PathError{Op: op, Path: "/" + name + "/", Err: w.NotDir}
			}
			return d, r, walk, nil
		}
		at := func() string { return "/" + name[:len(name)-len(more)-1] }
		if !w.IsDir(r) {
			return noD, noR, 0, &fs.PathError{Op: op, Path: at(), Err: w.NotDir}
		}
		next, err := w.Open(d, r)
		if err != nil {
			return noD, noR, 0, &fs.PathError{Op: op, Path: at(), Err: err}
		}
		if *w.Mark(next) == walk {
			return noD, noR, 0, &fs.PathError{Op: op, Path: at(), Err: w.Loop}
		}
		*w.Mark(next) = walk
		d, rest = next, more
	}
}

// Parent resolves the directory that holds the volume path name (which
// need not exist) and returns it with name's last element. The root is
// refused (fs.ErrExist: it always exists). A name ending in a slash that
// exists and is not a directory is NotDir; one that does not exist is left
// to the caller (Mkdir takes it, Create refuses it).
func (w *Walker[D, R]) Parent(op, name string) (D, string, error) {
	var noD D
	var noR R
	dirOnly := NamesDir(name)
	name = CleanPath(name)
	if name == "." {
		return noD, "", &fs.PathError{Op: op, Path: "/", Err: fs.ErrExist}
	}
	dirName, base := path.Split(name)
	// dirName is name's clean folder and a slash: without it, it is clean.
	pd, pr, _, err := w.Walk(op, CleanPath(strings.TrimSuffix(dirName, "/")), false)
	if err != nil {
		return noD, "", err
	}
	var d D
	switch {
	case pr == noR:
		d, err = w.Root()
	case !w.IsDir(pr):
		return noD, "", &fs.PathError{Op: op, Path: "/" + strings.TrimSuffix(dirName, "/"), Err: w.NotDir}
	default:
		d, err = w.Open(pd, pr)
	}
	if err != nil {
		return noD, "", &fs.PathError{Op: op, Path: "/" + name, Err: err}
	}
	if !dirOnly {
		return d, base, nil // the caller looks base up as it needs
	}
	if r := w.Lookup(d, base); r != noR && !w.IsDir(r) {
		return noD, "", &fs.PathError{Op: op, Path: "/" + name + "/", Err: w.NotDir}
	}
	return d, base, nil
}
