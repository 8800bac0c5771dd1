package exfat

import (
	"encoding/binary"
	"fmt"
	"path"

	"github.com/ftools/ftools/pkg/internal/sortorder"
)

// SortOptions tune Sort (shared with pkg/fat).
type SortOptions = sortorder.Job

// SortResult counts what Sort did.
type SortResult = sortorder.Result

// sortDir is a directory Sort visits: its clusters, and (but for the
// root) where its entry set lies in its parent and the set itself.
type sortDir struct {
	exts  []Extent
	set   *EntrySet // nil for the root
	at    []int64   // device offsets of the set's file and stream entries
	path  string
	first Cluster
}

// Sort orders the members of the volume's directories as o says, from
// the root down. Each entry set moves whole; the volume label and the
// other system entries (bitmap, up-case table, GUID, and entries ftools
// does not know) stay first, in their order; unused entries are dropped.
// No entry set of up to a sector's entries straddles a sector (unused
// entries pad), as the writer's rule is.
//
// Write order: the sorted directory goes into newly allocated clusters
// (bitmap and, if fragmented or the root, FAT chain), barrier; then the
// entry set naming it is rewritten with the new first cluster, length and
// set checksum (the root: the main boot region's root cluster and
// checksum, barrier, then the backup region's), barrier; then the old
// clusters are marked free, barrier. A cut leaves the directory in its old
// order or its new one, at worst with lost clusters or a backup boot
// region that differs from the main one, which fverify --repair mends.
func (v *Volume) Sort(o SortOptions) (*SortResult, error) {
	if err := o.Start(v.begin, v.Stat); err != nil {
		return nil, err
	}
	l := v.layout
	exts, err := v.fat.chainAll(l, l.RootCluster, maxRootClusters(l))
	if err != nil {
		return nil, fmt.Errorf("exfat: root directory at cluster %d: %w", l.RootCluster, err)
	}
	res := &SortResult{}
	return res, v.sortTree(sortDir{exts: exts, path: ".", first: l.RootCluster}, &o, res)
}

func (v *Volume) sortTree(root sortDir, o *SortOptions, res *SortResult) error {
	return sortorder.Walk(o, root, func(d sortDir) string { return d.path }, func(d sortDir, sortIt, descend bool) ([]sortDir, error) {
		return v.sortVisit(d, sortIt, descend, o, res)
	})
}

// sortVisit sorts d (when sortIt) and lists its subdirectories (when
// descend), as they lie after the sort.
func (v *Volume) sortVisit(d sortDir, sortIt, descend bool, o *SortOptions, res *SortResult) ([]sortDir, error) {
	raw, err := v.readExtents(d.exts, extentsClusters(d.exts)*v.layout.ClusterSize)
	if err != nil {
		return nil, fmt.Errorf("exfat: reading directory %s: %w", d.path, err)
	}
	pd := parseDir(raw, v.up, d.set == nil)
	if len(pd.probs) > 0 {
		return nil, fmt.Errorf("%w: directory %s: %v", ErrCorrupt, d.path, pd.probs[0].Err)
	}
	exts := d.exts
	if sortIt {
		if exts, err = v.sortOne(d, raw, &pd, o, res); err != nil {
			return nil, err
		}
	}
	if !descend {
		return nil, nil
	}
	var kids []sortDir
	for _, r := range pd.recs {
		if !r.IsDir() {
			continue
		}
		k := sortDir{set: &r.Set, path: path.Join(d.path, r.Name), first: r.Set.Stream.FirstCluster,
			at: []int64{v.sortSlotOffset(exts, r.Slot), v.sortSlotOffset(exts, r.Slot+1)}}
		if k.exts, err = v.fileExtents(&r.Set.Stream); err != nil {
			return nil, err
		}
		if len(k.exts) == 0 {
			continue
		}
		kids = append(kids, k)
	}
	return kids, nil
}

// sortSlotOffset is the device offset of entry i of a directory in exts.
func (v *Volume) sortSlotOffset(exts []Extent, i int) int64 {
	off := int64(i) * EntrySize
	cs := v.layout.ClusterSize
	for _, e := range exts {
		n := int64(e.Len) * cs
		if off < n {
			return v.layout.ClusterOffset(e.Start) + off
		}
		off -= n
	}
	return -1
}

