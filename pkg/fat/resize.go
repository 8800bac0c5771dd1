package fat

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/resize"
	fio "github.com/ftools/ftools/pkg/io"
)

// ErrFATFull says growing the volume needs a larger FAT than the one it
// has: the data area would have to move (exFAT's Resize refuses the same
// way, with the same error).
var ErrFATFull = resize.ErrFATFull

// FATFullError is Resize's refusal to grow past what the FAT can count; it
// matches ErrFATFull and names the largest size the FAT can count.
type FATFullError = resize.FATFullError

// Resize grows or shrinks the FAT12/16/32 volume that starts at dev's
// offset 0 to o.Size bytes (rounded down to whole sectors and clusters),
// keeping its cluster size and its FAT size. Growing needs the device to
// hold o.Size bytes already, and FATs with room for the new clusters'
// entries (a FAT larger than its clusters need is valid; a volume whose
// FAT is full is refused with ErrFATFull, naming the largest size that
// fits). Shrinking moves every cluster past the new end into free
// clusters below it; a shrunk volume keeps its FAT size, which is larger
// than it needs and valid. A new size whose cluster count crosses the
// type's limits is refused with resize.ErrTypeLimit; data that does not
// fit with a *resize.TooSmallError. A refusal writes nothing.
//
// The writes keep the crash order: moved data, flush; the FAT of the
// new chains, flush; the references to them (FAT entries of the chains'
// kept clusters, directory entries, FAT32's root cluster), flush; the old
// clusters freed and FSINFO, flush; the boot sector with the new size and
// its backup, each flushed (a shrink writes the backup first, so that
// the primary, still the old one, never looks suspect beside it). A directory whose first cluster moves is
// copied whole, its subdirectories with it (their ".." entries name it),
// so that one entry switches the whole subtree from its old copy to its
// new one. A cut leaves the old size or the new, every file whole, with at
// worst the dirty bit, lost clusters, a stale free count, or a backup boot
// sector that differs from the primary.
func Resize(dev *fio.Device, o resize.Options) (*resize.Plan, error) {
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	// The volume may grow into the whole window dev was opened on, which
	// opening the volume limits to the boot sector's size.
	dev.Unlimit()
	v, err := openVolume(dev, false)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	dev.Unlimit()
	r := &resizer{v: v, l: v.layout, o: o}
	if err := r.plan(); err != nil {
		return nil, err
	}
	if o.DryRun || r.p.NewSize == r.p.OldSize {
		return r.p, v.Close()
	}
	if r.p.Unsafe != "" && !o.Force {
		return r.p, fmt.Errorf("fat: %s: %w", r.p.Unsafe, resize.ErrUnsafe)
	}
	if !dev.Writable() {
		return r.p, ErrReadOnly
	}
	if err := v.begin(); err != nil {
		return r.p, err
	}
	if err := v.markDirty(true); err != nil {
		return r.p, err
	}
	switch {
	case r.area != nil:
		if err = r.move(); err == nil {
			err = r.moveArea()
		}
	case r.shrink:
		err = r.move()
	default:
		err = r.growFAT()
	}
	if err == nil {
		err = r.commit()
	}
	if err != nil {
		return r.p, err
	}
	return r.p, v.Close()
}

// resizer is one Resize.
type resizer struct {
	v *Volume
	l *Layout
	o resize.Options
	p *resize.Plan

	shrink   bool
	newTotal uint32  // sectors
	newCount uint32  // clusters
	newMax   Cluster // the last cluster that stays
	// keepLo and keepHi are the clusters (old numbers) that stay where
	// they are; the rest that are in use move between them.
	keepLo, keepHi Cluster
	area           *areaMove // a growth that moves the data area, or nil
	freeNew        uint32    // free clusters the resized volume will have
	mv             *moves    // shrink: what moves where
}

// ctx is the resize's context.
func (r *resizer) ctx() context.Context {
	if r.o.Context == nil {
		return context.Background()
	}
	return r.o.Context
}

