package exfat

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"

	"github.com/ftools/ftools/pkg/internal/dircache"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// dir is a directory loaded whole into memory: its entries, its records by
// up-cased name, and where its free entries are, so that adding a name
// costs O(1) amortized however many the directory holds.
type dir struct {
	v      *Volume
	first  Cluster
	parent *dir    // nil for the root
	rec    *Record // the parent's record naming this directory; nil for the root
	exts   []Extent
	noFAT  bool // the clusters are one run the FAT does not describe
	raw    []byte
	recs   []*Record // in slot order; removed ones are nil
	byName nameIndex
	sys    []sysEntry // root only
	dirty  map[int]struct{}
	end    int // index of the end-of-directory entry (len(raw)/32 if none)
	hint   int // no free run starts before this entry
	// fit[n]: no run of n free entries that an entry set may take
	// (findFreeSlots) starts before this entry. The runs a set skips to
	// stay within a sector (the last entry of each sector, for sets of
	// three) lie before it: without it each new set would scan the
	// directory again from the first such hole.
	fit  [maxSetEntries + 1]int
	walk uint64

	// The cache (dircache.go): its place and charge, what pins it, and
	// whether it pins its parent.
	node       dircache.Node
	pinsParent bool
	// hidden says why the directory lists fewer members than it holds
	// (entry sets that do not decode, a second member of one name), nil
	// when it lists them all. Readers that list it or miss a name in it
	// say so; writers add no name to it.
	hidden error
}

// openRoot reads the root directory and, from its entries, the up-case
// table and the allocation bitmap.
func (v *Volume) openRoot() error {
	l := v.layout
	exts, err := v.fat.chainAll(l, l.RootCluster, maxRootClusters(l))
	if err != nil {
		return fmt.Errorf("exfat: root directory at cluster %d: %w", l.RootCluster, err)
	}
	raw, err := v.readExtents(exts, extentsClusters(exts)*l.ClusterSize)
	if err != nil {
		return fmt.Errorf("exfat: reading the root directory: %w", err)
	}
	// The up-case table decides how names compare, so it is read before
	// the root's entry sets are indexed.
	pre := parseDir(raw, DefaultUpcase(), true)
	for _, s := range pre.sys {
		switch s.typ() {
		case TypeUpcase:
			if v.upcaseEnt.Type == 0 {
				v.upcaseEnt = DecodeAllocEntry(s.raw)
			}
		case TypeBitmap:
			e := DecodeAllocEntry(s.raw)
			if v.bitmapEnt.Type == 0 && int(e.Flags&1) == l.ActiveFAT {
				v.bitmapEnt = e
			}
		}
	}
	v.loadUpcase()
	if err := v.loadBitmap(); err != nil {
		if v.writable {
			return err
		}
		v.warnings = append(v.warnings, err.Error())
	}
	d := &dir{v: v, first: l.RootCluster, exts: exts}
	d.index(raw, v.up)
	v.cacheDir(d)
	d.node.Pin() // the root is never dropped
	return nil
}

// loadUpcase reads the up-case table named by the root; a missing or
// damaged one is replaced by the recommended table, with a warning.
func (v *Volume) loadUpcase() {
	v.up = DefaultUpcase()
	e := v.upcaseEnt
	if e.Type == 0 {
		v.warnings = append(v.warnings, "the root directory has no up-case table entry; using the recommended table")
		return
	}
	raw, err := v.readSystemFile("up-case table", e, maxUpcaseBytes)
	if err == nil {
		var u *Upcase
		if u, err = DecodeUpcase(raw); err == nil {
			v.up = u
			if sum := UpcaseChecksum(raw); sum != e.Checksum {
				v.warnings = append(v.warnings, fmt.Sprintf("the up-case table's checksum is %#08x but its entry says %#08x", sum, e.Checksum))
			}
			return
		}
	}
	v.warnings = append(v.warnings, fmt.Sprintf("%v; using the recommended up-case table", err))
}

