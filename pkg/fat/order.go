package fat

import (
	"fmt"
	"sort"

	fio "github.com/ftools/ftools/pkg/io"
)

// Crash order (see the package doc): a commit writes in phases with a
// barrier (fio.Device.Barrier: a flush under --sync close and file)
// between them, because a device with a volatile cache may persist the
// writes issued since its last flush in any subset and order, torn at
// sector boundaries.
//
//  1. phaseData: file data, the whole contents of directories made in
//     this commit (their entries too: nothing reaches them until their
//     own entry does, in phase 2), the zeroed clusters a directory grows
//     by, and the FAT of chains no entry on disk names yet (new files and
//     directories, the clusters a directory or file grows by).
//  2. phaseEntries: directory entries (new, updated, deleted) and the FAT
//     links that make an existing directory longer.
//  3. phaseAfterEntries: what must wait until the new entries are durable:
//     the old entry of a renamed file, the short entry of a deleted record
//     whose long-name slots lie in the sector before it, the boot
//     sector's label.
//  4. phaseLast: the FAT again, for clusters that deleted or replaced files
//     held; the old entry of a directory moved to another directory (after
//     its ".." entry, which phaseAfterEntries changed); FSINFO.
//  5. phaseFinal: the short entry of such an old entry whose long-name
//     slots lie in the sector before it.
type phase int

const (
	phaseData phase = iota + 1
	phaseEntries
	phaseAfterEntries
	phaseLast
	phaseFinal
)

// heldLink is a FAT entry whose new value may reach the disk only in a
// later phase: until then every FAT write carries the old one.
type heldLink struct {
	old   Cluster
	phase phase
}

// holdLink keeps FAT entry c at its current value on disk until phase p;
// the in-memory table may change it at once. A second hold keeps the
// first one's value and phase.
func (v *Volume) holdLink(c Cluster, p phase) {
	if _, ok := v.held[c]; ok {
		return
	}
	if v.held == nil {
		v.held = map[Cluster]heldLink{}
	}
	v.held[c] = heldLink{old: v.table.Get(c), phase: p}
}

// allocateAfter is allocate for a chain that an entry on disk already
// names: the link from its last cluster to the new ones is written only in
// phase p, after the new clusters' contents and their own chain.
func (v *Volume) allocateAfter(n uint32, last Cluster, p phase) ([]Extent, error) {
	if last != 0 {
		v.holdLink(last, p)
	}
	exts, err := v.allocate(n, last)
	if err != nil && last != 0 {
		delete(v.held, last)
	}
	return exts, err
}

// undoGrowth gives back clusters allocateAfter added to the chain ending at
// last, when writing their contents failed: the chain ends at last again,
// and last's held link goes unless it was held before (held).
func (v *Volume) undoGrowth(last Cluster, held bool, exts []Extent) {
	v.freeClusters(exts)
	v.table.Set(last, v.table.EOC())
	if !held {
		delete(v.held, last)
	}
}

// writeFAT writes the FAT's changed ranges as they may be on disk at phase
// p: entries held for a later phase carry their old value, and stay
// changed in memory (and marked for the later write).
func (v *Volume) writeFAT(p phase) error {
	type restore struct{ c, cur Cluster }
	var later []restore
	for c, h := range v.held {
		if h.phase > p {
			later = append(later, restore{c, v.table.Get(c)})
			v.table.Set(c, h.old)
		} else {
			delete(v.held, c)
		}
	}
	err := v.FlushFAT()
	for _, r := range later {
		v.table.Set(r.c, r.cur)
	}
	return err
}

// deferredChange is a change to a directory's slots that must wait for
// a later phase.
type deferredChange struct {
	d     *dir
	apply func()
	phase phase
}

// later queues a change to d for phase p.
func (v *Volume) later(d *dir, p phase, apply func()) {
	v.deferred = append(v.deferred, deferredChange{d: d, apply: apply, phase: p})
	d.node.Pin()
}

// deleteRecord marks the slots of r (already detached from d) deleted. A
// record within one sector goes at once, in phaseEntries. A record whose
// long-name slots all lie in the sectors before its short entry's sector
// loses them first and its short entry only in phaseAfterEntries: a cut
// in between leaves the short entry alone (a file under its short name),
// never long-name slots without their entry. (A record split inside its
// long name, which ftools never writes but other tools may, cannot be
// deleted without such a moment; it goes at once.)
func (v *Volume) deleteRecord(d *dir, r *Record) {
	v.deleteRecordIn(d, r, phaseEntries)
}

// deleteRecordIn deletes r's slots in phase p (and its short entry in the
// phase after p when the record straddles a sector boundary as described
// at deleteRecord).
func (v *Volume) deleteRecordIn(d *dir, r *Record, p phase) {
	short := r.Short
	shortSlot := r.Slot + r.Slots - 1
	per := int(v.layout.SectorSize) / DirEntrySize
	split := shortSlot / per * per
	if split == shortSlot && r.Slot < split {
		v.markSlots(d, r.Slot, split-r.Slot, nil, p)
		v.markSlots(d, shortSlot, 1, &short, p+1)
		return
	}
	v.markSlots(d, r.Slot, r.Slots, &short, p)
}

