package fat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path"

	"github.com/ftools/ftools/pkg/internal/sortorder"
)

// SortOptions tune Sort: the order, the directories, a visitor and a
// context (shared with pkg/exfat).
type SortOptions = sortorder.Job

// SortResult counts what Sort did.
type SortResult = sortorder.Result

// sortDir is a directory Sort visits.
type sortDir struct {
	first  Cluster // first cluster; 0 for the FAT12/16 fixed root
	entry  int64   // device offset of the short entry naming it; -1 for the root
	dotdot Cluster // what its ".." holds (0: the root)
	path   string
}

// Sort orders the members of the volume's directories as o says (fatsort
// for a volume that is not mounted). Each record keeps its long-name
// slots; ".", ".." and the volume label stay first; deleted slots are
// dropped. Directories are visited from the root down.
//
// Write order: a chained directory (every one but the FAT12/16 root) is
// written sorted into newly allocated clusters, with their FAT chain,
// then a barrier; then the one field naming it (its entry in the parent,
// or the FAT32 boot sector's root cluster, then after a barrier the
// backup's) is switched, barrier; then the ".." entries of its
// subdirectories are pointed at the new clusters, barrier; then its old
// clusters are freed (FAT, FSINFO), barrier. A cut leaves the directory
// in its old order or its new one, at worst with lost clusters, stale
// ".." entries, or a backup boot sector that differs from the primary in
// the root cluster, which fverify --repair mends. The FAT12/16 fixed root
// is sorted in place (sortFixedRoot).
func (v *Volume) Sort(o SortOptions) (*SortResult, error) {
	if err := o.Start(v.begin, v.Stat); err != nil {
		return nil, err
	}
	root := sortDir{entry: -1, path: "."}
	if v.layout.Type == FAT32 {
		root.first = v.layout.RootCluster
	}
	res := &SortResult{}
	return res, v.sortTree(root, &o, res)
}

func (v *Volume) sortTree(root sortDir, o *SortOptions, res *SortResult) error {
	return sortorder.Walk(o, root, func(d sortDir) string { return d.path }, func(d sortDir, sortIt, _ bool) ([]sortDir, error) {
		if sortIt {
			return v.sortOne(d, o, res)
		}
		return v.subdirs(d)
	})
}

// readSortDir reads directory d whole: its bytes and chain.
func (v *Volume) readSortDir(d sortDir) ([]byte, []Cluster, error) {
	l := v.layout
	if d.first == 0 {
		raw := make([]byte, l.RootDirSize)
		if _, err := v.dev.ReadAt(raw, l.RootDirOffset); err != nil {
			return nil, nil, fmt.Errorf("fat: reading the root directory: %w", err)
		}
		return raw, nil, nil
	}
	chain, err := Chain(v.table, d.first)
	if err != nil {
		return nil, nil, damaged(fmt.Errorf("fat: directory %s at cluster %d: %w", d.path, d.first, err))
	}
	if int64(len(chain))*l.ClusterSize > MaxDirEntries*DirEntrySize {
		return nil, nil, damaged(fmt.Errorf("fat: directory %s at cluster %d: longer than FAT's limit of %d entries", d.path, d.first, MaxDirEntries))
	}
	raw := make([]byte, int64(len(chain))*l.ClusterSize)
	if err := v.readClusters(raw, chain); err != nil {
		return nil, nil, fmt.Errorf("fat: reading directory %s: %w", d.path, err)
	}
	return raw, chain, nil
}

// slotOffset maps slot i of a directory stored in chain (nil: the fixed
// root) to its device offset.
func (v *Volume) slotOffset(chain []Cluster, i int) int64 {
	off := int64(i) * DirEntrySize
	if chain == nil {
		return v.layout.RootDirOffset + off
	}
	cs := v.layout.ClusterSize
	return v.layout.ClusterOffset(chain[off/cs]) + off%cs
}

// kidsOf lists the subdirectories among recs, laid out in chain.
func (v *Volume) kidsOf(d sortDir, recs []Record, chain []Cluster, self Cluster) []sortDir {
	var kids []sortDir
	for i := range recs {
		r := &recs[i]
		if !r.Entry.IsDir() || r.Entry.IsLabel() || r.Short == DotName || r.Short == DotDotName || r.Entry.Cluster == 0 {
			continue
		}
		kids = append(kids, sortDir{first: r.Entry.Cluster, entry: v.slotOffset(chain, r.Slot+r.Slots-1), dotdot: self, path: path.Join(d.path, r.Name)})
	}
	return kids
}