// loadBitmap reads the allocation bitmap named by the root.
func (v *Volume) loadBitmap() error {
	e := v.bitmapEnt
	if e.Type == 0 {
		return fmt.Errorf("%w: the root directory has no allocation bitmap entry", ErrCorrupt)
	}
	need := v.layout.BitmapBytes()
	if e.DataLength < uint64(need) {
		return corruptf("allocation bitmap entry", "data length", -1, e.DataLength, "is below the %d bytes %d clusters need", need, v.layout.Clusters)
	}
	e.DataLength = uint64(need)
	raw, err := v.readSystemFile("allocation bitmap", e, need)
	if err != nil {
		return err
	}
	n, _ := v.layout.lengthClusters(uint64(need))
	exts, _ := v.fat.chainN(v.layout, e.FirstCluster, n)
	v.bitmap = newBitmap(raw, v.layout.Clusters, exts)
	return nil
}

// readSystemFile reads a FAT-chained file of the root (bitmap or up-case
// table) of at most limit bytes.
func (v *Volume) readSystemFile(what string, e AllocEntry, limit int64) ([]byte, error) {
	l := v.layout
	n, ok := l.lengthClusters(e.DataLength)
	if e.DataLength == 0 || e.DataLength > uint64(limit) || !ok {
		return nil, corruptf(what+" entry", "data length", -1, e.DataLength, "out of range 1..%d", min(uint64(limit), l.HeapBytes()))
	}
	exts, err := v.fat.chainN(l, e.FirstCluster, n)
	if err != nil {
		return nil, fmt.Errorf("exfat: %s at cluster %d: %w", what, e.FirstCluster, err)
	}
	return v.readExtents(exts, int64(e.DataLength))
}

// readExtents reads the first n bytes of the clusters exts, one request
// per run.
func (v *Volume) readExtents(exts []Extent, n int64) ([]byte, error) {
	if err := v.flushData(); err != nil {
		return nil, err
	}
	l := v.layout
	buf := make([]byte, n)
	pos := int64(0)
	for _, e := range exts {
		if pos >= n {
			break
		}
		k := min(int64(e.Len)*l.ClusterSize, n-pos)
		if _, err := v.dev.ReadAt(buf[pos:pos+k], l.ClusterOffset(e.Start)); err != nil {
			return nil, err
		}
		pos += k
	}
	return buf, nil
}

// index parses raw into d's records.
func (d *dir) index(raw []byte, up *Upcase) {
	pd := parseDir(raw, up, d.rec == nil)
	d.raw, d.recs, d.byName, d.sys, d.end = raw, pd.recs, pd.byName, pd.sys, pd.end
	d.dirty = map[int]struct{}{}
	d.locate(pd.recs)
	d.hidden = nil
	for _, p := range pd.probs {
		switch p.Kind {
		case KindSetChecksum, KindEntrySet, KindDuplicate, KindDirEntry:
			// A member it may be: not listed, so not to be named again.
			d.hidden = fmt.Errorf("%w: the directory holds damaged entries at byte %d of it, not listed (%v) %s", ErrCorrupt, p.Slot*EntrySize, trimPrefix(p.Err), fsutil.DamageHint)
		}
		if d.hidden != nil {
			break
		}
	}
}

// locate records where each of recs (in slot order) lies on the volume,
// for errors that name it.
func (d *dir) locate(recs []*Record) {
	l := d.v.layout
	i, base := 0, int64(0) // d.exts[i] holds the directory's bytes from base
	for _, r := range recs {
		pos := int64(r.Slot) * EntrySize
		for i < len(d.exts) && pos >= base+int64(d.exts[i].Len)*l.ClusterSize {
			base += int64(d.exts[i].Len) * l.ClusterSize
			i++
		}
		if i < len(d.exts) {
			r.at = l.ClusterOffset(d.exts[i].Start) + pos - base
		}
	}
}

// fileExtents returns the clusters of a file or directory by its stream
// extension: one run when NoFatChain, else its FAT chain, which must hold
// the DataLength.
func (v *Volume) fileExtents(s *StreamEntry) ([]Extent, error) { return v.streamExtents(s, -1) }

// recordExtents is fileExtents for a member of a loaded directory: an
// error names where its DataLength lies on the volume.
func (v *Volume) recordExtents(r *Record) ([]Extent, error) {
	return v.streamExtents(&r.Set.Stream, r.streamAt())
}