// sortOne sorts d (raw, parsed as pd) and returns the clusters it now
// lies in; pd's records get their new slots.
func (v *Volume) sortOne(d sortDir, raw []byte, pd *parsedDir, o *SortOptions, res *SortResult) ([]Extent, error) {
	l := v.layout
	slots := len(raw) / EntrySize
	covered := make([]bool, slots)
	for _, r := range pd.recs {
		for i := r.Slot; i < r.Slot+r.Slots && i < slots; i++ {
			covered[i] = true
		}
	}
	// What stays first: the label, then every other in-use entry that is
	// no member's (system entries, unknown benign ones), in slot order.
	var front []int
	for _, s := range pd.sys {
		if s.typ() == TypeLabel {
			front = append(front, s.slot)
			covered[s.slot] = true
		}
	}
	for i := 0; i < pd.end; i++ {
		if !covered[i] && raw[i*EntrySize]&typeInUse != 0 {
			front = append(front, i)
		}
	}
	recs := append([]*Record(nil), pd.recs...)
	sortorder.Sort(o.Order, recs, func(r **Record) sortorder.Key {
		return sortorder.Key{Name: (*r).Name, Dir: (*r).IsDir()}
	})
	perSector := int(l.SectorSize / EntrySize)
	newRaw := make([]byte, 0, len(raw))
	for _, i := range front {
		newRaw = append(newRaw, raw[i*EntrySize:(i+1)*EntrySize]...)
	}
	newSlot := make([]int, len(recs))
	for k, r := range recs {
		pos := len(newRaw) / EntrySize
		if r.Slots <= perSector && pos%perSector+r.Slots > perSector {
			for ; pos%perSector != 0; pos++ {
				newRaw = append(newRaw, unusedEntry[:]...)
			}
		}
		newSlot[k] = pos
		newRaw = append(newRaw, raw[r.Slot*EntrySize:(r.Slot+r.Slots)*EntrySize]...)
	}
	used := len(newRaw)
	members := len(recs)
	if used <= len(raw) && string(newRaw) == string(raw[:used]) && (used == len(raw) || raw[used] == TypeEndOfDirectory) {
		o.Done(res, d.path, members, false)
		return d.exts, nil
	}
	cs := int(l.ClusterSize)
	n := max((used+cs-1)/cs, 1)
	newRaw = append(newRaw, make([]byte, n*cs-used)...)
	exts, err := v.allocate(uint32(n), 0)
	if err != nil {
		return nil, fmt.Errorf("exfat: sorting %s: %w", d.path, err)
	}
	noFAT := len(exts) == 1 && d.set != nil
	if !noFAT {
		if err := v.fat.setChain(exts); err != nil {
			return nil, err
		}
	}
	// 1. The sorted copy, its bitmap bits and chain.
	pos := 0
	for _, e := range exts {
		b := int(e.Len) * cs
		if err := v.writeData(l.ClusterOffset(e.Start), newRaw[pos:pos+b]); err != nil {
			return nil, err
		}
		pos += b
	}
	if err := v.flushData(); err != nil {
		return nil, err
	}
	v.metaWritten = true
	if err := v.barrier(); err != nil {
		return nil, err
	}
	if err := v.flushAllocation(); err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	// 2. The switch.
	if d.set == nil {
		err = v.switchRoot(exts[0].Start)
	} else {
		err = v.switchSet(d, exts[0].Start, uint64(n*cs), noFAT)
	}
	if err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	// 3. The old clusters.
	v.release(d.exts)
	if err := v.flushAllocation(); err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	for k, r := range recs {
		r.Slot = newSlot[k]
	}
	o.Done(res, d.path, members, true)
	return exts, nil
}

// unusedEntry pads a sorted directory: a file entry not in use.
var unusedEntry = [EntrySize]byte{TypeFile &^ typeInUse}

// switchSet rewrites d's entry set in its parent to name the clusters
// from first on, length bytes: its file entry (set checksum) and stream
// extension, the only two entries that change.
func (v *Volume) switchSet(d sortDir, first Cluster, length uint64, noFAT bool) error {
	s := d.set
	s.Stream.FirstCluster = first
	s.Stream.DataLength, s.Stream.ValidDataLength = length, length
	if noFAT {
		s.Stream.Flags |= streamNoFATChain
	} else {
		s.Stream.Flags &^= streamNoFATChain
	}
	b := s.Encode(v.up)
	for _, off := range d.at {
		if off < 0 {
			return fmt.Errorf("exfat: directory %s: its entry set lies outside its parent", d.path)
		}
	}
	// One sector write when both entries share a sector (as every set
	// fsort or the writer placed does): the checksum and the stream
	// extension it covers land together.
	ss := v.layout.SectorSize
	if d.at[0]/ss == d.at[1]/ss {
		return v.patchAt(d.at[0]/ss*ss, map[int64][]byte{d.at[0]: b[:EntrySize], d.at[1]: b[EntrySize : 2*EntrySize]})
	}
	for i, off := range d.at {
		if err := v.patchAt(off/ss*ss, map[int64][]byte{off: b[i*EntrySize : (i+1)*EntrySize]}); err != nil {
			return err
		}
	}
	return nil
}

// patchAt rewrites the sector at device offset start with the bytes of
// put (by device offset) in place.
func (v *Volume) patchAt(start int64, put map[int64][]byte) error {
	sec := make([]byte, v.layout.SectorSize)
	if _, err := v.dev.ReadAt(sec, start); err != nil {
		return fmt.Errorf("exfat: reading the sector at byte %d: %w", start, err)
	}
	for off, p := range put {
		copy(sec[off-start:], p)
	}
	if _, err := v.dev.WriteAt(sec, start); err != nil {
		return fmt.Errorf("exfat: writing the sector at byte %d: %w", start, err)
	}
	return nil
}

// switchRoot makes c the root directory's first cluster: in the main boot
// region (sector and checksum), then after a barrier in the backup.
func (v *Volume) switchRoot(c Cluster) error {
	ss := int(v.layout.SectorSize)
	binary.LittleEndian.PutUint32(v.raw[offRootCluster:], uint32(c))
	v.boot.RootCluster = c
	v.layout.RootCluster = c
	for i, at := range []int64{0, int64(backupBootSector * ss)} {
		region := make([]byte, bootRegionSectors*ss)
		if _, err := v.dev.ReadAt(region, at); err != nil {
			return fmt.Errorf("exfat: reading the boot region at byte %d: %w", at, err)
		}
		if i == 0 {
			copy(region, v.raw) // the flags as this session keeps them
		}
		binary.LittleEndian.PutUint32(region[offRootCluster:], uint32(c))
		sealBootRegion(region, ss)
		if i == 1 {
			if err := v.barrier(); err != nil {
				return err
			}
		}
		if _, err := v.dev.WriteAt(region, at); err != nil {
			return fmt.Errorf("exfat: writing the boot region at byte %d: %w", at, err)
		}
	}
	return nil
}
