package fat

import (
	"slices"
	"sync"
)

// planTable is the FAT a repair plan makes: the table the check followed
// (base) with the planned entries on top. Only the entries the plan
// changes are held, so planning a fix costs memory in proportion to the
// fix, not to the FAT (which base reads in windows). Entries planned free
// (lost chains freed, the bulk of a large repair) are one bit each: a
// 2 TiB FAT32 whose every cluster is freed costs 8 MiB, not a map of 64
// million entries.
type planTable struct {
	base    Table
	mask    Cluster             // the bits of an entry Get returns
	changes map[Cluster]Cluster // planned entries but those planned free
	freed   bitmap              // entries planned free (made on first use)
	nfreed  int                 // how many

	whole        []byte // Bytes: the whole planned table, once asked for
	releaseWhole func()
	sorted       []Cluster // the changed entries in order, for scans (nil when stale)
}

func newPlanTable(base Table) *planTable {
	mask := Cluster(mask32)
	switch base.Type() {
	case FAT12:
		mask = 0xFFF
	case FAT16:
		mask = 0xFFFF
	}
	return &planTable{base: base, mask: mask, changes: map[Cluster]Cluster{}}
}

func (t *planTable) Type() Type            { return t.base.Type() }
func (t *planTable) Entries() uint32       { return t.base.Entries() }
func (t *planTable) IsFree(v Cluster) bool { return t.base.IsFree(v) }
func (t *planTable) IsEOC(v Cluster) bool  { return t.base.IsEOC(v) }
func (t *planTable) IsBad(v Cluster) bool  { return t.base.IsBad(v) }
func (t *planTable) EOC() Cluster          { return t.base.EOC() }

func (t *planTable) Get(c Cluster) Cluster {
	if v, ok := t.changes[c]; ok {
		return v
	}
	if t.nfreed > 0 && t.freed.has(c) {
		return 0
	}
	return t.base.Get(c)
}

// Set plans entry c to hold v (as Table.Set stores it: FAT32 keeps the
// base entry's high 4 bits, which Bytes carries over).
func (t *planTable) Set(c Cluster, v Cluster) {
	if uint32(c) >= t.Entries() {
		return
	}
	_, had := t.changes[c]
	if v&t.mask == 0 {
		if had {
			delete(t.changes, c)
			t.sorted = nil
		}
		if t.freed.bits == nil {
			t.freed = newBitmap(t.Entries())
		}
		if !t.freed.has(c) {
			t.freed.set(c)
			t.nfreed++
		}
	} else {
		if t.nfreed > 0 && t.freed.has(c) {
			t.freed.unset(c)
			t.nfreed--
		}
		if !had {
			t.sorted = nil
		}
		t.changes[c] = v & t.mask
	}
	if t.whole != nil {
		t.wholeTable().Set(c, v)
	}
}

// Bytes builds the whole planned table in memory (once): the base's bytes
// with the planned entries set in them, as the repair writes it.
func (t *planTable) Bytes() []byte {
	if t.whole != nil {
		return t.whole
	}
	b := t.base.Bytes()
	whole, release := bigAlloc(int64(len(b)))
	copy(whole, b)
	t.whole, t.releaseWhole = whole, sync.OnceFunc(release)
	tb := t.wholeTable()
	t.each(0, Cluster(t.Entries()), tb.Set)
	return t.whole
}

func (t *planTable) wholeTable() Table {
	tb, err := NewTable(t.Type(), t.whole, t.Entries()-2)
	if err != nil {
		panic(err) // the same size and type as the base, which exists
	}
	return tb
}

// release gives back the bytes Bytes built and the bits of the entries
// planned free: the table must not be used afterwards.
func (t *planTable) release() {
	t.freed.free()
	t.nfreed = 0
	if t.releaseWhole != nil {
		t.releaseWhole()
		t.releaseWhole, t.whole = nil, nil
	}
}

// The plan's table is written through syncFAT, never through its dirty
// ranges.
func (t *planTable) DirtyRanges(int) [][2]int64 { return nil }
func (t *planTable) ClearDirty()                {}

// scan streams the planned table as scanTable does: the base's entries
// with the planned ones in their place.
func (t *planTable) scan(fn func(first Cluster, vals []uint32)) {
	scanTable(t.base, func(first Cluster, vals []uint32) {
		t.each(first, first+Cluster(len(vals)), func(c, v Cluster) {
			vals[c-first] = uint32(v)
		})
		fn(first, vals)
	})
}

// each calls fn with every planned entry from entry lo up to (not
// including) hi: those planned free after the others.
func (t *planTable) each(lo, hi Cluster, fn func(c, v Cluster)) {
	if t.sorted == nil {
		t.sorted = slices.Sorted(func(yield func(Cluster) bool) {
			for c := range t.changes {
				if !yield(c) {
					return
				}
			}
		})
	}
	i, _ := slices.BinarySearch(t.sorted, lo)
	for ; i < len(t.sorted) && t.sorted[i] < hi; i++ {
		fn(t.sorted[i], t.changes[t.sorted[i]])
	}
	if t.nfreed > 0 {
		t.freed.eachIn(lo, hi, func(c Cluster) bool {
			fn(c, 0)
			return true
		})
	}
}