// markSlots marks n slots from slot deleted in phase p: now when p is
// phaseEntries (the next directory write is that phase's), else later.
func (v *Volume) markSlots(d *dir, slot, n int, short *ShortName, p phase) {
	if p <= phaseEntries {
		d.markDeleted(slot, n, short)
		return
	}
	v.later(d, p, func() { d.markDeleted(slot, n, short) })
}

// deferredUpTo reports whether slots wait to be marked deleted in a phase
// up to p.
func (v *Volume) deferredUpTo(p phase) bool {
	for _, s := range v.deferred {
		if s.phase <= p {
			return true
		}
	}
	return false
}

// applyDeferred marks the deferred slots of phases up to p deleted.
func (v *Volume) applyDeferred(p phase) {
	keep := v.deferred[:0]
	for _, s := range v.deferred {
		if s.phase > p {
			keep = append(keep, s)
			continue
		}
		// A directory removed since (its clusters freed with it) is not
		// written back.
		s.d.node.Unpin()
		if v.dirs[s.d.first] == s.d {
			s.apply()
		}
	}
	v.deferred = keep
}

// markDeleted sets the first byte of n slots from slot to 0xE5, frees the
// short name (if given) and lets the slots be reused.
func (d *dir) markDeleted(slot, n int, short *ShortName) {
	for i := slot; i < slot+n && i < len(d.raw)/DirEntrySize; i++ {
		d.raw[i*DirEntrySize] = SlotDeleted
	}
	d.markDirty(slot, n)
	if short != nil {
		d.shorts.Remove(*short)
	}
	d.freed(slot)
}

// freed lowers the free-slot hints for slots freed at slot: a run that
// takes them starts in slot's sector at the earliest.
func (d *dir) freed(slot int) {
	d.hint = min(d.hint, slot)
	per := int(d.v.layout.SectorSize) / DirEntrySize
	for k := range d.fit {
		d.fit[k] = min(d.fit[k], slot/per*per)
	}
}

// freeRun finds n free slots for a new record that do not straddle a
// sector boundary, growing the directory when it has none: a torn write
// could otherwise persist the long-name slots in one sector without the
// short entry in the next. Only a record longer than a sector, or a
// directory that cannot grow, gets a run across a boundary.
//
// Slots past the end marker that the record skips are marked deleted, so
// that the end marker does not hide it. They go out in phaseData (with
// the FAT, writeSkips), before the record: were the record's sector
// durable without them, the record would lie past the end marker, where
// Linux, mtools and fverify do not look but fsck.fat does.
func (d *dir) freeRun(n int) (int, error) {
	for {
		if pos := d.fitRun(n); pos >= 0 {
			if pos > d.end {
				for i := d.end; i < pos; i++ {
					d.raw[i*DirEntrySize] = SlotDeleted
				}
				d.v.skips = append(d.v.skips, skipped{d: d, slot: d.end, n: pos - d.end})
				d.node.Pin()
			}
			return pos, nil
		}
		if err := d.grow(); err != nil {
			// No room without straddling: take any run there is.
			if pos := d.anyRun(n); pos >= 0 {
				return pos, nil
			}
			return -1, err
		}
	}
}

// fitRun is where a record of n slots can go without growing d: the first
// free run from the hints on that does not straddle a sector boundary
// (unless n is longer than a sector), or -1.
func (d *dir) fitRun(n int) int {
	per := int(d.v.layout.SectorSize) / DirEntrySize
	slots := len(d.raw) / DirEntrySize
	k := min(n, maxRecordSlots)
	for from := max(d.hint, d.fit[k]); ; {
		pos := findFreeSlots(d.raw, n, from, d.end)
		if pos < 0 || pos+n > slots {
			d.fit[k] = max(d.fit[k], from)
			return -1
		}
		if n > per || pos/per == (pos+n-1)/per {
			// Nothing that fits n (or more) starts before pos.
			for j := k; j < len(d.fit); j++ {
				d.fit[j] = max(d.fit[j], pos)
			}
			return pos
		}
		from = (pos/per + 1) * per // the next run that can fit starts in the next sector
	}
}

// noteNewDir records a directory made since the last commit: until its
// entry in its parent is durable nothing on disk reaches it, so Commit
// writes all of it, the entries made in it included, in phaseData. Were
// its entries written in phaseEntries like an existing directory's, a
// torn write could leave its first sector as Mkdir wrote it (the end
// marker right after "." and "..") with entries durable behind it.
func (v *Volume) noteNewDir(d *dir) {
	if v.newDirs == nil {
		v.newDirs = map[Cluster]*dir{}
	}
	if v.newDirs[d.first] != d {
		d.node.Pin() // kept in the directory cache until written (settle)
	}
	v.newDirs[d.first] = d
}