// plan checks the new size and fills r.p; a shrink also finds what moves.
func (r *resizer) plan() error {
	l := r.l
	ss := l.SectorSize
	spc := l.ClusterSize / ss
	dataSec := l.DataOffset / ss
	r.p = &resize.Plan{Type: l.Type.String(), OldSize: l.TotalSize, ClusterSize: l.ClusterSize,
		OldClusters: l.Clusters, OldFATSectors: uint32(l.FATSize / ss), NewFATSectors: uint32(l.FATSize / ss), DryRun: r.o.DryRun}
	if r.o.Size < 0 {
		return fmt.Errorf("fat: resize: negative size %d", r.o.Size)
	}
	total := r.o.Size / ss
	if total > 0xFFFFFFFF {
		return fmt.Errorf("fat: resize to %d bytes: more than the %d sectors a FAT boot sector can count: %w", r.o.Size, uint32(0xFFFFFFFF), resize.ErrTypeLimit)
	}
	minSize := (dataSec + spc) * ss
	if total < dataSec+spc {
		return &resize.TooSmallError{Asked: r.o.Size, Need: minSize, What: "the reserved sectors, FATs and root directory leave no room for a cluster"}
	}
	clusters := (total - dataSec) / spc
	if clusters > 0xFFFFFFFF {
		clusters = 0xFFFFFFFF
	}
	r.newCount = uint32(clusters)
	if err := r.typeLimits(); err != nil {
		return err
	}
	if need := fatBytes(l.Type, r.newCount); need > l.FATSize {
		if r.o.Undo == nil {
			return r.fatFull(need)
		}
		return r.planAreaMove(total)
	}
	if r.newCount == l.Clusters && total > int64(l.TotalSize/ss) {
		// No new whole cluster: keep the size (a partial cluster at the
		// end is of no use).
		total = l.TotalSize / ss
	}
	r.newTotal = uint32(total)
	r.newMax = Cluster(r.newCount) + 1
	r.keepLo, r.keepHi = FirstCluster, r.newMax
	r.p.NewSize, r.p.NewClusters = total*ss, r.newCount
	// A dry run plans a growth its caller has yet to make room for.
	if err := resize.CheckRoom("fat", r.p.NewSize, r.v.dev.Size(), r.o.DryRun); err != nil {
		return err
	}
	free := r.v.freeCount()
	if err := r.v.table.Err(); err != nil {
		return err
	}
	switch {
	case r.p.NewSize == r.p.OldSize:
		r.p.Steps = append(r.p.Steps, "nothing to do: the volume has this size already")
		return nil
	case r.newCount >= l.Clusters:
		r.freeNew = free + (r.newCount - l.Clusters)
		r.p.Steps = append(r.p.Steps,
			fmt.Sprintf("mark the FAT entries of clusters %d-%d free (the FAT's %d sectors hold them)", l.MaxCluster()+1, r.newMax, l.FATSize/ss),
			fmt.Sprintf("set FSINFO's free count to %d", r.freeNew))
	default:
		r.shrink = true
		if err := r.findMoves(free); err != nil {
			return err
		}
	}
	r.p.Steps = append(r.p.Steps, fmt.Sprintf("write the boot sector and its backup: %d sectors (%d bytes), %d clusters", total, total*ss, r.newCount))
	return nil
}

