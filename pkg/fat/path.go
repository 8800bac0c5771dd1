package fat

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"ftools/pkg/internal/fsutil"
)

// cleanPath and namesDir read volume paths as pkg/exfat reads them.
var (
	cleanPath = fsutil.CleanPath
	namesDir  = fsutil.NamesDir
)

// checkFSName refuses a name that io/fs does not allow (fs.ValidPath),
// or that holds a backslash (FAT's other separator) or starts with "::"
// (the toolkit's mark of a volume path), allowing only a
// trailing slash (the name must be a directory).
func checkFSName(op, name string) error {
	n := name
	if len(n) > 1 {
		n = strings.TrimSuffix(n, "/")
	}
	if !fs.ValidPath(n) || strings.Contains(n, `\`) || strings.HasPrefix(n, "::") {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// rootDir loads the root directory.
func (v *Volume) rootDir() (*dir, error) {
	if v.layout.Type == FAT32 {
		return v.loadDir(v.layout.RootCluster)
	}
	return v.loadDir(0)
}

// dirOf loads the directory a record names. A ".." entry of a first-level
// directory holds cluster 0, which means the root.
func (v *Volume) dirOf(r *Record) (*dir, error) {
	if r == nil || r.Entry.Cluster == 0 {
		return v.rootDir()
	}
	if !r.Entry.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", r.Name)
	}
	return v.loadDir(r.Entry.Cluster)
}

// lookup resolves name to its parent directory and record; the root has a
// nil record and a nil parent. op names the operation for errors.
func (v *Volume) lookup(op, name string) (*dir, *Record, error) {
	d, r, _, err := v.lookupPath(op, name)
	return d, r, err
}

// lookupPath is lookup that also marks the directories the path went
// through with a walk number, returned: a directory met twice on one path
// is a loop in a damaged image, an error, never an endless walk. (Marks on
// the cached directories cost nothing per step; a set would cost a map
// insert per path element, which a tree thousands of levels deep pays
// thousands of times per lookup.)
func (v *Volume) lookupPath(op, name string) (*dir, *Record, uint64, error) {
	dirOnly := namesDir(name)
	name = cleanPath(name)
	root, err := v.rootDir()
	if err != nil {
		return nil, nil, 0, err
	}
	v.walks++
	walk := v.walks
	root.walk = walk
	if name == "." {
		return nil, nil, walk, nil
	}
	d := root
	rest := name
	for {
		part, more, _ := strings.Cut(rest, "/")
		r := d.lookup(part)
		if r == nil {
			return nil, nil, 0, &fs.PathError{Op: op, Path: "/" + name, Err: fs.ErrNotExist}
		}
		if more == "" {
			if dirOnly && !r.Entry.IsDir() {
				return nil, nil, 0, &fs.PathError{Op: op, Path: "/" + name + "/", Err: ErrNotDir}
			}
			return d, r, walk, nil
		}
		at := func() string { return "/" + name[:len(name)-len(more)-1] }
		if !r.Entry.IsDir() {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at(), Err: ErrNotDir}
		}
		if d, err = v.dirOf(r); err != nil {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at(), Err: err}
		}
		if d.walk == walk {
			return nil, nil, 0, &fs.PathError{Op: op, Path: at(), Err: errDirLoop}
		}
		d.walk = walk
		rest = more
	}
}

// errDirLoop is a directory entry that leads back to a directory on its
// own path.
var errDirLoop = fmt.Errorf("%w: directory loop: this entry leads back to a directory on its own path", ErrCorrupt)

// parentOf resolves the directory that holds name (which need not exist)
// and returns it with name's last element. A name ending in a slash that
// exists and is not a directory is ErrNotDir; one that does not exist is
// left to the caller (Mkdir takes it, Create refuses it).
func (v *Volume) parentOf(op, name string) (*dir, string, error) {
	dirOnly := namesDir(name)
	name = cleanPath(name)
	if name == "." {
		return nil, "", &fs.PathError{Op: op, Path: "/", Err: fs.ErrExist}
	}
	dirName, base := path.Split(name)
	pd, pr, err := v.lookup(op, dirName)
	if err != nil {
		return nil, "", err
	}
	_ = pd
	if pr != nil && !pr.Entry.IsDir() {
		return nil, "", &fs.PathError{Op: op, Path: "/" + strings.TrimSuffix(dirName, "/"), Err: ErrNotDir}
	}
	d, err := v.dirOf(pr)
	if err != nil {
		return nil, "", &fs.PathError{Op: op, Path: "/" + name, Err: err}
	}
	if r := d.lookup(base); dirOnly && r != nil && !r.Entry.IsDir() {
		return nil, "", &fs.PathError{Op: op, Path: "/" + name + "/", Err: ErrNotDir}
	}
	return d, base, nil
}
