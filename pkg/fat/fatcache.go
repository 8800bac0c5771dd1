package fat

import (
	"container/list"
	"fmt"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	"slices"

	fio "github.com/ftools/ftools/pkg/io"
)

// FAT windows. An open volume holds its first FAT as windows of
// 1<<fatWinShift entries (64 KiB of a FAT32), read when first used and
// dropped again, least recently used first, once more than
// fatMaxResident of them are in memory; changed ("dirty") windows stay
// until they are written. So memory stays bounded whatever the volume's
// size: a 2 TiB FAT32 has a 256 MiB FAT, of which at most 8 MiB is held.
// FAT12 and FAT16 tables (at most 128 KiB) are one window.
const fatWinShift = 14 // FAT32: 16,384 entries (64 KiB) per window

// fatMaxResident is how many windows stay in memory (a variable so that
// tests can make it small).
var fatMaxResident = 128

// fatCache is FAT 1 of an open volume, read and written in windows. It
// implements Table with cluster numbers of the whole volume, keeps the
// free-space summary (fatsum.go) and the set of clusters marked free but
// in use (inuse.go), and writes its changed sectors to every FAT copy
// (flush).
type fatCache struct {
	typ     Type
	entries uint32
	dev     *fio.Device
	l       *Layout
	proto   Table // a table of the volume's type, for the entry predicates

	shift    uint  // a window holds 1<<shift entries
	winBytes int64 // bytes of a full window
	nwin     int
	wins     []*fatWin // resident windows by index
	lru      list.List // resident windows, most recently used first
	resident int
	maxRes   int // windows kept in memory (the changed ones may exceed it only while a spill fails)
	dirty    []*fatWin
	last     *fatWin
	pool     [][]byte

	whole        []byte // Bytes: the whole table, once asked for
	releaseWhole func()

	// err is the first error reading or writing the FAT; once set, the
	// volume refuses changes (a window that could not be read reads as
	// bad clusters, which no allocation takes and no chain crosses).
	err error
	// spill writes the changed windows early (Volume.writeFAT in the
	// phase the volume is in) when more of them would have to stay in
	// memory than maxRes.
	spill    func() error
	spilling bool
	spills   int // how many times spill ran (for tests)

	// guard (writers): the first change to a window since it was read or
	// written compares it with the other FAT copies first (checkCopies).
	guard    bool
	guardBuf []byte

	sum     summary
	scratch []uint32            // a window's entries, decoded (sums)
	inUse   map[Cluster]Cluster // clusters marked free that something uses, and the cluster linking to each (0: a directory entry)
}

// fatWin is one window: entries [idx<<shift, ...) as an in-memory Table
// indexed from the window's first entry.
type fatWin struct {
	idx     int
	t       Table
	raw     []byte
	buf     []byte // the pooled buffer raw lies in (nil in whole mode)
	isDirty bool
	agreed  bool // checkCopies found the other copies equal (guard)
	elem    *list.Element
}

// newFATCache makes the windowed first FAT of the volume laid out as l on
// dev. Nothing is read yet.
func newFATCache(dev *fio.Device, l *Layout) (*fatCache, error) {
	if need := fatBytes(l.Type, l.Clusters); need > l.FATSize {
		return nil, &FormatError{Structure: "FAT", Field: "size", Offset: -1, Value: l.FATSize,
			Msg: fmt.Sprintf("%d clusters need %d bytes", l.Clusters, need), Err: ErrCorrupt}
	}
	proto, err := NewTable(l.Type, make([]byte, fatBytes(l.Type, 0)), 0)
	if err != nil {
		return nil, err
	}
	t := &fatCache{typ: l.Type, entries: l.Clusters + 2, dev: dev, l: l, proto: proto, maxRes: fatMaxResident}
	if l.Type == FAT32 {
		t.shift = fatWinShift
		t.winBytes = 4 << fatWinShift
	} else {
		// One window: the whole table.
		t.shift = 31
		t.winBytes = l.FATSize
	}
	t.nwin = int((uint64(t.entries) + 1<<t.shift - 1) >> t.shift)
	t.wins = make([]*fatWin, t.nwin)
	return t, nil
}

