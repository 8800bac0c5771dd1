package fat

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/ftools/ftools/pkg/internal/dircache"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// maxRecordSlots is the most slots a record takes: 20 long-name slots and
// its short entry.
const maxRecordSlots = lfnMaxSlots + 1

// MaxDirEntries is the most 32-byte slots one directory may hold: FAT
// limits a directory to 2 MiB (65,536 entries).
const MaxDirEntries = 65536

// dir is a directory loaded whole into memory: its raw slots, its records
// by folded name, and the set of its short names, so that adding a name
// costs O(1) however many names share a prefix.
type dir struct {
	v      *Volume
	first  Cluster   // first cluster; 0 for the FAT12/16 fixed root
	chain  []Cluster // the directory's clusters (nil for the fixed root)
	raw    []byte
	recs   []*Record // in slot order
	byName nameIndex // by long and short name
	shorts *ShortNameSet
	dirty  map[int]struct{} // sectors of raw to write back
	end    int              // index of the end-marker slot (len(raw)/32 if none)
	hint   int              // no free slot lies before this slot
	// fit[n]: no run of n free slots that a record may take (one within a
	// sector, unless n is longer than one) starts before this slot. Each
	// record length has its own, so that holes too short for the names
	// being added (the slots a record skips to stay within a sector) are
	// passed over once, not on every insert.
	fit  [maxRecordSlots + 1]int
	walk uint64 // the last path lookup that went through it (lookupPath)
	// fresh: a new directory that was still empty at a commit; its next
	// write-back is of every sector (markDirty, writeSkips), so that new
	// directories side by side merge into one write.
	fresh bool

	// The cache (dircache.go): the charge for keeping it, what holds it
	// in memory (an open Writer's parent, changes waiting for a later
	// phase), and its place in least-recently-used order.
	node dircache.Node
}

// isRoot reports whether d is the volume's root directory.
func (d *dir) isRoot() bool {
	return d.first == 0 || d.first == d.v.layout.RootCluster && d.v.layout.Type == FAT32
}

// loadDir reads the directory whose first cluster is first (0: fixed root).
func (v *Volume) loadDir(first Cluster) (*dir, error) {
	if d, ok := v.dirs[first]; ok {
		v.touchDir(d)
		return d, nil
	}
	l := v.layout
	d := &dir{v: v, first: first, dirty: map[int]struct{}{}}
	if first == 0 {
		if l.Type == FAT32 {
			return nil, fmt.Errorf("%w: FAT32 has no fixed root directory", ErrCorrupt)
		}
		d.raw = make([]byte, l.RootDirSize)
		if _, err := v.dev.ReadAt(d.raw, l.RootDirOffset); err != nil {
			return nil, fmt.Errorf("fat: reading the root directory: %w", err)
		}
	} else {
		chain, err := Chain(v.table, first)
		if err != nil {
			return nil, damaged(fmt.Errorf("fat: directory at cluster %d: %w", first, err))
		}
		if int64(len(chain))*l.ClusterSize > MaxDirEntries*DirEntrySize {
			return nil, damaged(&FormatError{Structure: "directory", Field: "cluster chain", Offset: l.ClusterOffset(first), Value: len(chain),
				Msg: fmt.Sprintf("is longer than FAT's limit of %d entries", MaxDirEntries), Err: ErrCorrupt})
		}
		d.chain = chain
		d.raw = make([]byte, int64(len(chain))*l.ClusterSize)
		if err := v.readClusters(d.raw, chain); err != nil {
			return nil, fmt.Errorf("fat: reading the directory at cluster %d: %w", first, err)
		}
	}
	recs, _ := ParseDir(d.raw, l.Type)
	// Sized for the names it takes (a short name that is not the long
	// one is a second), not twice the records: the 60,000 short names
	// of one folder would reserve room for 120,000.
	names := 0
	for i := range recs {
		if r := &recs[i]; !foldEqual(r.Short.String(), r.Name) {
			names++
		}
		names++
	}
	d.byName.Sized(names)
	d.shorts = NewShortNameSet()
	for i := range recs {
		r := &recs[i]
		d.recs = append(d.recs, r)
		d.shorts.Add(r.Short)
		if r.Entry.IsLabel() {
			continue
		}
		v.noteEntryCluster(r.Entry.Cluster)
		if r.Short == DotName || r.Short == DotDotName {
			continue
		}
		d.index(r)
	}
	d.end = len(d.raw) / DirEntrySize
	for i := 0; i < len(d.raw); i += DirEntrySize {
		if d.raw[i] == SlotEnd {
			d.end = i / DirEntrySize
			break
		}
	}
	v.cacheDir(d)
	return d, nil
}