// streamExtents is fileExtents for the stream extension at byte off of the
// volume (-1 if not known).
func (v *Volume) streamExtents(s *StreamEntry, off int64) ([]Extent, error) {
	l := v.layout
	if s.DataLength == 0 {
		return nil, nil
	}
	n, ok := l.lengthClusters(s.DataLength)
	if !ok {
		// Checked before the chain is walked or a buffer sized from it.
		return nil, corruptf("stream extension", "DataLength", fieldAt(off, offDataLength), s.DataLength, "exceeds the cluster heap (%d bytes)", l.HeapBytes())
	}
	if s.NoFATChain() {
		if !l.ValidCluster(s.FirstCluster) || n > uint64(l.MaxCluster()-s.FirstCluster)+1 {
			return nil, corruptf("stream extension", "first cluster", fieldAt(off, offFirstCluster), s.FirstCluster, "and data length %d leave the heap (2..%d)", s.DataLength, l.MaxCluster())
		}
		return []Extent{{s.FirstCluster, uint32(n)}}, nil
	}
	return v.fat.chainN(l, s.FirstCluster, n)
}

// loadDir returns the directory record r names, reading it on first use.
func (v *Volume) loadDir(parent *dir, r *Record) (*dir, error) {
	if d, ok := v.dirs[r.Set.Stream.FirstCluster]; ok {
		switch {
		case d.rec == r:
			v.dircache.Touch(&d.node)
			return d, nil
		case d.rec == nil || d.walk == v.walks:
			// The root's clusters, or those of a directory on the path
			// being walked: a loop in a damaged image. Loading it again
			// would replace the directory the walk stands in.
			return nil, errDirLoop
		}
	}
	l := v.layout
	s := &r.Set.Stream
	if s.DataLength == 0 || int64(s.DataLength)%l.ClusterSize != 0 || s.DataLength > maxDirBytes {
		return nil, corruptf("directory", "data length", -1, s.DataLength, "is not a positive multiple of the cluster size %d up to 256 MiB", l.ClusterSize)
	}
	exts, err := v.recordExtents(r)
	if err != nil {
		return nil, err
	}
	raw, err := v.readExtents(exts, int64(s.DataLength))
	if err != nil {
		return nil, fmt.Errorf("exfat: reading directory %q: %w", r.Name, err)
	}
	d := &dir{v: v, first: s.FirstCluster, parent: parent, rec: r, exts: exts, noFAT: s.NoFATChain()}
	d.index(raw, v.up)
	if old, ok := v.dirs[d.first]; ok {
		v.uncacheDir(old)
	}
	v.cacheDir(d)
	return d, nil
}

// maxRootClusters bounds the root directory's chain: 256 MiB, and never
// more clusters than the heap has, so that a looping chain cannot size a
// buffer larger than the volume.
func maxRootClusters(l *Layout) uint64 {
	return min(uint64(maxDirBytes/l.ClusterSize), uint64(l.Clusters))
}

// root returns the root directory.
func (v *Volume) root() *dir { return v.dirs[v.layout.RootCluster] }

// lookup finds a member by name, comparing up-cased names.
func (d *dir) lookup(name string) *Record {
	u, err := EncodeName(name)
	if err != nil {
		return nil
	}
	return d.byName.get(d.v.up, u)
}

