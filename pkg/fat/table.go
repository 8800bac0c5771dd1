package fat

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ftools/ftools/pkg/internal/bounds"
)

// Table is one copy of the file allocation table, decoded in place: it
// reads and writes the raw bytes it was made from and records which byte
// ranges Set touched, so that only those need to reach the disk.
type Table interface {
	// Type is the FAT width.
	Type() Type
	// Entries is the number of addressable entries, clusters + 2.
	Entries() uint32
	// Get returns entry c (FAT32: its low 28 bits). An out-of-range c is
	// the caller's bug and returns the bad-cluster mark.
	Get(c Cluster) Cluster
	// Set stores v in entry c. FAT32 keeps the high 4 bits of the old
	// entry; FAT12 packs two entries in three bytes. Out of range c is
	// ignored.
	Set(c Cluster, v Cluster)
	// IsFree reports whether entry value v marks a free cluster.
	IsFree(v Cluster) bool
	// IsEOC reports whether v marks the end of a chain.
	IsEOC(v Cluster) bool
	// IsBad reports whether v marks a bad cluster.
	IsBad(v Cluster) bool
	// EOC is the value written to end a chain (0x0FFF, 0xFFFF, 0x0FFFFFFF).
	EOC() Cluster
	// Bytes is the raw table (one copy).
	Bytes() []byte
	// DirtyRanges returns the merged [start,end) byte ranges touched by Set
	// since ClearDirty, widened to multiples of align (the sector size)
	// and clipped to len(Bytes()).
	DirtyRanges(align int) [][2]int64
	// ClearDirty forgets the touched ranges.
	ClearDirty()
}

// NewTable wraps raw, one FAT copy, as a Table for a volume of type t with
// the given number of data clusters. raw is used in place, not copied. It
// is an error (wrapping ErrCorrupt) if raw is too short for clusters + 2
// entries.
func NewTable(t Type, raw []byte, clusters uint32) (Table, error) {
	if !t.valid() {
		return nil, fmt.Errorf("fat: NewTable: unknown FAT type %d", int(t))
	}
	limit := uint32(MaxClusters32)
	switch t {
	case FAT12:
		limit = MinClusters16 - 1
	case FAT16:
		limit = MinClusters32 - 1
	}
	if clusters > limit {
		return nil, &FormatError{Structure: "FAT", Field: "clusters", Offset: -1, Value: clusters,
			Msg: fmt.Sprintf("%s addresses at most %d", t, limit), Err: ErrCorrupt}
	}
	if need := fatBytes(t, clusters); int64(len(raw)) < need {
		return nil, &FormatError{Structure: "FAT", Field: "size", Offset: -1, Value: len(raw),
			Msg: fmt.Sprintf("%d clusters need %d bytes", clusters, need), Err: ErrCorrupt}
	}
	base := tableBase{raw: raw, entries: clusters + 2}
	switch t {
	case FAT12:
		return &table12{base}, nil
	case FAT16:
		return &table16{base}, nil
	}
	return &table32{base}, nil
}

// Entry values the three widths share in shape.
const (
	bad12, eoc12 = 0xFF7, 0xFFF
	bad16, eoc16 = 0xFFF7, 0xFFFF
	bad32, eoc32 = 0x0FFFFFF7, 0x0FFFFFFF
	mask32       = 0x0FFFFFFF
)

// tableBase holds what all widths share: the bytes, the entry count and the
// touched ranges.
type tableBase struct {
	raw     []byte
	entries uint32
	dirty   [][2]int64 // touched ranges in Set order, merged with their predecessor when adjacent
	compact int        // len(dirty) after the last compaction
}

func (t *tableBase) Entries() uint32          { return t.entries }
func (t *tableBase) Bytes() []byte            { return t.raw }
func (t *tableBase) IsFree(v Cluster) bool    { return v == 0 }
func (t *tableBase) ClearDirty()              { t.dirty, t.compact = t.dirty[:0], 0 }
func (t *tableBase) inRange(c Cluster) bool   { return uint32(c) < t.entries }
func (t *tableBase) markDirty(start, n int64) { t.touch(start, start+n) }

// touch records [s,e). Allocation writes neighbouring entries one after
// another, so extending the last range keeps the list short; when random
// writes make it grow, it is sorted and merged in place.
func (t *tableBase) touch(s, e int64) {
	if n := len(t.dirty); n > 0 {
		last := &t.dirty[n-1]
		if s <= last[1] && e >= last[0] {
			last[0], last[1] = min(last[0], s), max(last[1], e)
			return
		}
	}
	t.dirty = append(t.dirty, [2]int64{s, e})
	if len(t.dirty) > 2*t.compact+1024 {
		t.dirty = mergeRanges(t.dirty, 1, int64(len(t.raw)))
		t.compact = len(t.dirty)
	}
}

