package exfat

import (
	"fmt"
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsutil"
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

// walker resolves paths over v's directories (see fsutil.Walker).
func (v *Volume) walker() *fsutil.Walker[*dir, *Record] {
	if v.walkers == nil {
		v.walkers = v.newWalker()
	}
	return v.walkers
}

func (v *Volume) newWalker() *fsutil.Walker[*dir, *Record] {
	return &fsutil.Walker[*dir, *Record]{
		Root:   func() (*dir, error) { return v.root(), nil },
		Walks:  &v.walks,
		Lookup: (*dir).lookup,
		IsDir:  (*Record).IsDir,
		Open:   v.loadDir,
		Mark:   func(d *dir) *uint64 { return &d.walk },
		NotDir: ErrNotDir,
		Loop:   errDirLoop,
		Hidden: func(d *dir) error { return d.hidden },
		Cached: func(_ *dir, r *Record) (*dir, bool) {
			d, ok := v.dirs[r.Set.Stream.FirstCluster]
			return d, ok && d.rec == r
		},
		Touch: func(d *dir) { v.dircache.Touch(&d.node) },
	}
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

// lookupPath is lookup that also returns the walk number it marked the
// directories on the path with (see fsutil.Walker.Walk). name is already
// clean (see cleanPath).
func (v *Volume) lookupPath(op, name string) (*dir, *Record, uint64, error) {
	return v.walker().Walk(op, name, false)
}

// errDirLoop is a directory entry that leads back to a directory on its
// own path.
var errDirLoop = fmt.Errorf("%w: directory loop: this entry leads back to a directory on its own path", ErrCorrupt)

// changes is how a change to v's tree starts (see fsutil.Changes): its
// Entry finds an existing entry (the root refused), its New the directory
// a new entry goes in (the walker's Parent: the directory that holds a
// name that need not exist, and the name's last element).
func (v *Volume) changes() fsutil.Changes[*dir, *Record] {
	if v.chg == nil {
		v.chg = &fsutil.Changes[*dir, *Record]{Begin: v.begin, Settle: v.settleWrite, Lookup: v.lookup, Parent: v.walker().Parent,
			Member: (*dir).lookup, Check: checkNewName, Room: v.roomFor, Now: v.Now}
	}
	return *v.chg
}