// list returns the members in slot order.
func (d *dir) list() []*Record {
	out := make([]*Record, 0, len(d.recs))
	for _, r := range d.recs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// add stores a new member with entry set s (named name) and returns its
// record.
func (d *dir) add(name string, s EntrySet) (*Record, error) {
	if d.hidden != nil {
		return nil, d.hidden
	}
	u, err := EncodeName(name)
	if err != nil {
		return nil, err
	}
	if d.byName.get(d.v.up, u) != nil {
		return nil, fs.ErrExist
	}
	s.Name = u
	r := &Record{Name: name, Set: s}
	if err := d.place(r); err != nil {
		return nil, err
	}
	d.insertSorted(r)
	d.byName.add(d.v.up, r)
	return r, nil
}

// place writes r's encoded set into free entries, growing the directory
// when it has none.
func (d *dir) place(r *Record) error {
	b := r.Set.Encode(d.v.up)
	pos, err := d.put(b)
	if err != nil {
		return err
	}
	r.Slot, r.Slots = pos, len(b)/EntrySize
	return nil
}

// put stores entries b in the first run of free entries that holds them,
// growing the directory when it has none, and returns the first one's
// index.
func (d *dir) put(b []byte) (int, error) {
	n := len(b) / EntrySize
	pos := d.freeAt(n)
	for pos < 0 {
		if err := d.grow(); err != nil {
			return 0, err
		}
		pos = d.freeAt(n)
	}
	if n < len(d.fit) {
		d.fit[n] = pos + n // a run of n that started before pos+n would hold pos+n-1
	}
	copy(d.raw[pos*EntrySize:], b)
	d.markDirty(pos, n)
	if pos > d.end {
		// The set starts past the end marker (at a sector boundary, see
		// findFreeSlots): the entries before it would end the directory
		// there, or hold garbage. They become unused entries (a deleted
		// file entry's type, the rest zeroed). A cut that writes the set
		// but not them leaves the set unseen: its clusters lost, no harm.
		for i := d.end; i < pos; i++ {
			e := d.raw[i*EntrySize : (i+1)*EntrySize]
			clear(e)
			e[0] = TypeFile &^ typeInUse
		}
		d.markDirty(d.end, pos-d.end)
	}
	if pos+n > d.end {
		// Entries past the old end marker may hold garbage: keep an
		// explicit end marker right after the new entries.
		d.end = pos + n
		if d.end < len(d.raw)/EntrySize && d.raw[d.end*EntrySize] != TypeEndOfDirectory {
			clear(d.raw[d.end*EntrySize : (d.end+1)*EntrySize])
			d.markDirty(d.end, 1)
		}
	}
	if pos == d.hint {
		d.hint = pos + n
	}
	return pos, nil
}

// maxSetEntries is the most entries a set takes: File, Stream Extension
// and the File Name entries of a 255-unit name.
const maxSetEntries = 2 + (MaxNameLength+14)/15

// freeAt is where the first run of n free entries a set may take starts
// (findFreeSlots), from the hints on, or -1.
func (d *dir) freeAt(n int) int {
	from := d.hint
	if n < len(d.fit) {
		from = max(from, d.fit[n])
	}
	return findFreeSlots(d.raw, n, from, int(d.v.layout.SectorSize/EntrySize))
}

func (d *dir) insertSorted(r *Record) {
	i := sort.Search(len(d.recs), func(i int) bool { return d.recs[i] != nil && d.recs[i].Slot > r.Slot })
	d.recs = append(d.recs, nil)
	copy(d.recs[i+1:], d.recs[i:])
	d.recs[i] = r
}

// update rewrites r's entry set after its fields changed: in place when it
// takes as many entries as before, else moved to free entries.
func (d *dir) update(r *Record) error {
	b := r.Set.Encode(d.v.up)
	n := len(b) / EntrySize
	if n == r.Slots {
		copy(d.raw[r.Slot*EntrySize:], b)
		d.markDirty(r.Slot, n)
		return nil
	}
	d.clearSlots(r.Slot, r.Slots)
	d.removeRec(r)
	if err := d.place(r); err != nil {
		return err
	}
	d.insertSorted(r)
	return nil
}

// remove deletes r's entry set: its entries' InUse bits are cleared.
func (d *dir) remove(r *Record) {
	d.clearSlots(r.Slot, r.Slots)
	d.forget(r)
}

// forget drops r from the indexes without touching its entries.
func (d *dir) forget(r *Record) {
	d.removeRec(r)
	d.byName.remove(d.v.up, r)
}

func (d *dir) removeRec(r *Record) {
	for i, x := range d.recs {
		if x == r {
			d.recs[i] = nil
			break
		}
	}
}

// clearSlots marks n entries from slot unused.
func (d *dir) clearSlots(slot, n int) {
	for i := slot; i < slot+n; i++ {
		d.raw[i*EntrySize] = deletedType(d.raw[i*EntrySize])
	}
	d.markDirty(slot, n)
	if slot < d.hint {
		d.hint = slot
	}
	// A run that takes the freed entries starts at the first free entry
	// at the earliest.
	for k := range d.fit {
		d.fit[k] = min(d.fit[k], d.hint)
	}
}

// maxDirGrowth bounds how many clusters a directory grows by at once.
const maxDirGrowth = 32

// grow adds zeroed clusters to the directory: as many as it has (up to
// maxDirGrowth, within the 256 MiB limit and the free space), so that a
// directory taking thousands of names grows in a few runs. A directory
// whose clusters stay contiguous keeps NoFatChain; one that cannot is
// given a FAT chain. The zeros go out with the data, before the bitmap
// and the entries that make the clusters part of the directory.
func (d *dir) grow() error {
	v := d.v
	l := v.layout
	have := extentsClusters(d.exts)
	room := (maxDirBytes - int64(len(d.raw))) / l.ClusterSize
	if room < 1 {
		return fmt.Errorf("%w: an exFAT directory holds at most 256 MiB of entries", ErrDirFull)
	}
	n := min(have, maxDirGrowth, room, max(int64(v.bitmap.free), 1))
	last := d.exts[len(d.exts)-1].End() - 1
	exts, err := v.allocate(uint32(n), last)
	if err != nil {
		return err
	}
	zero := make([]byte, l.ClusterSize)
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			if err := v.writeData(l.ClusterOffset(c), zero); err != nil {
				v.release(exts) // not part of the directory yet
				return err
			}
		}
	}
	for _, e := range exts {
		d.exts = appendExtent(d.exts, e)
	}
	if d.noFAT && len(d.exts) > 1 {
		d.noFAT = false
		if err := v.fat.setChain(d.exts); err != nil {
			return err
		}
	} else if !d.noFAT {
		if err := v.fat.setChain(append([]Extent{{last, 1}}, exts...)); err != nil {
			return err
		}
	}
	// Grown in place of append(d.raw, make(...)...), which also made a
	// zeroed copy of the clusters added, as large as the directory was.
	k := len(d.raw)
	d.raw = slices.Grow(d.raw, int(n*l.ClusterSize))[:k+int(n*l.ClusterSize)]
	clear(d.raw[k:])
	v.dircache.Grew(&d.node, int(n*l.ClusterSize))
	if d.rec != nil {
		s := &d.rec.Set.Stream
		s.DataLength = uint64(len(d.raw))
		s.ValidDataLength = s.DataLength
		s.Flags = streamAllocOK
		if d.noFAT {
			s.Flags |= streamNoFATChain
		}
		if err := d.parent.update(d.rec); err != nil {
			return err
		}
	}
	return nil
}