// subdirs lists d's subdirectories without sorting d.
func (v *Volume) subdirs(d sortDir) ([]sortDir, error) {
	raw, chain, err := v.readSortDir(d)
	if err != nil {
		return nil, err
	}
	recs, _ := ParseDir(raw, v.layout.Type)
	return v.kidsOf(d, recs, chain, v.selfOf(d)), nil
}

// selfOf is what d's subdirectories' ".." entries hold: 0 for the root.
func (v *Volume) selfOf(d sortDir) Cluster {
	if d.entry < 0 {
		return 0
	}
	return d.first
}

// sortedRecords splits recs into those that stay first (the label, "."
// and "..", in that order) and the members, sorted.
func sortedRecords(recs []Record, o sortorder.Options) []Record {
	out := make([]Record, 0, len(recs))
	for _, want := range []func(*Record) bool{
		func(r *Record) bool { return r.Entry.IsLabel() },
		func(r *Record) bool { return !r.Entry.IsLabel() && r.Short == DotName },
		func(r *Record) bool { return !r.Entry.IsLabel() && r.Short == DotDotName },
	} {
		for i := range recs {
			if want(&recs[i]) {
				out = append(out, recs[i])
			}
		}
	}
	front := len(out)
	for i := range recs {
		r := &recs[i]
		if !r.Entry.IsLabel() && r.Short != DotName && r.Short != DotDotName {
			out = append(out, *r)
		}
	}
	sortorder.Sort(o, out[front:], func(r *Record) sortorder.Key {
		k := sortorder.Key{Name: r.Name, Dir: r.Entry.Attr&AttrDirectory != 0}
		if !r.HasLong {
			k.Name = sortorder.ShortKey(r.Short)
		}
		return k
	})
	return out
}

// packed lays recs out from slot 0, in order: the new directory's bytes
// (rounded up to size) and each record's new first slot.
func packed(raw []byte, recs []Record, size int) []byte {
	out := make([]byte, size)
	pos := 0
	for i := range recs {
		r := &recs[i]
		n := r.Slots * DirEntrySize
		copy(out[pos:pos+n], raw[r.Slot*DirEntrySize:])
		r.Slot = pos / DirEntrySize
		pos += n
	}
	return out
}

func recordsBytes(recs []Record) int {
	n := 0
	for i := range recs {
		n += recs[i].Slots * DirEntrySize
	}
	return n
}