func (d *dir) index(r *Record) {
	d.byName.add(r.Name, r)
	if short := r.Short.String(); !foldEqual(short, r.Name) {
		d.byName.add(short, r)
	}
}

// lookup finds a member by name, case-insensitively, by long or short name.
func (d *dir) lookup(name string) *Record {
	return d.byName.get(name)
}

// nameIndex finds records by name as FoldName compares them
// (fsutil.NameIndex: by a hash of the folded name, not a copy of it).
type nameIndex struct{ fsutil.NameIndex[*Record] }

// add indexes r under name (its long or short name).
func (x *nameIndex) add(name string, r *Record) {
	x.Add(foldHash(name), r, namedBy(name), foldOf(name))
}

// get returns the record named name, or nil.
func (x *nameIndex) get(name string) *Record {
	return x.Get(foldHash(name), namedBy(name), foldOf(name))
}

// remove drops name's entry if it is r's.
func (x *nameIndex) remove(name string, r *Record) {
	x.Remove(foldHash(name), r, namedBy(name), foldOf(name))
}

func namedBy(name string) func(*Record) bool { return func(r *Record) bool { return r.named(name) } }
func foldOf(name string) func() string       { return func() string { return FoldName(name) } }

// named reports whether name is r's long or short name, as FoldName
// compares them.
func (r *Record) named(name string) bool {
	return foldEqual(r.Name, name) || foldEqual(r.Short.String(), name)
}

// foldHash is the FNV-1a hash of FoldName(s), computed without building
// it.
func foldHash(s string) uint64 {
	h := fsutil.FoldHashInit
	for _, c := range s {
		c = unicode.ToUpper(c)
		for i := 0; i < 4; i++ {
			h ^= uint64(byte(c >> (8 * i)))
			h *= fsutil.FoldHashPrime
		}
	}
	return h
}

// foldEqual reports whether FoldName(a) == FoldName(b), without building
// them.
func foldEqual(a, b string) bool {
	for _, ca := range a {
		if len(b) == 0 {
			return false
		}
		cb, n := utf8.DecodeRuneInString(b)
		if unicode.ToUpper(ca) != unicode.ToUpper(cb) {
			return false
		}
		b = b[n:]
	}
	return len(b) == 0
}

// list returns the members, without ".", ".." and the volume label.
func (d *dir) list() []*Record {
	out := make([]*Record, 0, len(d.recs))
	for _, r := range d.recs {
		if isMember(r) {
			out = append(out, r)
		}
	}
	return out
}

// isMember reports whether a record is one of its directory's members
// (not the label, ".", or "..").
func isMember(r *Record) bool {
	return !r.Entry.IsLabel() && r.Short != DotName && r.Short != DotDotName
}

// add stores a new member named name with entry e (its Name and NTRes are
// filled in here) and returns its record.
func (d *dir) add(name string, e DirEntry) (*Record, error) {
	slots, info, e, err := d.encode(name, e)
	if err != nil {
		return nil, err
	}
	pos, err := d.freeRun(len(slots) / DirEntrySize)
	if err != nil {
		return nil, err
	}
	return d.place(pos, name, slots, info, e), nil
}

// encode checks that name is free in d and returns the slots of a record
// for it with entry e, and e with its Name and NTRes filled in.
func (d *dir) encode(name string, e DirEntry) ([]byte, NameInfo, DirEntry, error) {
	if err := ValidateLongName(name); err != nil {
		return nil, NameInfo{}, e, err
	}
	if d.lookup(name) != nil {
		return nil, NameInfo{}, e, fs.ErrExist
	}
	info, err := MakeShortName(name, d.shorts)
	if err != nil {
		return nil, NameInfo{}, e, err
	}
	e.Name, e.NTRes = info.Short, info.NTRes
	slots, err := EncodeRecord(name, info, e)
	return slots, info, e, err
}