func (t *fatCache) Type() Type              { return t.typ }
func (t *fatCache) Entries() uint32         { return t.entries }
func (t *fatCache) IsFree(v Cluster) bool   { return t.proto.IsFree(v) }
func (t *fatCache) IsEOC(v Cluster) bool    { return t.proto.IsEOC(v) }
func (t *fatCache) IsBad(v Cluster) bool    { return t.proto.IsBad(v) }
func (t *fatCache) EOC() Cluster            { return t.proto.EOC() }
func (t *fatCache) badMark() Cluster        { return t.proto.Get(2) } // out of range: the bad mark
func (t *fatCache) winOf(c Cluster) int     { return int(uint32(c) >> t.shift) }
func (t *fatCache) local(c Cluster) Cluster { return c & (1<<t.shift - 1) }
func (t *fatCache) winFirst(i int) Cluster  { return Cluster(uint32(i) << t.shift) }
func (t *fatCache) winOffset(i int) int64   { return int64(i) * t.winBytes }
func (t *fatCache) inRange(c Cluster) bool  { return uint32(c) < t.entries }
func (t *fatCache) setSpill(f func() error) { t.spill = f }
func (t *fatCache) Err() error              { return t.err }

// fail records the first error.
func (t *fatCache) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// windowEntries is how many entries window i holds (the last one fewer).
func (t *fatCache) windowEntries(i int) uint32 {
	return min(uint32(1)<<min(t.shift, 31), t.entries-uint32(t.winFirst(i)))
}

// winLast is the last entry of window i.
func (t *fatCache) winLast(i int) Cluster {
	return t.winFirst(i) + Cluster(t.windowEntries(i)) - 1
}

// Get returns entry c; a window that cannot be read reads as bad clusters.
func (t *fatCache) Get(c Cluster) Cluster {
	if !t.inRange(c) {
		return t.badMark()
	}
	return t.win(t.winOf(c)).t.Get(t.local(c))
}

// Set stores v in entry c, keeping the summary current.
func (t *fatCache) Set(c Cluster, v Cluster) {
	if !t.inRange(c) {
		return
	}
	w := t.win(t.winOf(c))
	if t.guard && !w.agreed && t.err == nil {
		if err := t.checkCopies(w); err != nil {
			t.fail(err)
			return
		}
	}
	old := w.t.Get(t.local(c))
	w.t.Set(t.local(c), v)
	if !w.isDirty {
		w.isDirty = true
		t.dirty = append(t.dirty, w)
	}
	t.sum.changed(t, c, old, w.t.Get(t.local(c)))
}

// win returns window i, reading it if it is not in memory.
func (t *fatCache) win(i int) *fatWin {
	if w := t.last; w != nil && w.idx == i {
		return w
	}
	w := t.wins[i]
	if w == nil {
		w = t.load(i)
	} else {
		t.lru.MoveToFront(w.elem)
	}
	t.last = w
	return w
}

// load reads window i, making room for it first.
func (t *fatCache) load(i int) *fatWin {
	// More than one goes when the limit was lowered (syncFAT).
	for t.whole == nil && t.resident >= t.maxRes && t.evict() {
	}
	off := t.winOffset(i)
	n := min(t.winBytes, t.l.FATSize-off)
	var buf []byte
	if k := len(t.pool); k > 0 {
		buf, t.pool = t.pool[k-1], t.pool[:k-1]
	} else {
		buf = t.dev.AlignedBuffer(int(t.winBytes))
	}
	raw := buf[:n]
	_, err := t.dev.ReadAt(raw, t.l.FATOffset+off)
	w := t.install(i, raw, buf)
	if err != nil {
		t.fail(fmt.Errorf("fat: reading FAT 1 at byte %d: %w", t.l.FATOffset+off, err))
		for c := Cluster(0); uint32(c) < t.windowEntries(i); c++ {
			w.t.Set(c, t.badMark())
		}
		w.t.ClearDirty()
	}
	return w
}