func (t *tableBase) DirtyRanges(align int) [][2]int64 {
	if align < 1 {
		align = 1
	}
	return mergeRanges(slices.Clone(t.dirty), int64(align), int64(len(t.raw)))
}

// mergeRanges widens every range to multiples of align, clips it to limit,
// sorts and merges overlapping or touching ranges, reusing r's storage.
func mergeRanges(r [][2]int64, align, limit int64) [][2]int64 {
	for i := range r {
		r[i][0] = r[i][0] / align * align
		r[i][1] = min((r[i][1]+align-1)/align*align, limit)
	}
	slices.SortFunc(r, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	out := r[:0]
	for _, x := range r {
		if x[0] >= x[1] {
			continue
		}
		if n := len(out); n > 0 && x[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

// table12 packs entry c into the 12 bits at byte c*3/2: the low 12 bits of
// the 16-bit word there for even c, the high 12 bits for odd c.
type table12 struct{ tableBase }

func (t *table12) Type() Type           { return FAT12 }
func (t *table12) EOC() Cluster         { return eoc12 }
func (t *table12) IsEOC(v Cluster) bool { return v >= 0xFF8 && v <= eoc12 }
func (t *table12) IsBad(v Cluster) bool { return v == bad12 }
func (t *table12) Get(c Cluster) Cluster {
	if !t.inRange(c) {
		return bad12
	}
	off := int(c) + int(c)/2
	w := binary.LittleEndian.Uint16(t.raw[off:])
	if c&1 == 1 {
		return Cluster(w >> 4)
	}
	return Cluster(w & 0xFFF)
}

func (t *table12) Set(c Cluster, v Cluster) {
	if !t.inRange(c) {
		return
	}
	off := int(c) + int(c)/2
	w := binary.LittleEndian.Uint16(t.raw[off:])
	if c&1 == 1 {
		w = w&0x000F | uint16(v&0xFFF)<<4
	} else {
		w = w&0xF000 | uint16(v&0xFFF)
	}
	binary.LittleEndian.PutUint16(t.raw[off:], w)
	t.markDirty(int64(off), 2)
}

type table16 struct{ tableBase }

func (t *table16) Type() Type           { return FAT16 }
func (t *table16) EOC() Cluster         { return eoc16 }
func (t *table16) IsEOC(v Cluster) bool { return v >= 0xFFF8 && v <= eoc16 }
func (t *table16) IsBad(v Cluster) bool { return v == bad16 }
func (t *table16) Get(c Cluster) Cluster {
	if !t.inRange(c) {
		return bad16
	}
	return Cluster(binary.LittleEndian.Uint16(t.raw[2*int64(c):]))
}

func (t *table16) Set(c Cluster, v Cluster) {
	if !t.inRange(c) {
		return
	}
	binary.LittleEndian.PutUint16(t.raw[2*int64(c):], uint16(v))
	t.markDirty(2*int64(c), 2)
}

// table32 uses the low 28 bits of each 32-bit entry; the high 4 are
// reserved and kept as found.
type table32 struct{ tableBase }

func (t *table32) Type() Type           { return FAT32 }
func (t *table32) EOC() Cluster         { return eoc32 }
func (t *table32) IsEOC(v Cluster) bool { v &= mask32; return v >= 0x0FFFFFF8 }
func (t *table32) IsBad(v Cluster) bool { return v&mask32 == bad32 }
func (t *table32) IsFree(v Cluster) bool {
	return v&mask32 == 0
}
func (t *table32) Get(c Cluster) Cluster {
	if !t.inRange(c) {
		return bad32
	}
	return Cluster(binary.LittleEndian.Uint32(t.raw[4*int64(c):]) & mask32)
}

func (t *table32) Set(c Cluster, v Cluster) {
	if !t.inRange(c) {
		return
	}
	p := t.raw[4*int64(c):]
	old := binary.LittleEndian.Uint32(p)
	binary.LittleEndian.PutUint32(p, old&^mask32|uint32(v)&mask32)
	t.markDirty(4*int64(c), 4)
}

// CountFree counts the free data clusters (entries 2 .. Entries()-1).
func CountFree(t Table) uint32 {
	free, _, _ := clusterCounts(t, nil)
	return free
}

// clusterCounts counts the free and bad data clusters of t and, when owner
// (one element per entry) is not nil, the others that owner leaves
// unclaimed (0). FAT16 and FAT32 entries are read straight from the bytes:
// on a large volume this loop costs more than walking every chain.
func clusterCounts(t Table, owner []uint32) (free, bad, unclaimed uint32) {
	n := t.Entries()
	claimed := func(c uint32) bool { return owner == nil || owner[c] != 0 }
	le := binary.LittleEndian
	switch tb := t.(type) {
	case *table32:
		raw := tb.raw[:4*int64(n)]
		for c := uint32(FirstCluster); c < n; c++ {
			switch v := le.Uint32(raw[4*c:]) & mask32; {
			case v == 0:
				free++
			case v == bad32:
				bad++
			case !claimed(c):
				unclaimed++
			}
		}
	case *table16:
		raw := tb.raw[:2*int64(n)]
		for c := uint32(FirstCluster); c < n; c++ {
			switch v := le.Uint16(raw[2*c:]); {
			case v == 0:
				free++
			case v == bad16:
				bad++
			case !claimed(c):
				unclaimed++
			}
		}
	default:
		for c := FirstCluster; uint32(c) < n; c++ {
			switch v := t.Get(c); {
			case t.IsFree(v):
				free++
			case t.IsBad(v):
				bad++
			case !claimed(uint32(c)):
				unclaimed++
			}
		}
	}
	return free, bad, unclaimed
}

// FirstFree returns the first free cluster at or after from, wrapping
// around to cluster 2; false if there is none. A from outside the data
// clusters starts at 2.
func FirstFree(t Table, from Cluster) (Cluster, bool) {
	n := Cluster(t.Entries())
	if from < FirstCluster || from >= n {
		from = FirstCluster
	}
	for c := from; c < n; c++ {
		if t.IsFree(t.Get(c)) {
			return c, true
		}
	}
	for c := FirstCluster; c < from; c++ {
		if t.IsFree(t.Get(c)) {
			return c, true
		}
	}
	return 0, false
}

// Chain follows the chain that starts at start and returns its clusters in
// order. It stops with an error wrapping ErrCorrupt (a *FormatError naming
// the cluster whose entry is wrong and that entry's byte offset in the FAT)
// on a link to a free, bad, reserved or nonexistent cluster, or on a loop.
// It never takes more than Entries() steps, and it finds loops with Brent's
// method, so a looping chain costs memory in proportion to its true length.
func Chain(t Table, start Cluster) ([]Cluster, error) {
	var out []Cluster
	err := followChain(t, start, func(c Cluster) { out = append(out, c) })
	return out, err
}

// ChainExtents is Chain returning the chain as runs of consecutive
// clusters: a contiguous file of any size is one Extent, so memory grows
// with the file's fragments, not its clusters.
func ChainExtents(t Table, start Cluster) ([]Extent, error) {
	var out []Extent
	err := followChain(t, start, func(c Cluster) {
		if n := len(out); n > 0 && out[n-1].End() == c {
			out[n-1].Len++
			return
		}
		out = append(out, Extent{c, 1})
	})
	return out, err
}

// followChain walks the chain at start as Chain describes, calling visit
// for each cluster in order.
func followChain(t Table, start Cluster, visit func(Cluster)) error {
	last := Cluster(t.Entries() - 1)
	entryOff := func(c Cluster) int64 {
		switch t.Type() {
		case FAT12:
			return int64(c) + int64(c)/2
		case FAT16:
			return 2 * int64(c)
		}
		return 4 * int64(c)
	}
	fail := func(c Cluster, msg string) error {
		return &FormatError{Structure: "FAT", Field: fmt.Sprintf("cluster %d", c), Offset: entryOff(c),
			Msg: msg + fmt.Sprintf(" (chain starting at cluster %d)", start), Err: ErrCorrupt}
	}
	if start < FirstCluster || start > last {
		return &FormatError{Structure: "FAT", Field: "chain start", Offset: -1, Value: start,
			Msg: fmt.Sprintf("not a data cluster (2..%d)", last), Err: ErrCorrupt}
	}
	// At most Entries() clusters, and a loop found by Brent's method
	// (bounds.Walk), whatever the table holds.
	w := bounds.NewWalk(uint64(t.Entries()))
	w.Step(uint32(start))
	for c := start; ; {
		visit(c)
		v := t.Get(c)
		if e, ok := t.(interface{ Err() error }); ok && e.Err() != nil {
			return e.Err()
		}
		switch {
		case t.IsEOC(v):
			return nil
		case t.IsFree(v):
			return fail(c, "links to a free cluster")
		case t.IsBad(v):
			return fail(c, "links to a cluster marked bad")
		case v < FirstCluster || v > last:
			return fail(c, fmt.Sprintf("links to cluster %d, outside 2..%d", v, last))
		}
		switch w.Step(uint32(v)) {
		case bounds.Loop:
			return fail(c, fmt.Sprintf("links back to cluster %d: the chain loops", v))
		case bounds.Limit:
			return fail(c, fmt.Sprintf("chain longer than the %d FAT entries", t.Entries()))
		}
		c = v
	}
}
