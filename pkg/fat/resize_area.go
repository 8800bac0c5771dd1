package fat

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ftools/ftools/pkg/internal/fsutil"

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
// the undo file has saved what it overwrites. Memory stays bounded
// whatever the volume's size: the undo file is written, and FAT32's new
// FATs built, a window at a time, and the directories are held as runs
// of clusters, rewritten a cluster at a time.
func (r *resizer) moveArea() error {
	v, l, a := r.v, r.l, r.area
	k := Cluster(a.k)
	dirs, err := r.dirExtents()
	if err != nil {
		return err
	}
	buf := make([]byte, max(areaChunk, l.ClusterSize))
	// The undo file: the old reserved sectors, FATs and fixed root (the
	// boot sector clean: the moves before are whole), then every
	// directory cluster, durable before anything is overwritten.
	u := resize.NewUndoWriter(r.o.Undo)
	for pos := int64(0); pos < l.DataOffset; pos += areaChunk {
		b := buf[:min(areaChunk, l.DataOffset-pos)]
		if _, err := v.dev.ReadAt(b, pos); err != nil {
			return fmt.Errorf("fat: reading the reserved sectors and FATs: %w", err)
		}
		if pos == 0 {
			copy(b, v.cleanBoot())
		}
		if err := u.Record(pos, b); err != nil {
			return fmt.Errorf("fat: writing the undo file: %w", err)
		}
	}
	err = r.eachDirChunk(dirs, buf, func(off int64, b []byte) error { return u.Record(off, b) })
	if err != nil {
		return err
	}
	if err := u.Close(); err != nil {
		return fmt.Errorf("fat: writing the undo file: %w", err)
	}
	// The new FATs (and FAT12/16's root after them), from the old first
	// FAT.
	if l.Type == FAT32 {
		err = r.streamFATs(k)
	} else {
		err = r.wholeFATs(k)
	}
	if err != nil {
		return err
	}
	// The directories, where they are, with every cluster less k.
	b := v.dev.NewBatch()
	err = r.eachDirChunk(dirs, buf, func(off int64, raw []byte) error {
		for i := int64(0); i < int64(len(raw)); i += l.ClusterSize {
			if err := b.Write(off+i, renumber(raw[i:i+l.ClusterSize], k, l.Type)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = b.Flush()
	}
	if err != nil {
		return fmt.Errorf("fat: writing the directories: %w", err)
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

// areaChunk is how much of the FATs or directories moveArea holds at a
// time.
const areaChunk = 1 << 20

// renumbered is the new value of old cluster oc's FAT entry val: a link
// less k, an end, bad or free mark as it is.
func (r *resizer) renumbered(oc, val, k Cluster) (Cluster, error) {
	t := r.v.table
	switch {
	case val == 0 || t.IsEOC(val) || t.IsBad(val):
		return val, nil
	case val >= FirstCluster+k && val <= r.l.MaxCluster():
		return val - k, nil
	}
	return 0, fmt.Errorf("fat: cluster %d leads to cluster %d, which the move should have emptied", oc, val)
}

// wholeFATs writes FAT12/16's new FATs (at most 128 KiB each) and the
// fixed root after them: the old FAT and root are read whole first.
func (r *resizer) wholeFATs(k Cluster) error {
	v, l, a := r.v, r.l, r.area
	oldRaw := make([]byte, l.FATSize)
	if _, err := v.dev.ReadAt(oldRaw, l.FATOffset); err != nil {
		return fmt.Errorf("fat: reading the FAT: %w", err)
	}
	root := make([]byte, l.RootDirSize)
	if _, err := v.dev.ReadAt(root, l.RootDirOffset); err != nil {
		return fmt.Errorf("fat: reading the root directory: %w", err)
	}
	old, err := NewTable(l.Type, oldRaw, l.Clusters)
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
	for c := FirstCluster; c <= r.newMax && c+k <= l.MaxCluster(); c++ {
		val, err := r.renumbered(c+k, old.Get(c+k), k)
		if err != nil {
			return err
		}
		nt.Set(c, val)
	}
	b := v.dev.NewBatch()
	for i := range l.NumFATs {
		if err := b.Write(l.FATOffset+int64(i)*int64(len(raw)), raw); err != nil {
			return fmt.Errorf("fat: writing the FATs: %w", err)
		}
	}
	if err := b.Write(l.FATOffset+int64(l.NumFATs)*int64(len(raw)), renumber(root, k, l.Type)); err != nil {
		return fmt.Errorf("fat: writing the root directory: %w", err)
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("fat: writing the FATs: %w", err)
	}
	v.metaWritten = true
	return nil
}

// streamFATs writes FAT32's new FATs a window at a time: new entry c holds
// old entry c+k renumbered. FAT 1 is rewritten over itself front to back,
// each window's old entries (k further on) read before the window is
// written; the other copies lie past the old FAT 1.
func (r *resizer) streamFATs(k Cluster) error {
	v, l, a := r.v, r.l, r.area
	le := binary.LittleEndian
	newBytes := a.fatSecs * l.SectorSize
	var head [8]byte
	if _, err := v.dev.ReadAt(head[:], l.FATOffset); err != nil {
		return fmt.Errorf("fat: reading the FAT: %w", err)
	}
	oldEnd := int64(l.MaxCluster()+1) * 4 // the old entries' bytes
	in := make([]byte, areaChunk)
	out := make([]byte, areaChunk)
	for pos := int64(0); pos < newBytes; pos += areaChunk {
		if err := fsutil.Cancelled(r.o.Context); err != nil {
			return err
		}
		o := out[:min(areaChunk, newBytes-pos)]
		clear(o)
		from := pos + int64(k)*4 // the old entries' bytes for this window
		var n int64
		if from < oldEnd {
			n = min(int64(len(o)), oldEnd-from)
			if _, err := v.dev.ReadAt(in[:n], l.FATOffset+from); err != nil {
				return fmt.Errorf("fat: reading the FAT: %w", err)
			}
		}
		for i := int64(0); i+4 <= int64(len(o)); i += 4 {
			c := Cluster((pos + i) / 4)
			switch {
			case c < FirstCluster:
				copy(o[i:i+4], head[c*4:c*4+4])
			case c > r.newMax || i >= n:
			default:
				val, err := r.renumbered(c+k, Cluster(le.Uint32(in[i:])&0x0FFFFFFF), k)
				if err != nil {
					return err
				}
				le.PutUint32(o[i:], uint32(val))
			}
		}
		for j := range l.NumFATs {
			if _, err := v.dev.WriteAt(o, l.FATOffset+int64(j)*newBytes+pos); err != nil {
				return fmt.Errorf("fat: writing FAT %d: %w", j+1, err)
			}
		}
		v.metaWritten = true
	}
	return nil
}

// dirExtents walks the tree and returns every directory cluster (FAT32's
// root included, FAT12/16's fixed root not) as runs, reading one cluster
// at a time.
func (r *resizer) dirExtents() ([]Extent, error) {
	v, l := r.v, r.l
	var out []Extent
	stack := []Cluster{0}
	if l.Type == FAT32 {
		stack[0] = Cluster(v.boot.RootCluster)
	}
	var seen []Extent
	raw := make([]byte, max(l.ClusterSize, l.RootDirSize))
	scan := func(b []byte) {
		for i := 0; i+DirEntrySize <= len(b); i += DirEntrySize {
			s := b[i:]
			if s[0] == SlotEnd {
				return
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
	for len(stack) > 0 {
		if err := fsutil.Cancelled(r.o.Context); err != nil {
			return nil, err
		}
		first := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if first == 0 {
			b := raw[:l.RootDirSize]
			if _, err := v.dev.ReadAt(b, l.RootDirOffset); err != nil {
				return nil, err
			}
			scan(b)
			continue
		}
		chain, err := ChainExtents(v.table, first)
		if err != nil {
			return nil, err
		}
		for _, e := range chain {
			seen = append(seen, e)
			for c := e.Start; c < e.End(); c++ {
				b := raw[:l.ClusterSize]
				if _, err := v.dev.ReadAt(b, l.ClusterOffset(c)); err != nil {
					return nil, err
				}
				scan(b)
			}
		}
		out = append(out, chain...)
	}
	slices.SortFunc(seen, func(a, b Extent) int { return cmp.Compare(a.Start, b.Start) })
	for i := 1; i < len(seen); i++ {
		if seen[i-1].End() > seen[i].Start {
			return nil, fmt.Errorf("fat: directory cluster %d is reached twice; run fverify", seen[i].Start)
		}
	}
	return out, nil
}

// eachDirChunk reads the directory clusters of exts, up to len(buf) bytes
// at a time, and hands each piece to fn with its byte offset.
func (r *resizer) eachDirChunk(exts []Extent, buf []byte, fn func(off int64, b []byte) error) error {
	l := r.l
	per := Cluster(max(int64(len(buf))/l.ClusterSize, 1))
	for _, e := range exts {
		for c := e.Start; c < e.End(); {
			n := min(per, e.End()-c)
			b := buf[:int64(n)*l.ClusterSize]
			if _, err := r.v.dev.ReadAt(b, l.ClusterOffset(c)); err != nil {
				return fmt.Errorf("fat: reading directory clusters %d-%d: %w", c, c+n-1, err)
			}
			if err := fn(l.ClusterOffset(c), b); err != nil {
				return err
			}
			c += n
		}
	}
	return nil
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