// typeLimits refuses a cluster count the type cannot have: FAT12 and
// FAT16 are told apart by it, and FAT32 keeps within its range (a FAT32
// volume made small on purpose may stay below FAT16's limit). The refusal
// (*resize.TypeLimitError) names the nearest size the layout holds and a
// type and cluster size a new file system of the size asked for could
// have.
func (r *resizer) typeLimits() error {
	l := r.l
	n := r.newCount
	var why string
	var edge int64 // the nearest cluster count the type allows
	switch l.Type {
	case FAT12, FAT16:
		if t := TypeForClusters(n); t != l.Type {
			why = fmt.Sprintf("%d clusters of %d bytes make %s, not %s", n, l.ClusterSize, t, l.Type)
			switch {
			case l.Type == FAT12:
				why += fmt.Sprintf(" (FAT12 counts at most %d)", MinClusters16-1)
				edge = MinClusters16 - 1
			case n < MinClusters16:
				why += fmt.Sprintf(" (FAT16 counts at least %d)", MinClusters16)
				edge = MinClusters16
			default:
				why += fmt.Sprintf(" (FAT16 counts at most %d)", MinClusters32-1)
				edge = MinClusters32 - 1
			}
		}
	case FAT32:
		if n > MaxClusters32 {
			why = fmt.Sprintf("%d clusters of %d bytes are more than FAT32's %d", n, l.ClusterSize, MaxClusters32)
			edge = MaxClusters32
		} else if n < MinClusters32 && l.Clusters >= MinClusters32 {
			why = fmt.Sprintf("%d clusters of %d bytes are fewer than FAT32's %d", n, l.ClusterSize, MinClusters32)
			edge = MinClusters32
		}
	}
	if why == "" {
		return nil
	}
	e := &resize.TypeLimitError{Asked: r.o.Size, Why: why}
	e.Nearest = l.DataOffset + edge*l.ClusterSize
	e.NearestMovesData = edge > r.fatCounts()
	for _, t := range []Type{l.Type, FAT12, FAT16, FAT32} {
		_, nl, err := Plan(FormatParams{Size: r.o.Size, SectorSize: int(l.SectorSize), Type: t, NumFATs: l.NumFATs})
		if err == nil && (t != l.Type || nl.ClusterSize != l.ClusterSize) {
			e.MakeType, e.MakeClusterSize = strings.TrimPrefix(t.String(), "FAT"), nl.ClusterSize
			break
		}
	}
	return fmt.Errorf("fat: %w", e)
}

// fatCounts is the largest cluster count the FAT as it is can hold, within
// the type's limits.
func (r *resizer) fatCounts() int64 {
	l := r.l
	var fits int64
	switch l.Type {
	case FAT12:
		fits = min(l.FATSize*2/3-2, MinClusters16-1)
	case FAT16:
		fits = min(l.FATSize/2-2, MinClusters32-1)
	default:
		fits = min(l.FATSize/4-2, MaxClusters32)
	}
	return fits
}

// fatFull refuses a growth whose clusters the FAT cannot count, naming the
// sectors it would need and the largest size it can count.
func (r *resizer) fatFull(need int64) error {
	l := r.l
	ss := l.SectorSize
	more := (need - l.FATSize + ss - 1) / ss
	fits := r.fatCounts()
	largest := l.DataOffset + fits*l.ClusterSize
	return &FATFullError{Asked: r.o.Size, Largest: largest, Msg: fmt.Sprintf("fat: resize to %d bytes: %d clusters need %d more FAT sectors (%d per FAT, %d spare): the data area would move, which needs an undo file (and --force); the largest size this FAT can count is %d bytes",
		r.o.Size, r.newCount, more, l.FATSize/ss, (l.FATSize-fatBytes(l.Type, l.Clusters))/ss, largest)}
}

// growFAT marks the new clusters' FAT entries free in every copy, where
// they are not already (a bad mark stays), and FSINFO's free count.
func (r *resizer) growFAT() error {
	l := r.l
	lo, hi := entryBytes(l.Type, l.Entries(), r.newCount+2)
	lo = lo / l.SectorSize * l.SectorSize
	hi = min((hi+l.SectorSize-1)/l.SectorSize*l.SectorSize, l.FATSize)
	const chunk = 4 << 20
	buf := make([]byte, min(hi-lo, chunk))
	for pos := lo; pos < hi; pos += chunk {
		b := buf[:min(chunk, hi-pos)]
		if _, err := r.v.dev.ReadAt(b, l.FATOffset+pos); err != nil {
			return fmt.Errorf("fat: reading the FAT: %w", err)
		}
		if !clearEntries(l.Type, b, pos, l.Entries(), r.newCount+2) {
			continue
		}
		bt := r.v.dev.NewBatch()
		for k := range l.NumFATs {
			if err := bt.Write(l.FATCopyOffset(k)+pos, b); err != nil {
				return fmt.Errorf("fat: writing the FAT: %w", err)
			}
		}
		if err := bt.Flush(); err != nil {
			return fmt.Errorf("fat: writing the FAT: %w", err)
		}
		r.v.metaWritten = true
	}
	return r.v.barrier()
}

