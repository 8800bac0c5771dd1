package exfat

import "github.com/ftools/ftools/pkg/internal/dircache"

// The directory cache, bounded as pkg/fat's is (pkg/internal/dircache
// keeps the list and the charge for both). Loaded directories stay in
// v.dirs so that path lookups and inserts cost O(1); at the start of each
// public call (settle) the least recently used clean ones are dropped
// until the charge is within dirBudget, so a card with 100,000 folders
// lists, copies and checks in bounded memory.
//
// What exFAT keeps that FAT does not: a directory points at its parent
// (growing it updates the DataLength in the parent's entry set), so a
// loaded directory pins its parent, and directories are dropped leaves
// first. The root is pinned for the volume's life. A Writer pins its
// parent until it closes; a rename's old entries, cleared at the next
// commit, pin theirs until then. Directories with changes not yet written
// are never dropped: a writer (settleWrite) commits first when they are
// charged more than dirtyBudget.

// The budgets (dircache's) are variables so that tests can make them small.
var dirBudget, dirtyBudget = dircache.Budget, dircache.DirtyBudget

// cacheDir adds d to v.dirs and the cache as the most recently used, and
// pins its parent.
func (v *Volume) cacheDir(d *dir) {
	v.dirs[d.first] = d
	v.dircache.Add(&d.node, d, len(d.raw))
	if d.parent != nil && !d.pinsParent {
		d.parent.node.Pin()
		d.pinsParent = true
	}
}

// uncacheDir takes d off the list and lets go of its parent. It leaves
// v.dirs to the caller.
func (v *Volume) uncacheDir(d *dir) {
	v.dircache.Remove(&d.node)
	if d.pinsParent {
		d.parent.node.Unpin()
		d.pinsParent = false
	}
}

// reparent moves d under a new parent (a rename), moving its pin.
func (v *Volume) reparent(d, parent *dir, r *Record) {
	if d.pinsParent {
		d.parent.node.Unpin()
		parent.node.Pin()
	}
	d.rec, d.parent = r, parent
}

// settle drops the least recently used directories that are clean and
// held by nothing until the cache is within dirBudget.
func (v *Volume) settle() {
	v.dircache.Settle(dirBudget, func(owner any) bool {
		d := owner.(*dir)
		switch {
		case v.dirs[d.first] != d:
			// Replaced or removed: only the list still had it.
			v.uncacheDir(d)
			return true
		case d.node.Pinned():
			return false
		}
		if _, dirty := v.dirtyDirs[d]; dirty {
			return false
		}
		delete(v.dirs, d.first)
		v.uncacheDir(d)
		return true
	})
}

// settleFor is settle for a call about to read the clean path clean: the
// directories on it that are loaded become the most recently used first,
// so that the one the last call used need not be kept (see
// fsutil.Walker.TouchPath).
func (v *Volume) settleFor(clean string) {
	v.walker().TouchPath(clean)
	v.settle()
}

// settleWrite is settle for a call that changes the volume: when the
// directories with changes keep the cache charged more than dirtyBudget,
// everything is committed first (see dircache.Cache.SettleWrite).
func (v *Volume) settleWrite() error {
	return v.dircache.SettleWrite(dirtyBudget, v.settle,
		v.writable && !v.closed && len(v.dirtyDirs) > 0, v.Commit)
}
