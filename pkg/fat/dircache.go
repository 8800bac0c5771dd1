package fat

import "github.com/ftools/ftools/pkg/internal/dircache"

// The directory cache. Loaded directories stay in v.dirs so that path
// lookups and inserts cost O(1), but not without bound: a tree of a
// million files would otherwise keep every name in memory. Each directory
// is charged dircache.CostFactor times its raw slots (the slots, the records
// and the name index they index), the cache is kept in
// least-recently-used order, and at the safe points (settle: the start of
// a public call, when no directory is held across it) the oldest clean
// directories are dropped until the charge is within dirBudget.
// Directories with changes not yet written cannot be dropped: a writer
// (settleWrite) commits first when they are charged more than
// dirtyBudget (one of FAT's largest directories), so a copy of a
// million files into a thousand folders commits every 20,000 names or so
// instead of holding them all.
//
// The list and the charge are pkg/internal/dircache's, shared with
// pkg/exfat; what may be dropped is decided here.

// The budgets (dircache's) are variables so that tests can make them small.
var dirBudget, dirtyBudget = dircache.Budget, dircache.DirtyBudget

// cacheDir adds d to the cache as the most recently used directory.
func (v *Volume) cacheDir(d *dir) {
	v.dirs[d.first] = d
	v.dircache.Add(&d.node, d, len(d.raw))
}

// touchDir marks d the most recently used.
func (v *Volume) touchDir(d *dir) { v.dircache.Touch(&d.node) }

// forgetDir drops the directory at first (removed, its clusters freed)
// from the cache.
func (v *Volume) forgetDir(first Cluster) {
	if d := v.dirs[first]; d != nil {
		delete(v.dirs, first)
		v.dircache.Remove(&d.node)
	}
}

// grew charges d for slots it gained.
func (v *Volume) grew(d *dir, bytes int) { v.dircache.Grew(&d.node, bytes) }

// settle drops the least recently used directories that are clean and
// held by nothing (a Writer's parent, changes waiting for a later phase)
// until the cache is within dirBudget. Directories removed from v.dirs
// elsewhere (deleted ones) leave the list here.
func (v *Volume) settle() {
	v.dircache.Settle(dirBudget, func(owner any) bool {
		switch d := owner.(*dir); {
		case v.dirs[d.first] != d:
			return true
		case !d.node.Pinned() && v.dirtyDirs[d.first] == nil:
			delete(v.dirs, d.first)
			return true
		}
		return false
	})
}

// settleFor is settle for a call about to read the path name: the
// directories on it that are loaded become the most recently used first,
// so that the one the last call used need not be kept (see
// fsutil.Walker.TouchPath).
func (v *Volume) settleFor(name string) {
	v.walker().TouchPath(cleanPath(name))
	v.settle()
}

// settleWrite is settle for a call that changes the volume: when the
// directories with changes keep the cache charged more than dirtyBudget,
// everything is committed first (see dircache.Cache.SettleWrite).
func (v *Volume) settleWrite() error {
	return v.dircache.SettleWrite(dirtyBudget, v.settle,
		v.writable && !v.closed && len(v.dirtyDirs) > 0, v.Commit)
}