// install makes raw resident as window i.
func (t *fatCache) install(i int, raw, buf []byte) *fatWin {
	w := &fatWin{idx: i, raw: raw, buf: buf, t: t.windowTable(i, raw)}
	t.wins[i] = w
	t.resident++
	w.elem = t.lru.PushFront(w)
	return w
}

// windowTable wraps the bytes of window i as a Table indexed from its
// first entry.
func (t *fatCache) windowTable(i int, raw []byte) Table {
	b := tableBase{raw: raw, entries: t.windowEntries(i)}
	switch t.typ {
	case FAT12:
		return &table12{b}
	case FAT16:
		return &table16{b}
	}
	return &table32{b}
}

// evict drops the least recently used window that holds no changes,
// writing the changed ones out first (spill) when none is clean. It
// reports whether a window was dropped.
func (t *fatCache) evict() bool {
	if t.dropClean() {
		return true
	}
	if t.spill == nil || t.spilling {
		return false // over the limit until the next write
	}
	t.spilling = true
	err := t.spill()
	t.spilling = false
	t.spills++
	if err != nil {
		t.fail(err)
		return false
	}
	return t.dropClean()
}

// dropClean drops the least recently used window without changes; false
// if every window has some.
func (t *fatCache) dropClean() bool {
	for e := t.lru.Back(); e != nil; e = e.Prev() {
		if w := e.Value.(*fatWin); !w.isDirty {
			t.drop(w)
			return true
		}
	}
	return false
}

// drop forgets a clean window and keeps its buffer for the next one.
func (t *fatCache) drop(w *fatWin) {
	t.lru.Remove(w.elem)
	t.wins[w.idx] = nil
	t.resident--
	if t.last == w {
		t.last = nil
	}
	if w.buf != nil && len(t.pool) < 8 {
		t.pool = append(t.pool, w.buf)
	}
}

// Bytes reads the whole table into memory (once) and returns it: from
// then on every window lies in it and none is dropped. It costs memory in
// proportion to the FAT (256 MiB for a 2 TiB FAT32); stream the table with
// Volume.ScanFAT and Volume.ReadFAT instead.
func (t *fatCache) Bytes() []byte {
	if t.whole != nil {
		return t.whole
	}
	whole, release := bigAlloc(t.l.FATSize)
	if _, err := t.dev.ReadAt(whole, t.l.FATOffset); err != nil {
		t.fail(fmt.Errorf("fat: reading FAT 1 at byte %d: %w", t.l.FATOffset, err))
	}
	for i := range t.wins {
		off := t.winOffset(i)
		raw := whole[off : off+min(t.winBytes, t.l.FATSize-off)]
		if w := t.wins[i]; w != nil {
			copy(raw, w.raw)
			// The changed ranges carry over: the window keeps its table,
			// pointed at the new bytes, and gives its buffer up.
			w.raw, w.buf = raw, nil
			w.t.(interface{ rebase([]byte) }).rebase(raw)
			continue
		}
		t.install(i, raw, nil)
	}
	t.whole, t.releaseWhole = whole, release
	t.pool = nil
	return whole
}

// rebase points a table at other bytes of the same content.
func (b *tableBase) rebase(raw []byte) { b.raw = raw }

// markDirty marks bytes [start, start+n) of the table changed (for code
// that changes the bytes Bytes returned in place), so that FlushFAT writes
// them. Call recount afterwards: the summary does not see such changes.
func (t *fatCache) markDirty(start, n int64) {
	for off := start; off < start+n; {
		i := int(off / t.winBytes)
		w := t.win(i)
		base := t.winOffset(i)
		end := min(start+n, base+int64(len(w.raw)))
		w.t.(interface{ markDirty(start, n int64) }).markDirty(off-base, end-off)
		if !w.isDirty {
			w.isDirty = true
			t.dirty = append(t.dirty, w)
		}
		off = end
	}
}

