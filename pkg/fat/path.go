package fat

import (
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// cleanPath and namesDir read volume paths as pkg/exfat reads them.
var (
	cleanPath = fsutil.CleanPath
	namesDir  = fsutil.NamesDir
)

// checkFSName refuses what io/fs does not allow, with a trailing slash
// allowed (see fsutil.CheckFSName); pkg/vol applies the same rule to
// exFAT's io/fs methods.
var checkFSName = fsutil.CheckFSName

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

// walker resolves paths over v's directories (see fsutil.Walker).
func (v *Volume) walker() *fsutil.Walker[*dir, *Record] {
	if v.walkers == nil {
		v.walkers = v.newWalker()
	}
	return v.walkers
}

func (v *Volume) newWalker() *fsutil.Walker[*dir, *Record] {
	return &fsutil.Walker[*dir, *Record]{
		Root:   v.rootDir,
		Walks:  &v.walks,
		Lookup: (*dir).lookup,
		IsDir:  func(r *Record) bool { return r.Entry.IsDir() },
		Open:   func(_ *dir, r *Record) (*dir, error) { return v.dirOf(r) },
		Mark:   func(d *dir) *uint64 { return &d.walk },
		NotDir: ErrNotDir,
		Loop:   errDirLoop,
		Cached: func(_ *dir, r *Record) (*dir, bool) {
			d, ok := v.dirs[r.Entry.Cluster]
			return d, ok && r.Entry.Cluster != 0
		},
		Touch: v.touchDir,
	}
}

// lookup resolves name to its parent directory and record; the root has a
// nil record and a nil parent. op names the operation for errors.
func (v *Volume) lookup(op, name string) (*dir, *Record, error) {
	d, r, _, err := v.lookupPath(op, name)
	return d, r, err
}

// lookupPath is lookup that also returns the walk number it marked the
// directories on the path with (see fsutil.Walker.Walk).
func (v *Volume) lookupPath(op, name string) (*dir, *Record, uint64, error) {
	return v.walker().Walk(op, cleanPath(name), namesDir(name))
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