// place writes the record slots (from encode) at slot pos and indexes it.
func (d *dir) place(pos int, name string, slots []byte, info NameInfo, e DirEntry) *Record {
	n := len(slots) / DirEntrySize
	d.dropOrphansBefore(pos)
	copy(d.raw[pos*DirEntrySize:], slots)
	d.markDirty(pos, n)
	if pos+n > d.end {
		// Slots past the old end marker may hold garbage: keep an explicit
		// end marker right after the new record.
		d.end = pos + n
		if d.end < len(d.raw)/DirEntrySize {
			clear(d.raw[d.end*DirEntrySize : (d.end+1)*DirEntrySize])
			d.markDirty(d.end, 1)
		}
	}
	if pos == d.hint {
		d.hint = pos + n
	}
	r := &Record{Name: name, Short: info.Short, Entry: e, Slot: pos, Slots: n, HasLong: info.NeedLong}
	if !info.NeedLong {
		r.Name = info.Short.Display(info.NTRes)
	}
	d.insertSorted(r)
	d.shorts.Add(info.Short)
	d.index(r)
	return r
}

// growthFor returns how many clusters d must grow by before add can store
// a new member named name: 0 when free slots hold its record. It fails
// (ErrDirFull) when the directory cannot grow that far. Writers check it
// with the space they need for data, so that a volume too full for both
// fails before anything is written.
func (d *dir) growthFor(name string) (int64, error) {
	info, err := MakeShortName(name, d.shorts)
	if err != nil {
		return 0, err
	}
	n := 1
	if info.NeedLong {
		n += (utf16Len(name) + lfnUnits - 1) / lfnUnits
	}
	slots := len(d.raw) / DirEntrySize
	if pos := d.fitRun(n); pos >= 0 || d.first == 0 && d.anyRun(n) >= 0 {
		return 0, nil
	}
	// The record goes at the end: into the free slots there, if any, and
	// the new clusters after them.
	tail := 0
	for i := slots - 1; i >= d.hint && (i >= d.end || d.raw[i*DirEntrySize] == SlotDeleted); i-- {
		tail++
	}
	l := d.v.layout
	perCluster := int(l.ClusterSize / DirEntrySize)
	grow := int64((n - tail + perCluster - 1) / perCluster)
	if d.first == 0 {
		return 0, fmt.Errorf("%w: the %s root directory holds at most %d entries", ErrDirFull, l.Type, l.RootDirSize/DirEntrySize)
	}
	if int64(len(d.raw))+grow*l.ClusterSize > MaxDirEntries*DirEntrySize {
		return 0, fmt.Errorf("%w: %s", ErrDirFull, DirLimit)
	}
	return grow, nil
}

// roomFor checks that a new file named base of size bytes fits in parent:
// its clusters and those the directory must grow by to hold its entry.
func (v *Volume) roomFor(parent *dir, base string, size int64) error {
	dirNeed, err := parent.growthFor(base)
	if err != nil {
		return err
	}
	need := v.clustersFor(size) + dirNeed
	if free := int64(v.allocatable()); need > free {
		cs := v.layout.ClusterSize
		return &NoSpaceError{Need: need * cs, Free: free * cs}
	}
	return nil
}

// dropOrphansBefore marks deleted the LFN slots right before slot pos, where
// a record is about to go. They precede a free slot, so no short entry of
// theirs follows them: they are orphans (left by a crash or damage), and
// left in place they would be read as the long name of the new record
// whenever their checksum matches its short name.
func (d *dir) dropOrphansBefore(pos int) {
	i := pos
	for ; i > 0; i-- {
		b := d.raw[(i-1)*DirEntrySize : i*DirEntrySize]
		if b[direntName] == SlotDeleted || b[direntName] == SlotEnd || Attr(b[direntAttr])&attrLongNameMask != AttrLongName {
			break
		}
		b[direntName] = SlotDeleted
	}
	if i < pos {
		d.markDirty(i, pos-i)
	}
}

// anyRun is where n free slots in a row start, from the hint on, or -1
// (FindFreeSlots with the end marker d tracks: no scan from slot 0).
func (d *dir) anyRun(n int) int {
	if pos := findFreeSlots(d.raw, n, d.hint, d.end); pos >= 0 && pos+n <= len(d.raw)/DirEntrySize {
		return pos
	}
	return -1
}