// put overwrites bytes [off, off+len(b)) of the table, which lie in one
// window, and marks them changed. Call recount afterwards: the summary
// does not see such changes.
func (t *fatCache) put(off int64, b []byte) {
	i := int(off / t.winBytes)
	w := t.win(i)
	copy(w.raw[off-t.winOffset(i):], b)
	t.markDirty(off, int64(len(b)))
}

// recount forgets the summary and the clusters found in use although
// free, to be worked out again from the table as it is (after markDirty).
func (t *fatCache) recount() {
	t.sum = summary{}
	t.inUse = nil
}

// DirtyRanges returns the changed byte ranges of the whole table, widened
// to multiples of align.
func (t *fatCache) DirtyRanges(align int) [][2]int64 {
	var out [][2]int64
	for _, w := range t.sortedDirty() {
		base := t.winOffset(w.idx)
		for _, r := range w.t.DirtyRanges(align) {
			out = append(out, [2]int64{base + r[0], base + r[1]})
		}
	}
	return mergeRanges(out, 1, t.l.FATSize)
}

// ClearDirty forgets the changes (they are on disk).
func (t *fatCache) ClearDirty() {
	for _, w := range t.dirty {
		w.t.ClearDirty()
		w.isDirty = false
	}
	t.dirty = t.dirty[:0]
}

func (t *fatCache) sortedDirty() []*fatWin {
	slices.SortFunc(t.dirty, func(a, b *fatWin) int { return a.idx - b.idx })
	return t.dirty
}

// flush writes the changed sectors to every FAT copy, all in one batch,
// and forgets the changes.
func (t *fatCache) flush() (bool, error) {
	if t.err != nil {
		return false, t.err
	}
	if len(t.dirty) == 0 {
		return false, nil
	}
	ss := int(t.l.SectorSize)
	b := t.dev.NewBatch()
	// The windows' bytes are queued without a copy: nothing changes them
	// before the batch's flush below (a 1 GiB file's FAT32 chain is 1 MiB
	// a copy, and copying it into the batch was half of the CPU fcp spent
	// past the system calls).
	for _, w := range t.sortedDirty() {
		base := t.winOffset(w.idx)
		for _, r := range w.t.DirtyRanges(ss) {
			for i := 0; i < t.l.NumFATs; i++ {
				if err := b.WriteShared(t.l.FATCopyOffset(i)+base+r[0], w.raw[r[0]:r[1]]); err != nil {
					return true, fmt.Errorf("fat: writing FAT %d: %w", i+1, err)
				}
			}
		}
	}
	if err := b.Flush(); err != nil {
		return true, fmt.Errorf("fat: writing FATs: %w", err)
	}
	t.ClearDirty()
	return true, nil
}

// release gives the memory back.
func (t *fatCache) release() {
	if t.releaseWhole != nil {
		t.releaseWhole()
		t.releaseWhole = nil
	}
	t.whole, t.wins, t.pool, t.dirty, t.last = nil, nil, nil, nil, nil
	t.lru.Init()
}

