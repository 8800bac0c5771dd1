package fat

import (
	"fmt"

	"github.com/ftools/ftools/pkg/internal/resize"
)

// areaMove is a growth whose FATs need more sectors than they have: the
// FATs grow by whole clusters' worth of sectors, so the data area starts k
// clusters later and every cluster keeps its bytes but loses k from its
// number. The first k clusters are emptied first (moved, crash-safe, as a
// shrink moves); then the FATs, every directory entry, FSINFO and the boot
// sector are rewritten with the new numbers, which no order makes
// crash-safe: the bytes they overwrite go to the undo file first.
type areaMove struct {
	k       uint32 // clusters the data area moves by
	fatSecs int64  // new sectors per FAT
	dataOff int64  // new data offset, bytes
}

// planAreaMove plans a growth to total sectors that moves the data area.
func (r *resizer) planAreaMove(total int64) error {
	l := r.l
	ss := l.SectorSize
	spc := l.ClusterSize / ss
	n := int64(l.NumFATs)
	f := l.FATSize / ss
	for f2 := f + 1; f2 < f+1<<24; f2++ {
		grow := n * (f2 - f)
		if grow%spc != 0 {
			continue
		}
		k := grow / spc
		dataSec := l.DataOffset/ss + grow
		if total < dataSec+spc {
			return &resize.TooSmallError{Asked: r.o.Size, Need: (dataSec + spc) * ss, What: "the larger FATs leave no room"}
		}
		count := min((total-dataSec)/spc, 0xFFFFFFFF)
		if fatBytes(l.Type, uint32(count)) > f2*ss {
			continue
		}
		if k > int64(l.Clusters)/2 {
			return fmt.Errorf("fat: resize to %d bytes: the FATs would grow over %d of the volume's %d clusters; make the file system again at that size instead", r.o.Size, k, l.Clusters)
		}
		r.area = &areaMove{k: uint32(k), fatSecs: f2, dataOff: dataSec * ss}
		r.newCount = uint32(count)
		break
	}
	if r.area == nil {
		return fmt.Errorf("fat: resize to %d bytes: no FAT size fits", r.o.Size)
	}
	if err := r.typeLimits(); err != nil {
		return err
	}
	a := r.area
	r.newTotal = uint32(total)
	r.newMax = Cluster(r.newCount) + 1
	r.p.NewSize, r.p.NewClusters, r.p.NewFATSectors = total*ss, r.newCount, uint32(a.fatSecs)
	if err := resize.CheckRoom("fat", r.p.NewSize, r.v.dev.Size(), r.o.DryRun); err != nil {
		return err
	}
	free := r.v.freeCount()
	if err := r.v.table.Err(); err != nil {
		return err
	}
	// The first k clusters make room for the FATs: what is in them moves.
	r.keepLo, r.keepHi = FirstCluster+Cluster(a.k), l.MaxCluster()
	if err := r.findMoves(free); err != nil {
		return err
	}
	r.freeNew = free + r.newCount - l.Clusters
	r.p.Unsafe = fmt.Sprintf("the FATs need %d more sectors each (%d, not %d): the data area moves by %d clusters and every cluster is renumbered, so the FATs, every directory and the boot sector are rewritten; a cut in between leaves a volume only the undo file restores (fresize --undo-apply)",
		a.fatSecs-l.FATSize/ss, a.fatSecs, l.FATSize/ss, a.k)
	r.p.Steps = append(r.p.Steps,
		fmt.Sprintf("write the undo file: the %d bytes before the data area and every directory", l.DataOffset),
		fmt.Sprintf("write the FATs (%d sectors each) with every cluster renumbered (less %d), the directories' entries likewise, FSINFO's free count %d", a.fatSecs, a.k, r.freeNew),
		fmt.Sprintf("write the boot sector and its backup: %d sectors (%d bytes), %d clusters", total, total*ss, r.newCount))
	return nil
}

