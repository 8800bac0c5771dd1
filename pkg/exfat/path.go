package exfat

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"ftools/pkg/internal/fsutil"
)

// cleanPath and namesDir read volume paths as pkg/fat reads them.
var (
	cleanPath = fsutil.CleanPath
	namesDir  = fsutil.NamesDir
)

// dirOf loads the directory a record names (the root for nil).
func (v *Volume) dirOf(parent *dir, r *Record) (*dir, error) {
	if r == nil {
		return v.root(), nil
	}
	if !r.IsDir() {
		return nil, ErrNotDir
	}
	return v.loadDir(parent, r)
}

// lookup resolves name to its parent directory and record; the root has a
// nil record and a nil parent. op names the operation for errors.
func (v *Volume) lookup(op, name string) (*dir, *Record, error) {
	d, r, _, err := v.lookupPath(op, cleanPath(name))
	if err == nil {
		err = dirOnly(op, name, r)
	}
	return d, r, err
}

// dirOnly is the error for a file named with a trailing slash.
func dirOnly(op, name string, r *Record) error {
	if r != nil && !r.IsDir() && namesDir(name) {
		return &fs.PathError{Op: op, Path: "/" + cleanPath(name), Err: ErrNotDir}
	}
	return nil
}

// lookupPath is lookup that also marks the directories the path went
// through with a walk number, returned: a directory met twice on one path
// (two entries sharing clusters in a damaged image) is an error, never an
// endless walk. name is already clean (see cleanPath).
func (v *Volume) lookupPath(op, name string) (*dir, *Record, uint64, error) {
	v.walks++
	walk := v.walks
	d := v.root()
	d.walk = walk
	if name == "." {
		return nil, nil, walk, nil
	}
	rest := name
	for {
		part, more, _ := strings.Cut(rest, "/")
		r := d.lookup(part)
		if r == nil {
			return nil, nil, 0, &fs.PathError{Op: op, Path: "/" + name, Err: fs.ErrNotExist}
		}
		if more == "" {
			return d, r, walk, nil
		}
		at := "/" + name[:len(name)-len(more)-1]
		if !r.IsDir() {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at, Err: ErrNotDir}
		}
		next, err := v.loadDir(d, r)
		if err != nil {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at, Err: err}
		}
		if next.walk == walk {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at, Err: errDirLoop}
		}
		next.walk = walk
		d, rest = next, more
	}
}

// errDirLoop is a directory entry that leads back to a directory on its
// own path.
var errDirLoop = fmt.Errorf("%w: directory loop: this entry leads back to a directory on its own path", ErrCorrupt)

// parentOf resolves the directory that holds name (which need not exist)
// and returns it with name's last element.
func (v *Volume) parentOf(op, name string) (*dir, string, error) {
	name = cleanPath(name)
	if name == "." {
		return nil, "", &fs.PathError{Op: op, Path: "/", Err: fs.ErrExist}
	}
	dirName, base := path.Split(name)
	pd, pr, err := v.lookup(op, dirName)
	if err != nil {
		return nil, "", err
	}
	if pr != nil && !pr.IsDir() {
		return nil, "", &fs.PathError{Op: op, Path: "/" + strings.TrimSuffix(dirName, "/"), Err: ErrNotDir}
	}
	d, err := v.dirOf(pd, pr)
	if err != nil {
		return nil, "", &fs.PathError{Op: op, Path: "/" + name, Err: err}
	}
	return d, base, nil
}