// ScanFAT streams FAT copy k (0 is FAT 1, as the volume holds it: with the
// changes not yet written; 1.. are read from the disk as they are) in
// order, a chunk of windows at a time: fn gets the number of the first
// entry of a run of entries and their values (FAT32: the low 28 bits),
// entries 0 and 1 included, and may stop the scan by returning an error,
// which ScanFAT returns. vals is reused after fn returns. Memory is bounded
// (a chunk of 1 MiB and its entries) whatever the FAT's size: a checker
// builds per-cluster state from it in one pass instead of holding the
// table (see Table for random access, which reads windows on demand).
func (v *Volume) ScanFAT(k int, fn func(first Cluster, vals []uint32) error) error {
	if k < 0 || k >= v.layout.NumFATs {
		return fmt.Errorf("fat: no FAT %d (the volume has %d)", k+1, v.layout.NumFATs)
	}
	t := v.table
	return t.scan(k, func(w0 int, vals [][]uint32) error {
		for i, vs := range vals {
			if err := fn(t.winFirst(w0+i), vs); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadFAT reads len(p) raw bytes of FAT copy k (0 is FAT 1) at byte off of
// the table, from the disk (changes not yet written are not in them): for
// comparing copies window by window.
func (v *Volume) ReadFAT(k int, p []byte, off int64) error {
	if k < 0 || k >= v.layout.NumFATs {
		return fmt.Errorf("fat: no FAT %d (the volume has %d)", k+1, v.layout.NumFATs)
	}
	if off < 0 || off+int64(len(p)) > v.layout.FATSize {
		return fmt.Errorf("fat: bytes %d-%d are outside the %d bytes of a FAT", off, off+int64(len(p)), v.layout.FATSize)
	}
	base := v.layout.FATCopyOffset(k)
	if _, err := v.dev.ReadAt(p, base+off); err != nil {
		return fmt.Errorf("fat: reading FAT %d at byte %d: %w", k+1, base+off, err)
	}
	return nil
}

// newFATCopyCache makes a read-only windowed table of FAT copy k (0 is
// FAT 1 as on the disk) of the volume laid out as l on dev: what a checker
// follows when a copy differs from FAT 1, in the same bounded memory.
func newFATCopyCache(dev *fio.Device, l *Layout, k int) (*fatCache, error) {
	lk := *l
	lk.FATOffset = l.FATCopyOffset(k)
	return newFATCache(dev, &lk)
}

// checkCopies compares window w, as FAT 1 holds it, with the same bytes of
// every other FAT copy, before a writer changes it: a change goes to every
// copy, so where the copies disagree (a damaged FAT 1 whose sound copy
// fverify --repair would restore from, or an older FAT 2 left by a power
// cut) writing would copy FAT 1 over the one that may be right, and an
// allocation could hand out clusters the other copy gives a file. The
// writer refuses instead, before its data goes out; the check costs one
// read of the window per copy, once per window and commit.
func (t *fatCache) checkCopies(w *fatWin) error {
	if len(t.guardBuf) < len(w.raw) {
		t.guardBuf = t.dev.AlignedBuffer(int(t.winBytes))
	}
	b := t.guardBuf[:len(w.raw)]
	for k := 1; k < t.l.NumFATs; k++ {
		off := t.l.FATCopyOffset(k) + t.winOffset(w.idx)
		if _, err := t.dev.ReadAt(b, off); err != nil {
			return fmt.Errorf("fat: reading FAT %d at byte %d: %w", k+1, off, err)
		}
		if i := firstDiff(b, w.raw); i >= 0 {
			at := t.winOffset(w.idx) + int64(i)
			return fmt.Errorf("%w: FAT %d differs from FAT 1 at byte %d of the FATs (byte %d of the volume), where this change would write: writing would copy FAT 1 over it %s",
				ErrCorrupt, k+1, at, off+int64(i), fsutil.DamageHint)
		}
	}
	// Every change from here on goes to every copy: they stay equal.
	w.agreed = true
	return nil
}

// guardFree checks, before an entry stops naming exts, that the FAT
// copies agree where freeing them will write (checkCopies), so that a
// removal refused for it changes nothing.
func (v *Volume) guardFree(exts []Extent) error {
	t := v.table
	if !t.guard {
		return nil
	}
	for _, e := range exts {
		if e.Len == 0 || !t.inRange(e.Start) || !t.inRange(e.End()-1) {
			continue
		}
		for i := t.winOf(e.Start); i <= t.winOf(e.End()-1); i++ {
			if w := t.win(i); !w.agreed {
				if err := t.checkCopies(w); err != nil {
					return err
				}
			}
		}
	}
	return t.Err()
}
