package fat

import (
	"io/fs"
	"strconv"

	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// ErrIntoItself is wrapped by Rename's error for moving a directory into
// itself or one of its subdirectories.
var ErrIntoItself error = fserr.ErrIntoItself.In("fat")

// Rename moves or renames oldName to newName on the volume without copying
// data: the entry moves, the clusters stay. It follows rename(2): newName's
// parent must exist; an existing file at newName is replaced (its clusters
// are freed once the new entry is on disk), an existing empty directory is
// replaced by a directory; a directory cannot replace a file or vice versa,
// nor move into itself. Renaming to a name that differs only in case (or
// to the name itself) rewrites the entry in place. A moved directory's ".."
// entry is updated to name its new parent (0 for the root).
func (v *Volume) Rename(oldName, newName string) error {
	m, err := fsutil.StartMove(oldName, newName, v.changes(), func(r *Record) bool { return r.Entry.IsDir() }, ErrNotDir)
	if err != nil {
		return err
	}
	od, r, nd, base, pathErr := m.From, m.Rec, m.To, m.Base, m.Err
	if r.Entry.IsDir() {
		inside, err := v.isWithin(nd, r.Entry.Cluster)
		if err != nil {
			return pathErr(err)
		}
		if inside {
			return pathErr(ErrIntoItself)
		}
	}
	target, same := m.Target((*dir).lookup, func(r *Record) string { return r.Name })
	if same {
		return nil
	}
	if target != nil {
		if err := v.checkReplace(r, target); err != nil {
			return pathErr(err)
		}
	}
	if err := checkNewName(base); err != nil {
		return pathErr(err)
	}
	var oldChain []Extent
	if target != nil {
		if oldChain, err = chainOrNil(v, target.Entry.Cluster); err == nil {
			err = v.guardFree(oldChain)
		}
		if err != nil {
			return pathErr(err)
		}
	}
	movedDir := r.Entry.IsDir() && od != nd
	var moved *dir
	var dotDot *Record
	if movedDir {
		// Found now, so that nothing can fail once the entries changed.
		if moved, err = v.loadDir(r.Entry.Cluster); err != nil {
			return pathErr(err)
		}
		if dotDot, err = dotDotRecord(moved); err != nil {
			return pathErr(err)
		}
	}
	oldPhase := phaseAfterEntries
	if movedDir {
		oldPhase = phaseLast
	}
	if _, err := v.moveRecord(od, r, nd, base, target, oldPhase); err != nil {
		return pathErr(err)
	}
	if target != nil && target.Entry.IsDir() {
		v.forgetDir(oldChain[0].Start)
		delete(v.dirtyDirs, oldChain[0].Start)
	}
	if movedDir {
		// The ".." entry changes at once in memory (later renames follow
		// it), and on disk between the new entry and the old one's
		// deletion: a cut at any point leaves the directory under a name
		// whose parent its ".." entry names, the other name aside.
		dotDot.Entry.Cluster = parentCluster(nd)
		v.later(moved, phaseAfterEntries, func() { moved.update(dotDot) })
	}
	v.pendingFree = append(v.pendingFree, oldChain...)
	return nil
}

// moveRecord gives r's entry the name base in nd, in the order that keeps
// the file reachable whatever part of the change a cut lets reach the
// disk:
//
//   - over an existing target, the target's short entry takes r's fields
//     in place (one sector: the target's name holds its old or its new
//     file);
//   - within one directory, the new record is written over r's own slots
//     (and free slots right after them) when it fits there and they lie
//     in one sector;
//   - otherwise the new record is added, and r's slots are marked deleted
//     only after it is durable (phaseAfterEntries).
//
// In the first and last case a cut in between leaves two entries with the
// same first cluster and size: an interrupted rename, which fverify
// reports and repairs without losing the file. r's short name stays taken
// until its slots go, so that the two never share a short name.
func (v *Volume) moveRecord(od *dir, r *Record, nd *dir, base string, target *Record, oldPhase phase) (*Record, error) {
	if target != nil {
		e := r.Entry
		e.Name, e.NTRes = target.Entry.Name, target.Entry.NTRes
		target.Entry = e
		nd.update(target)
		od.detach(r)
		v.deleteRecordIn(od, r, oldPhase)
		return target, nil
	}
	if od == nd {
		if nr, ok, err := od.renameInPlace(r, base); ok || err != nil {
			return nr, err
		}
	}
	od.detach(r)
	nr, err := nd.add(base, r.Entry)
	if err != nil {
		od.attach(r)
		return nil, err
	}
	v.deleteRecordIn(od, r, oldPhase)
	return nr, nil
}

// renameInPlace rewrites r as a record named name in r's own slots and the
// free slots that follow them, when the new record fits there and all of
// it lies in one sector (so one write replaces the old name by the new).
// It reports false, changing nothing, when it does not fit.
func (d *dir) renameInPlace(r *Record, name string) (*Record, bool, error) {
	per := int(d.v.layout.SectorSize) / DirEntrySize
	room := r.Slots
	for i := r.Slot + room; i < len(d.raw)/DirEntrySize && i/per == r.Slot/per && (i >= d.end || d.raw[i*DirEntrySize] == SlotDeleted); i++ {
		room++
	}
	if r.Slot/per != (r.Slot+r.Slots-1)/per {
		return nil, false, nil
	}
	d.detach(r)
	d.shorts.Remove(r.Short) // a change of case keeps its short name
	slots, info, e, err := d.encode(name, r.Entry)
	n := len(slots) / DirEntrySize
	if err != nil || n > room {
		d.shorts.Add(r.Short)
		d.attach(r)
		return nil, false, err
	}
	for i := r.Slot + n; i < r.Slot+r.Slots; i++ {
		d.raw[i*DirEntrySize] = SlotDeleted
	}
	d.markDirty(r.Slot, r.Slots)
	return d.place(r.Slot, name, slots, info, e), true, nil
}

// checkReplace says whether r may replace target, as rename(2) decides.
func (v *Volume) checkReplace(r, target *Record) error {
	if target.Entry.IsLabel() {
		return fs.ErrExist
	}
	empty := func() (bool, error) {
		d, err := v.dirOf(target)
		if err != nil {
			return false, err
		}
		return len(d.list()) == 0, nil
	}
	return fsutil.CheckReplace(r.Entry.IsDir(), target.Entry.IsDir(), empty, ErrNotDir, ErrIsDir, ErrNotEmpty)
}

// isWithin reports whether directory d is the directory whose first cluster
// is c or lies below it, by following ".." entries up to the root (at most
// as many steps as the volume has clusters).
func (v *Volume) isWithin(d *dir, c Cluster) (bool, error) {
	if c == 0 {
		return true, nil // an entry claiming the root: refuse to move it
	}
	for steps := uint32(0); steps <= v.layout.Clusters; steps++ {
		if d.isRoot() {
			return false, nil
		}
		if d.first == c {
			return true, nil
		}
		var up Cluster
		found := false
		for _, r := range d.recs {
			if r != nil && r.Short == DotDotName {
				up, found = r.Entry.Cluster, true
				break
			}
		}
		if !found {
			return false, &fs.PathError{Op: "rename", Path: "cluster " + strconv.FormatUint(uint64(d.first), 10), Err: errNoDotDot}
		}
		var err error
		if up == 0 {
			d, err = v.rootDir()
		} else {
			d, err = v.loadDir(up)
		}
		if err != nil {
			return false, err
		}
	}
	return false, errDotDotLoop
}

var (
	errNoDotDot   = &FormatError{Structure: "directory", Field: "..", Offset: DirEntrySize, Msg: "entry missing", Err: ErrCorrupt}
	errDotDotLoop = &FormatError{Structure: "directory", Field: "..", Offset: DirEntrySize, Msg: "entries form a loop", Err: ErrCorrupt}
)

// dotDotRecord is directory d's ".." record.
func dotDotRecord(d *dir) (*Record, error) {
	for _, r := range d.recs {
		if r != nil && r.Short == DotDotName {
			return r, nil
		}
	}
	return nil, errNoDotDot
}

// parentCluster is what a ".." entry names for parent directory d: its
// first cluster, or 0 for the root.
func parentCluster(d *dir) Cluster {
	if d.isRoot() {
		return 0
	}
	return d.first
}