// writeNewDirs writes, after the data and before the first barrier, every
// cluster of each directory made since the last commit that has changed
// since Mkdir queued its first cluster, and lets the FAT links of its chain
// go out in phaseData with it.
//
// It returns the directories it wrote: their slots skipped by new records
// (writeSkips) are on disk with them, and may since hold a record that a
// deleted mark written from the skip list would wipe out.
func (v *Volume) writeNewDirs() (map[*dir]bool, error) {
	if len(v.newDirs) == 0 {
		return nil, nil
	}
	written := map[*dir]bool{}
	b := v.dev.NewBatch()
	cs := v.layout.ClusterSize
	for c, d := range v.newDirs {
		delete(v.newDirs, c)
		d.node.Unpin()
		if v.dirs[c] != d {
			continue // removed since
		}
		if _, dirty := v.dirtyDirs[c]; !dirty {
			// As Mkdir and grow queued it with the data: nothing in it
			// yet. A copy that makes its directories first may fill it
			// after this commit: it then goes out whole (fresh), so that
			// new directories side by side go out as one run.
			d.fresh = true
			continue
		}
		for i, cl := range d.chain {
			if err := b.Write(v.layout.ClusterOffset(cl), d.raw[int64(i)*cs:int64(i+1)*cs]); err != nil {
				return nil, fmt.Errorf("fat: writing new directories: %w", err)
			}
			delete(v.held, cl)
		}
		clear(d.dirty)
		delete(v.dirtyDirs, c)
		written[d] = true
	}
	if err := b.Flush(); err != nil {
		return nil, fmt.Errorf("fat: writing new directories: %w", err)
	}
	return written, nil
}

// skipped is a run of slots a new record skipped (freeRun): marked deleted
// on disk in phaseData.
type skipped struct {
	d       *dir
	slot, n int
}

// writeSkips writes the deleted marks of the skipped slots, in phaseData:
// each over the sector as it is on disk (the records around them wait for
// phaseEntries). Directories in whole (written, by writeNewDirs) are left
// alone. The sectors of one directory that hold marks are read
// and written as runs, all in one batch: not one small write per record,
// which would break the data stream into pieces.
func (v *Volume) writeSkips(whole map[*dir]bool) error {
	if len(v.skips) == 0 {
		return nil
	}
	ss := v.layout.SectorSize
	per := int(ss) / DirEntrySize
	// Each directory's marked sectors, in order.
	marks := map[*dir][]int{}
	var order []*dir
	for _, s := range v.skips {
		s.d.node.Unpin()
		if v.dirs[s.d.first] != s.d || whole[s.d] {
			continue // removed since (its clusters are free), or written whole
		}
		if _, ok := marks[s.d]; !ok {
			order = append(order, s.d)
		}
		for i := s.slot; i < s.slot+s.n; i++ {
			marks[s.d] = append(marks[s.d], i)
		}
	}
	v.skips = v.skips[:0]
	if len(order) == 0 {
		return nil
	}
	v.metaWritten = true
	b := v.dev.NewBatch()
	for _, d := range order {
		slots := marks[d]
		sort.Ints(slots)
		if d.fresh {
			if err := v.writeFreshSkips(b, d, slots); err != nil {
				return err
			}
			continue
		}
		for i := 0; i < len(slots); {
			// A run of sectors that lie one after another on the device.
			s0 := slots[i] / per
			s1 := s0
			j := i
			for ; j < len(slots) && slots[j]/per <= s1+1; j++ {
				next := slots[j] / per
				if next == s1+1 && d.offsetOf(int64(next)*ss) != d.offsetOf(int64(s1)*ss)+ss {
					break
				}
				s1 = next
			}
			off := d.offsetOf(int64(s0) * ss)
			buf := make([]byte, int64(s1-s0+1)*ss)
			if _, err := v.dev.ReadAt(buf, off); err != nil {
				return fmt.Errorf("fat: reading directory sectors at byte %d: %w", off, err)
			}
			for _, sl := range slots[i:j] {
				buf[(sl-s0*per)*DirEntrySize] = SlotDeleted
			}
			if err := b.Write(off, buf); err != nil {
				return fmt.Errorf("fat: writing directory sectors at byte %d: %w", off, err)
			}
			i = j
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("fat: writing directories: %w", err)
	}
	return nil
}

// writeFreshSkips is writeSkips for a fresh directory (see writeNewDirs):
// each run of its clusters, as it is on disk, with the deleted marks of
// slots, so that fresh directories side by side go out as one run.
func (v *Volume) writeFreshSkips(b *fio.Batch, d *dir, slots []int) error {
	cs := v.layout.ClusterSize
	at := 0 // the first slot of the run
	for _, e := range extentsOf(d.chain) {
		off := v.layout.ClusterOffset(e.Start)
		buf := make([]byte, int64(e.Len)*cs)
		if _, err := v.dev.ReadAt(buf, off); err != nil {
			return fmt.Errorf("fat: reading directory sectors at byte %d: %w", off, err)
		}
		end := at + len(buf)/DirEntrySize
		for _, sl := range slots {
			if sl >= at && sl < end {
				buf[(sl-at)*DirEntrySize] = SlotDeleted
			}
		}
		if err := b.Write(off, buf); err != nil {
			return fmt.Errorf("fat: writing directory sectors at byte %d: %w", off, err)
		}
		at = end
	}
	return nil
}