func (d *dir) markDirty(slot, n int) {
	fsutil.MarkSectors(d.dirty, slot, n, int(d.v.layout.SectorSize)/EntrySize)
	d.v.dirtyDirs[d] = struct{}{}
}

// flush queues the dirty sectors into b, not copied: raw must not change
// until b is flushed.
func (d *dir) flush(b interface{ WriteShared(int64, []byte) error }) error {
	at := func(off int64) (int64, error) { return fileOffset(d.v.layout, d.exts, off) }
	write := func(dev int64, p []byte) error {
		if err := b.WriteShared(dev, p); err != nil {
			return fmt.Errorf("exfat: writing directory entries: %w", err)
		}
		return nil
	}
	return fsutil.FlushSectors(d.dirty, d.raw, d.v.layout.SectorSize, at, write)
}

// deferredClear is a rename's old entry set, deleted only once the new
// one is durable (see Volume.Commit).
type deferredClear struct {
	d          *dir
	slot, n    int
	firstBytes []byte // the type bytes expected, so a reused entry is never cleared
}

func (c deferredClear) apply() {
	for i := 0; i < c.n; i++ {
		if c.d.raw[(c.slot+i)*EntrySize] != c.firstBytes[i] {
			return
		}
	}
	c.d.clearSlots(c.slot, c.n)
}