// insertSorted adds r to d.recs in slot order: a binary search, and a
// move of the records after it (none when it is the last, as new names
// mostly are).
func (d *dir) insertSorted(r *Record) {
	i := sort.Search(len(d.recs), func(i int) bool { return d.recs[i].Slot > r.Slot })
	d.recs = slices.Insert(d.recs, i, r)
}

// update rewrites r's short entry in place (size, cluster, times).
func (d *dir) update(r *Record) {
	slot := r.Slot + r.Slots - 1
	r.Entry.Encode(d.raw[slot*DirEntrySize:])
	d.markDirty(slot, 1)
}

// remove marks r's slots deleted (in the crash-safe order of
// Volume.deleteRecord) and forgets it.
func (d *dir) remove(r *Record) {
	d.detach(r)
	d.v.deleteRecord(d, r)
}

// attach indexes r again after detach.
func (d *dir) attach(r *Record) {
	d.insertSorted(r)
	d.index(r)
}

// detach forgets r (its name can be looked up and reused at once) but
// leaves its slots, and its short name, taken until they are marked
// deleted.
func (d *dir) detach(r *Record) {
	// Live records have disjoint slots: r is where its slot sorts.
	i := sort.Search(len(d.recs), func(i int) bool { return d.recs[i].Slot >= r.Slot })
	if i < len(d.recs) && d.recs[i] == r {
		d.recs = slices.Delete(d.recs, i, i+1)
	}
	d.byName.remove(r.Name, r)
	d.byName.remove(r.Short.String(), r)
}

// DirLimit says why a chained directory is full: what it holds at most,
// in the slots names take.
var DirLimit = fmt.Sprintf("a FAT directory holds at most %d slots of 32 bytes (a long name takes one more for every 13 characters, and no name straddles a sector)", MaxDirEntries)

// maxDirGrowth bounds how many clusters a directory grows by at once.
const maxDirGrowth = 32

// grow adds zeroed clusters to a chained directory: as many as it has
// (up to maxDirGrowth, within FAT's size limit and the free space), so that
// a directory that takes thousands of names grows in a few contiguous runs
// rather than one cluster at a time between the files' data. The zeros go
// out with the data, before the FAT links the clusters in.
func (d *dir) grow() error {
	l := d.v.layout
	if d.first == 0 {
		return fmt.Errorf("%w: the %s root directory holds at most %d entries", ErrDirFull, l.Type, l.RootDirSize/DirEntrySize)
	}
	room := (MaxDirEntries*DirEntrySize - int64(len(d.raw))) / l.ClusterSize
	if room < 1 {
		return fmt.Errorf("%w: %s", ErrDirFull, DirLimit)
	}
	n := min(int64(len(d.chain)), maxDirGrowth, room, max(int64(d.v.allocatable()), 1))
	last := d.chain[len(d.chain)-1]
	_, held := d.v.held[last]
	exts, err := d.v.allocateAfter(uint32(n), last, phaseEntries)
	if err != nil {
		return err
	}
	zero := make([]byte, l.ClusterSize)
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			if err := d.v.writeData(l.ClusterOffset(c), zero); err != nil {
				d.v.undoGrowth(last, held, exts)
				return err
			}
		}
	}
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			d.chain = append(d.chain, c)
			d.raw = append(d.raw, zero...)
			d.v.grew(d, len(zero))
		}
	}
	return nil
}

func (d *dir) markDirty(slot, n int) {
	if d.fresh {
		slot, n = 0, len(d.raw)/DirEntrySize
	}
	fsutil.MarkSectors(d.dirty, slot, n, int(d.v.layout.SectorSize)/DirEntrySize)
	d.v.dirtyDirs[d.first] = d
}

// offsetOf maps a byte offset inside the directory to the device.
func (d *dir) offsetOf(off int64) int64 {
	if d.first == 0 {
		return d.v.layout.RootDirOffset + off
	}
	cs := d.v.layout.ClusterSize
	return d.v.layout.ClusterOffset(d.chain[off/cs]) + off%cs
}

// flush queues the dirty sectors into b, not copied: raw must not change
// until b is flushed.
func (d *dir) flush(b interface{ WriteShared(int64, []byte) error }) error {
	at := func(off int64) (int64, error) { return d.offsetOf(off), nil }
	return fsutil.FlushSectors(d.dirty, d.raw, d.v.layout.SectorSize, at, b.WriteShared)
}
