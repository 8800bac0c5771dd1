package exfat

import (
	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// ErrIntoItself is wrapped by Rename's error for moving a directory into
// itself or one of its subdirectories.
var ErrIntoItself error = fserr.ErrIntoItself.In("exfat")

// Rename moves or renames oldName to newName without copying data: the
// entry set moves, the clusters stay. It follows rename(2): newName's
// parent must exist; an existing file at newName is replaced (its clusters
// are freed once the new entry is on disk), an existing empty directory is
// replaced by a directory; a directory cannot replace a file or vice versa,
// nor move into itself.
//
// A rename within one directory to a name of as many entries (a change of
// case, or any name of the same length class) rewrites the set in place.
// Otherwise the new set is written first and the old one deleted only
// after a barrier (Commit's last step): a power cut in between leaves the
// file under both names, never under none.
func (v *Volume) Rename(oldName, newName string) error {
	m, err := fsutil.StartMove(oldName, newName, v.changes(), (*Record).IsDir, ErrNotDir)
	if err != nil {
		return err
	}
	od, r, nd, base, linkErr := m.From, m.Rec, m.To, m.Base, m.Err
	if err := checkNewName(base); err != nil {
		return linkErr(err)
	}
	if nd.hidden != nil {
		// The new name may be a member it does not list.
		return linkErr(nd.hidden)
	}
	u, err := EncodeName(base)
	if err != nil {
		return linkErr(err)
	}
	if r.IsDir() && v.isWithin(nd, r) {
		return linkErr(ErrIntoItself)
	}
	target, same := m.Target((*dir).lookup, func(r *Record) string { return r.Name })
	if same {
		return nil
	}
	if target != nil {
		if err := v.checkReplace(nd, target, r); err != nil {
			return linkErr(err)
		}
	}
	set := r.Set
	set.Name = u
	if od == nd && target == nil && set.Entries() == r.Slots {
		nd.forget(r) // by its old name
		r.Set, r.Name = set, base
		nd.byName.add(v.up, r)
		nd.insertSorted(r)
		return nd.update(r)
	}
	if target != nil {
		exts, err := v.recordExtents(target)
		if err != nil {
			return linkErr(err)
		}
		if target.IsDir() {
			if td, ok := v.dirs[target.Set.Stream.FirstCluster]; ok {
				v.dropDir(td)
			}
		}
		nd.remove(target)
		v.pendingFree = append(v.pendingFree, exts...)
	}
	od.forget(r)
	nr, err := nd.add(base, set)
	if err != nil {
		// Put the old name back: its entries were never cleared.
		od.byName.add(v.up, r)
		od.insertSorted(r)
		return linkErr(err)
	}
	types := make([]byte, r.Slots)
	for i := range types {
		types[i] = od.raw[(r.Slot+i)*EntrySize]
	}
	od.node.Pin() // until the deferred clear is applied (Commit)
	v.deferred = append(v.deferred, deferredClear{d: od, slot: r.Slot, n: r.Slots, firstBytes: types})
	if nr.IsDir() {
		if d, ok := v.dirs[nr.Set.Stream.FirstCluster]; ok && d.rec == r {
			v.reparent(d, nd, nr)
		}
	}
	return nil
}

// isWithin reports whether directory d is the directory r names or lies
// below it, following the loaded directories' parents up to the root.
func (v *Volume) isWithin(d *dir, r *Record) bool {
	for steps := 0; d != nil && steps <= fsutil.MaxTreeDepth; steps++ {
		if d.rec == r || (d.rec != nil && d.first == r.Set.Stream.FirstCluster) {
			return true
		}
		d = d.parent
	}
	return false
}

// checkReplace says whether r may replace target (a member of d), as
// rename(2) decides.
func (v *Volume) checkReplace(d *dir, target, r *Record) error {
	empty := func() (bool, error) {
		td, err := v.loadDir(d, target)
		if err != nil {
			return false, err
		}
		return len(td.list()) == 0, nil
	}
	return fsutil.CheckReplace(r.IsDir(), target.IsDir(), empty, ErrNotDir, ErrIsDir, ErrNotEmpty)
}