// entryBytes is the byte range of the FAT that entries [from, to) use.
func entryBytes(t Type, from, to uint32) (int64, int64) {
	switch t {
	case FAT12:
		return int64(from) * 3 / 2, (int64(to)*3 + 1) / 2
	case FAT16:
		return int64(from) * 2, int64(to) * 2
	}
	return int64(from) * 4, int64(to) * 4
}

// clearEntries sets entries [from, to) that lie in b (the FAT's bytes from
// byte pos) free, unless free or bad already, and reports whether it
// changed anything.
func clearEntries(t Type, b []byte, pos int64, from, to uint32) bool {
	changed := false
	le := binary.LittleEndian
	for c := from; c < to; c++ {
		switch t {
		case FAT32:
			off := int64(c)*4 - pos
			if off < 0 || off+4 > int64(len(b)) {
				continue
			}
			v := le.Uint32(b[off:])
			if v&mask32 != 0 && v&mask32 != bad32 {
				le.PutUint32(b[off:], v&^mask32)
				changed = true
			}
		case FAT16:
			off := int64(c)*2 - pos
			if off < 0 || off+2 > int64(len(b)) {
				continue
			}
			if v := le.Uint16(b[off:]); v != 0 && Cluster(v) != bad16 {
				le.PutUint16(b[off:], 0)
				changed = true
			}
		case FAT12:
			off := int64(c)*3/2 - pos
			if off < 0 || off+2 > int64(len(b)) {
				continue
			}
			w := le.Uint16(b[off:])
			v, keep := w&0xFFF, w&0xF000
			if c&1 == 1 {
				v, keep = w>>4, w&0x000F
			}
			if v != 0 && Cluster(v) != bad12 {
				le.PutUint16(b[off:], keep)
				changed = true
			}
		}
	}
	return changed
}

// commit writes FSINFO, then the boot sector with the new size (the dirty
// bit cleared) and its backup, each flushed: the primary first when
// growing, last when shrinking (see below).
func (r *resizer) commit() error {
	v := r.v
	if v.info != nil {
		v.info.FreeCount = r.freeNew
		if nf := v.info.NextFree; nf != FSInfoUnknown && (nf < 2 || Cluster(nf) > r.newMax) {
			v.info.NextFree = FSInfoUnknown
		}
		v.infoDirty = true
		if err := v.flushFSInfo(); err != nil {
			return err
		}
		if err := v.barrier(); err != nil {
			return err
		}
	}
	bs := v.boot
	if bs.Is32 || r.newTotal > 0xFFFF {
		bs.TotalSectors16, bs.TotalSectors32 = 0, r.newTotal
	} else {
		bs.TotalSectors16, bs.TotalSectors32 = uint16(r.newTotal), 0
	}
	bs.SetDirty(false)
	bs.EncodeOver(v.raw)
	// Between the two writes the pair differs, and a checker weighs each
	// against the device (boot_judge.go): it calls a boot sector whose
	// FATs are far larger than its clusters need suspect, which a shrunk
	// volume's is. So the sector that is sound goes to the primary, which
	// every reader uses, first: the new one when growing; when shrinking
	// the old one stays there while the new goes to the backup, and the
	// primary is the commit.
	backup := func() error {
		if r.l.BackupBootOffset == 0 {
			return nil
		}
		if _, err := v.dev.WriteAt(v.raw, r.l.BackupBootOffset); err != nil {
			return fmt.Errorf("fat: writing the backup boot sector: %w", err)
		}
		return v.barrier()
	}
	primary := func() error {
		if err := v.writeBoot(); err != nil {
			return err
		}
		return v.barrier()
	}
	first, second := primary, backup
	if r.shrink {
		first, second = backup, primary
	}
	if err := first(); err != nil {
		return err
	}
	if err := second(); err != nil {
		return err
	}
	v.dirty.Set = false
	return nil
}

// cleanBoot is a copy of the boot sector as it stands, without the dirty
// bit: what the backup holds, and what an undo file saves.
func (v *Volume) cleanBoot() []byte {
	b := append([]byte(nil), v.raw...)
	state := ext16 + relState
	if v.boot.Is32 {
		state = ext32 + relState
	}
	b[state] &^= stateDirty
	return b
}