// moveArea rewrites the volume with the data area k clusters later, after
// the undo file has saved what it overwrites.
func (r *resizer) moveArea() error {
	v, l, a := r.v, r.l, r.area
	k := Cluster(a.k)
	meta := make([]byte, l.DataOffset)
	if _, err := v.dev.ReadAt(meta, 0); err != nil {
		return fmt.Errorf("fat: reading the reserved sectors and FATs: %w", err)
	}
	// The undo puts back a clean volume: the moves before are whole.
	copy(meta, v.cleanBoot())
	dirs, err := r.allDirs()
	if err != nil {
		return err
	}
	// The undo file: the old metadata and directories, durable first.
	u := resize.NewUndoWriter(r.o.Undo)
	u.Record(0, meta)
	for _, d := range dirs {
		u.Record(d.off, d.raw)
	}
	if err := u.Close(); err != nil {
		return fmt.Errorf("fat: writing the undo file: %w", err)
	}
	// The new FATs, from the old first FAT as it was read.
	old, err := NewTable(l.Type, meta[l.FATOffset:l.FATOffset+l.FATSize], l.Clusters)
	if err != nil {
		return err
	}
	raw := make([]byte, a.fatSecs*l.SectorSize)
	nt, err := NewTable(l.Type, raw, r.newCount)
	if err != nil {
		return err
	}
	nt.Set(0, old.Get(0))
	nt.Set(1, old.Get(1))
	oldMax := l.MaxCluster()
	for c := FirstCluster; c <= r.newMax; c++ {
		oc := c + k
		if oc > oldMax {
			break
		}
		val := old.Get(oc)
		if val >= FirstCluster+k && val <= oldMax && !old.IsEOC(val) && !old.IsBad(val) {
			val -= k
		} else if val != 0 && !old.IsEOC(val) && !old.IsBad(val) {
			return fmt.Errorf("fat: cluster %d leads to cluster %d, which the move should have emptied", oc, val)
		}
		nt.Set(c, val)
	}
	b := v.dev.NewBatch()
	for i := range l.NumFATs {
		if err := b.Write(l.FATOffset+int64(i)*int64(len(raw)), raw); err != nil {
			return fmt.Errorf("fat: writing the FATs: %w", err)
		}
	}
	if l.Type != FAT32 {
		root := renumber(meta[l.RootDirOffset:l.RootDirOffset+l.RootDirSize], k, l.Type)
		if err := b.Write(l.FATOffset+int64(l.NumFATs)*int64(len(raw)), root); err != nil {
			return fmt.Errorf("fat: writing the root directory: %w", err)
		}
	}
	for _, d := range dirs {
		if d.root {
			continue
		}
		if err := b.Write(d.off, renumber(d.raw, k, l.Type)); err != nil {
			return fmt.Errorf("fat: writing a directory: %w", err)
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("fat: writing the FATs and directories: %w", err)
	}
	v.metaWritten = true
	if err := v.barrier(); err != nil {
		return err
	}
	bs := v.boot
	if bs.Is32 {
		bs.FATSize32 = uint32(a.fatSecs)
		bs.RootCluster -= uint32(k)
	} else {
		bs.FATSize16 = uint16(a.fatSecs)
	}
	if v.info != nil {
		v.info.NextFree = FSInfoUnknown
	}
	return nil
}

// rzDirBytes is a directory's bytes, one cluster at a time (the fixed root
// whole), at its byte offset on the volume.
type rzDirBytes struct {
	off  int64
	raw  []byte
	root bool // FAT12/16's fixed root, which moves
}

// allDirs reads every directory cluster of the tree.
func (r *resizer) allDirs() ([]rzDirBytes, error) {
	v, l := r.v, r.l
	var out []rzDirBytes
	stack := []Cluster{0}
	if l.Type == FAT32 {
		stack[0] = Cluster(v.boot.RootCluster)
	}
	seen := map[Cluster]bool{}
	for len(stack) > 0 {
		first := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var parts []rzDirBytes
		if first == 0 {
			raw := make([]byte, l.RootDirSize)
			if _, err := v.dev.ReadAt(raw, l.RootDirOffset); err != nil {
				return nil, err
			}
			parts = append(parts, rzDirBytes{off: l.RootDirOffset, raw: raw, root: true})
		} else {
			chain, err := Chain(v.table, first)
			if err != nil {
				return nil, err
			}
			for _, c := range chain {
				if seen[c] {
					return nil, fmt.Errorf("fat: directory cluster %d is reached twice; run fverify", c)
				}
				seen[c] = true
				raw := make([]byte, l.ClusterSize)
				if _, err := v.dev.ReadAt(raw, l.ClusterOffset(c)); err != nil {
					return nil, err
				}
				parts = append(parts, rzDirBytes{off: l.ClusterOffset(c), raw: raw})
			}
		}
		out = append(out, parts...)
		for _, p := range parts {
			for i := 0; i+DirEntrySize <= len(p.raw); i += DirEntrySize {
				s := p.raw[i:]
				if s[0] == SlotEnd {
					break
				}
				e := DecodeDirEntry(s[:DirEntrySize])
				if s[0] == SlotDeleted || e.IsLongName() || e.IsLabel() || !e.IsDir() {
					continue
				}
				e.ClusterFor(l.Type)
				if sn := ShortName(e.Name); sn == DotName || sn == DotDotName || e.Cluster < FirstCluster {
					continue
				}
				stack = append(stack, e.Cluster)
			}
		}
	}
	return out, nil
}

// renumber returns a copy of directory bytes with every first cluster
// less k ("." and ".." too; a ".." of 0, the root, stays), up to the end
// marker.
func renumber(raw []byte, k Cluster, t Type) []byte {
	out := append([]byte(nil), raw...)
	for i := 0; i+DirEntrySize <= len(out); i += DirEntrySize {
		s := out[i : i+DirEntrySize]
		if s[0] == SlotEnd {
			break
		}
		e := DecodeDirEntry(s)
		if s[0] == SlotDeleted || e.IsLongName() || e.IsLabel() {
			continue
		}
		e.ClusterFor(t)
		if e.Cluster >= FirstCluster {
			setEntryCluster(s, e.Cluster-k, t)
		}
	}
	return out
}