// sortOne sorts directory d and returns its subdirectories where they
// now are.
func (v *Volume) sortOne(d sortDir, o *SortOptions, res *SortResult) ([]sortDir, error) {
	raw, chain, err := v.readSortDir(d)
	if err != nil {
		return nil, err
	}
	recs, _ := ParseDir(raw, v.layout.Type)
	members := 0
	for i := range recs {
		if r := &recs[i]; !r.Entry.IsLabel() && r.Short != DotName && r.Short != DotDotName {
			members++
		}
	}
	recs = sortedRecords(recs, o.Order)
	used := recordsBytes(recs)
	if d.first == 0 {
		changed, err := v.sortFixedRoot(raw, recs)
		if err != nil {
			return nil, err
		}
		o.Done(res, d.path, members, changed)
		return v.kidsOf(d, recs, nil, 0), nil
	}
	cs := int(v.layout.ClusterSize)
	size := max((used+cs-1)/cs, 1) * cs
	newRaw := packed(raw, recs, size)
	if bytes.Equal(newRaw[:used], raw[:used]) && (used == len(raw) || raw[used] == SlotEnd) {
		o.Done(res, d.path, members, false)
		return v.kidsOf(d, recs, chain, v.selfOf(d)), nil
	}
	exts, err := v.allocate(uint32(size/cs), 0)
	if err != nil {
		return nil, fmt.Errorf("fat: sorting %s: %w", d.path, err)
	}
	nf := exts[0].Start
	var newChain []Cluster
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			newChain = append(newChain, c)
		}
	}
	for i := range recs {
		r := &recs[i]
		switch {
		case r.Entry.IsLabel():
		case r.Short == DotName:
			v.putCluster(newRaw[r.Slot*DirEntrySize:], nf)
		case r.Short == DotDotName:
			v.putCluster(newRaw[r.Slot*DirEntrySize:], d.dotdot)
		}
	}
	// 1. The sorted copy and its chain, which nothing names yet.
	for i, c := range newChain {
		if err := v.writeData(v.layout.ClusterOffset(c), newRaw[i*cs:(i+1)*cs]); err != nil {
			return nil, err
		}
	}
	if err := v.flushData(); err != nil {
		return nil, err
	}
	if err := v.FlushFAT(); err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	// 2. The switch.
	if d.entry >= 0 {
		err = v.patchCluster(d.entry, nf)
	} else {
		err = v.switchRoot(nf)
	}
	if err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	self := v.selfOf(sortDir{first: nf, entry: d.entry})
	kids := v.kidsOf(d, recs, newChain, self)
	// 3. The subdirectories' "..", when they name this directory.
	if self != 0 {
		for _, k := range kids {
			if err := v.patchDotDot(k.first, self); err != nil {
				return nil, err
			}
		}
		if len(kids) > 0 {
			if err := v.barrier(); err != nil {
				return nil, err
			}
		}
	}
	// 4. The old clusters.
	v.freeClusters(extentsOf(chain))
	if err := v.FlushFAT(); err != nil {
		return nil, err
	}
	if err := v.flushFSInfo(); err != nil {
		return nil, err
	}
	if err := v.barrier(); err != nil {
		return nil, err
	}
	o.Done(res, d.path, members, true)
	return kids, nil
}

// putCluster sets the first cluster of the short entry at b[0:32].
func (v *Volume) putCluster(b []byte, c Cluster) {
	if v.layout.Type == FAT32 {
		binary.LittleEndian.PutUint16(b[direntClusterHigh:], uint16(uint32(c)>>16))
	}
	binary.LittleEndian.PutUint16(b[direntClusterLow:], uint16(c))
}

// patchSector reads the sector holding device offset off, lets fix
// change it (b[0] is the byte at off), and writes it back.
func (v *Volume) patchSector(off int64, fix func(b []byte) error) error {
	ss := v.layout.SectorSize
	start := off / ss * ss
	sec := make([]byte, ss)
	if _, err := v.dev.ReadAt(sec, start); err != nil {
		return fmt.Errorf("fat: reading the sector at byte %d: %w", start, err)
	}
	if err := fix(sec[off-start:]); err != nil {
		return err
	}
	v.metaWritten = true
	if _, err := v.dev.WriteAt(sec, start); err != nil {
		return fmt.Errorf("fat: writing the sector at byte %d: %w", start, err)
	}
	return nil
}

// patchCluster points the short entry at device offset off at c.
func (v *Volume) patchCluster(off int64, c Cluster) error {
	return v.patchSector(off, func(b []byte) error { v.putCluster(b, c); return nil })
}

// patchDotDot points the ".." entry of the directory at first to parent.
func (v *Volume) patchDotDot(first, parent Cluster) error {
	off := v.layout.ClusterOffset(first) + DirEntrySize
	return v.patchSector(off, func(b []byte) error {
		if !bytes.Equal(b[:shortNameLen], DotDotName[:]) {
			return nil // no ".." where it belongs: fverify's to report, not ours to write
		}
		v.putCluster(b, parent)
		return nil
	})
}

// switchRoot makes c the FAT32 root directory's first cluster: in the boot
// sector, then (after a barrier) in its backup.
func (v *Volume) switchRoot(c Cluster) error {
	v.boot.RootCluster = uint32(c)
	v.layout.RootCluster = c
	v.metaWritten = true
	if err := v.writeBoot(); err != nil {
		return err
	}
	if v.layout.BackupBootOffset == 0 {
		return nil
	}
	if err := v.barrier(); err != nil {
		return err
	}
	return v.patchSector(v.layout.BackupBootOffset+offRootCluster, func(b []byte) error {
		binary.LittleEndian.PutUint32(b, uint32(c))
		return nil
	})
}
