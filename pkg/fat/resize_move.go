package fat

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/resize"
)

// moves is what a shrink moves: runs of clusters past the new end (and
// the clusters of each directory copied whole) and where they go, the
// references to switch in place once the copies are durable, and the
// entries to change inside the copies before they are written. It holds
// runs, not clusters, so its memory grows with the moved files'
// fragments and the directories, not with the volume or the bytes moved.
type moves struct {
	runs   []resize.Move // the copies, chain by chain
	byFrom []resize.Move // the same, by old cluster
	count  uint32        // clusters copied
	// links are FAT entries of clusters that stay, whose next cluster
	// moves: entry -> the next cluster's new number.
	links map[Cluster]Cluster
	// entries are directory entries in place (in clusters that stay, or
	// in FAT12/16's fixed root) whose first cluster moves: byte offset on
	// the volume -> new first cluster.
	entries map[int64]Cluster
	// patches are entries inside moved directory clusters: old cluster ->
	// offset in it -> new first cluster.
	patches map[Cluster]map[int64]Cluster
	root    Cluster // FAT32's root directory's new first cluster, or 0
}

// newOf is where cluster c moves, if it does.
func (mv *moves) newOf(c Cluster) (Cluster, bool) {
	i, _ := slices.BinarySearchFunc(mv.byFrom, uint32(c), func(m resize.Move, c uint32) int {
		switch {
		case m.From+m.Len <= c:
			return -1
		case m.From > c:
			return 1
		}
		return 0
	})
	if i < len(mv.byFrom) {
		if m := mv.byFrom[i]; m.From <= uint32(c) && uint32(c) < m.From+m.Len {
			return Cluster(m.To + uint32(c) - m.From), true
		}
	}
	return 0, false
}

// add appends a copy of n clusters from from to to, merging it with the
// previous copy when both continue it.
func (mv *moves) add(from, to Cluster, n uint32) {
	if k := len(mv.runs); k > 0 {
		if p := &mv.runs[k-1]; p.From+p.Len == uint32(from) && p.To+p.Len == uint32(to) {
			p.Len += n
			mv.count += n
			return
		}
	}
	mv.runs = append(mv.runs, resize.Move{From: uint32(from), To: uint32(to), Len: n})
	mv.count += n
}

// rzDir is a directory met in the walk.
type rzDir struct {
	first  Cluster // 0: FAT12/16's fixed root
	moves  bool    // copied whole
	parent *rzDir  // nil for the root
	// entryOff is the byte offset of the entry naming it in its parent;
	// dot and dotdot those of its "." and ".." entries (-1: none).
	entryOff, dot, dotdot int64
}

// findMoves walks the tree and plans what moves where: every cluster
// outside keepLo..keepHi (past the new end, or where the FATs will grow),
// and every cluster of a directory that has one past it or
// whose parent's first cluster moves (its ".." names that cluster). free
// is the volume's free cluster count.
func (r *resizer) findMoves(free uint32) error {
	v, l := r.v, r.l
	mv := &moves{links: map[Cluster]Cluster{}, entries: map[int64]Cluster{}, patches: map[Cluster]map[int64]Cluster{}}
	r.mv = mv
	past := func(e Extent) bool { return e.Start < r.keepLo || e.End()-1 > r.keepHi }
	// chains to move, as runs: each with the entry that names its first
	// cluster (-1: FAT32's root) and the directory holding that entry.
	type owner struct {
		chain  []Extent
		entry  int64
		holder *rzDir
		dir    *rzDir // the chain is this directory's
	}
	var owners []owner
	root := &rzDir{dot: -1, dotdot: -1}
	if l.Type == FAT32 {
		root.first = l.RootCluster
	}
	stack := []*rzDir{root}
	for len(stack) > 0 {
		if err := fsutil.Cancelled(r.o.Context); err != nil {
			return err
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var raw []byte
		var offOf func(i int) int64
		if d.first == 0 {
			raw = make([]byte, l.RootDirSize)
			if _, err := v.dev.ReadAt(raw, l.RootDirOffset); err != nil {
				return fmt.Errorf("fat: reading the root directory: %w", err)
			}
			offOf = func(i int) int64 { return l.RootDirOffset + int64(i) }
		} else {
			chain, err := Chain(v.table, d.first)
			if err != nil {
				return err
			}
			if int64(len(chain))*l.ClusterSize > maxDirBytes {
				return fmt.Errorf("fat: directory at cluster %d holds %d clusters, more than a directory may", d.first, len(chain))
			}
			exts := extentsOf(chain)
			d.moves = slices.ContainsFunc(exts, past) || (d.parent != nil && d.parent.moves && d.parent.first != 0 && d.parent.first != l.RootCluster)
			if d.moves {
				o := owner{chain: exts, entry: -1, dir: d}
				if d.parent != nil {
					o.entry, o.holder = d.entryOff, d.parent
				}
				owners = append(owners, o)
			}
			raw = make([]byte, int64(len(chain))*l.ClusterSize)
			for i, c := range chain {
				if _, err := v.dev.ReadAt(raw[int64(i)*l.ClusterSize:int64(i+1)*l.ClusterSize], l.ClusterOffset(c)); err != nil {
					return fmt.Errorf("fat: reading directory cluster %d: %w", c, err)
				}
			}
			offOf = func(i int) int64 { return l.ClusterOffset(chain[int64(i)/l.ClusterSize]) + int64(i)%l.ClusterSize }
		}
		for i := 0; i+DirEntrySize <= len(raw); i += DirEntrySize {
			s := raw[i : i+DirEntrySize]
			if s[0] == SlotEnd {
				break
			}
			e := DecodeDirEntry(s)
			if s[0] == SlotDeleted || e.IsLongName() || e.IsLabel() {
				continue
			}
			e.ClusterFor(l.Type)
			switch ShortName(e.Name) {
			case DotName:
				d.dot = offOf(i)
				continue
			case DotDotName:
				d.dotdot = offOf(i)
				continue
			}
			if e.Cluster < FirstCluster {
				continue
			}
			if e.IsDir() {
				stack = append(stack, &rzDir{first: e.Cluster, parent: d, entryOff: offOf(i), dot: -1, dotdot: -1})
				continue
			}
			chain, err := ChainExtents(v.table, e.Cluster)
			if err != nil {
				return err
			}
			if slices.ContainsFunc(chain, past) {
				owners = append(owners, owner{chain: chain, entry: offOf(i), holder: d})
			}
		}
	}
	// The pieces of each chain that move: a directory's whole chain, a
	// file's clusters outside keepLo..keepHi, in chain order.
	pieces := func(o owner, fn func(e Extent, moves bool)) {
		for _, e := range o.chain {
			if o.dir != nil {
				fn(e, true)
				continue
			}
			for c := e.Start; c < e.End(); {
				in := c >= r.keepLo && c <= r.keepHi
				n := Cluster(1)
				switch {
				case c < r.keepLo:
					n = min(e.End(), r.keepLo) - c
				case c > r.keepHi:
					n = e.End() - c
				default:
					n = min(e.End(), r.keepHi+1) - c
				}
				fn(Extent{c, uint32(n)}, !in)
				c += n
			}
		}
	}
	var need uint32
	for _, o := range owners {
		pieces(o, func(e Extent, moves bool) {
			if moves {
				need += e.Len
			}
		})
	}
	// Where they go: the free clusters below the new end, in order, chain
	// after chain, so that a moved run stays a run.
	var dest []Extent
	var freeBelow, got uint32
	err := v.FreeRuns(func(e Extent) error {
		lo, hi := max(e.Start, r.keepLo), min(e.End(), r.keepHi+1)
		if lo >= hi {
			return nil
		}
		n := uint32(hi - lo)
		freeBelow += n
		if got < need {
			take := min(n, need-got)
			dest = append(dest, Extent{lo, take})
			got += take
		}
		return nil
	})
	if err != nil {
		return err
	}
	if got < need {
		used := l.Clusters - free
		return &resize.TooSmallError{Asked: r.o.Size, Need: l.DataOffset + int64(used)*l.ClusterSize,
			What: fmt.Sprintf("%d clusters must move below the new end, which has %d free", need, freeBelow)}
	}
	// Hand the destinations out, and note the links: a cluster that stays
	// whose next one moves.
	movedBelow := uint32(0)
	for _, o := range owners {
		prev, prevMoved := Cluster(0), false
		pieces(o, func(e Extent, moves bool) {
			if !moves {
				prev, prevMoved = e.End()-1, false
				return
			}
			if e.Start >= r.keepLo && e.Start <= r.keepHi {
				movedBelow += e.Len
			}
			for from, left := e.Start, e.Len; left > 0; {
				d := &dest[0]
				n := min(left, d.Len)
				if prev != 0 && !prevMoved {
					mv.links[prev] = d.Start
				}
				mv.add(from, d.Start, n)
				prev, prevMoved = from+Cluster(n)-1, true
				from += Cluster(n)
				left -= n
				d.Start += Cluster(n)
				if d.Len -= n; d.Len == 0 {
					dest = dest[1:]
				}
			}
		})
	}
	mv.byFrom = slices.Clone(mv.runs)
	slices.SortFunc(mv.byFrom, func(a, b resize.Move) int { return cmp.Compare(a.From, b.From) })
	for i := 1; i < len(mv.byFrom); i++ {
		if p := mv.byFrom[i-1]; p.From+p.Len > mv.byFrom[i].From {
			return fmt.Errorf("fat: cluster %d belongs to two chains; run fverify", mv.byFrom[i].From)
		}
	}
	// The references to switch.
	inMoved := func(off int64) (Cluster, int64, bool) {
		if off < l.DataOffset {
			return 0, 0, false
		}
		c := Cluster((off-l.DataOffset)/l.ClusterSize) + FirstCluster
		_, moved := mv.newOf(c)
		return c, (off - l.DataOffset) % l.ClusterSize, moved
	}
	patch := func(off int64, to Cluster) {
		if c, in, moved := inMoved(off); moved {
			if mv.patches[c] == nil {
				mv.patches[c] = map[int64]Cluster{}
			}
			mv.patches[c][in] = to
		} else {
			mv.entries[off] = to
		}
	}
	for _, o := range owners {
		first := o.chain[0].Start
		nf, moved := mv.newOf(first)
		if moved {
			if o.entry < 0 {
				mv.root = nf
			} else {
				patch(o.entry, nf)
			}
		}
		if d := o.dir; d != nil && d.parent != nil {
			// "." names the copy; ".." its parent's copy (0 for the root).
			if d.dot >= 0 {
				patch(d.dot, nf)
			}
			if pf := d.parent.first; d.dotdot >= 0 && pf != 0 && pf != l.RootCluster {
				if np, moved := mv.newOf(pf); moved {
					patch(d.dotdot, np)
				}
			}
		}
	}
	// Free below the new end: what was, less the copies, plus the old
	// clusters of directories copied whole from below it.
	r.freeNew = freeBelow - need + movedBelow
	r.p.MoveClusters = int64(need)
	r.p.MoveBytes = int64(need) * l.ClusterSize
	r.p.Steps = append(r.p.Steps,
		fmt.Sprintf("copy %d clusters (%d bytes) from past the new end into free clusters below it, then flush", need, r.p.MoveBytes),
		fmt.Sprintf("write the FAT of the copies, then switch %d FAT entries and %d directory entries to them", len(mv.links), len(mv.entries)))
	if mv.root != 0 {
		r.p.Steps = append(r.p.Steps, fmt.Sprintf("move the root directory from cluster %d to %d", l.RootCluster, mv.root))
	}
	r.p.Steps = append(r.p.Steps, fmt.Sprintf("free the %d old clusters; FSINFO's free count %d", need, r.freeNew))
	return nil
}

// maxDirBytes bounds a directory: 65,536 entries of 32 bytes.
const maxDirBytes = 65536 * DirEntrySize

// move carries the plan out: copies, flush; their FAT, flush; the
// references, flush; the old clusters freed, flush.
func (r *resizer) move() error {
	v, l, mv := r.v, r.l, r.mv
	if len(mv.runs) == 0 {
		return nil
	}
	// 1. The copies, run by run, in large requests; the entries inside
	// moved directory clusters are changed on the way.
	cp := &resize.Copier{
		ClusterSize: l.ClusterSize,
		Offset:      func(c uint32) int64 { return l.ClusterOffset(Cluster(c)) },
		ReadAt: func(p []byte, off int64) (int, error) {
			n, err := v.dev.ReadAt(p, off)
			if err == nil && len(mv.patches) > 0 {
				first := Cluster((off-l.DataOffset)/l.ClusterSize) + FirstCluster
				for k := int64(0); k < int64(len(p))/l.ClusterSize; k++ {
					for in, to := range mv.patches[first+Cluster(k)] {
						setEntryCluster(p[k*l.ClusterSize+in:], to, l.Type)
					}
				}
			}
			return n, err
		},
		Write: func(off int64, p []byte) error {
			_, err := v.dev.WriteAt(p, off)
			return err
		},
		Buf:      make([]byte, min(int64(mv.count)*l.ClusterSize, max(resize.CopyBufSize, l.ClusterSize))),
		Progress: r.o.Progress,
		Total:    r.p.MoveBytes,
	}
	per := uint32(max(int64(len(cp.Buf))/l.ClusterSize, 1))
	for _, m := range mv.runs {
		// A buffer's worth at a time, so that a long run can be cancelled.
		for i := uint32(0); i < m.Len; i += per {
			if err := fsutil.Cancelled(r.o.Context); err != nil {
				return err
			}
			if err := cp.Copy(resize.Move{From: m.From + i, To: m.To + i, Len: min(per, m.Len-i)}); err != nil {
				return fmt.Errorf("fat: %w", err)
			}
		}
	}
	if err := v.barrier(); err != nil {
		return err
	}
	// 2. The copies' FAT: chains no entry reaches yet.
	t := v.table
	for _, m := range mv.runs {
		for i := range m.Len {
			c := Cluster(m.From + i)
			next := t.Get(c)
			if !t.IsEOC(next) {
				if nn, moved := mv.newOf(next); moved {
					next = nn
				}
			}
			t.Set(Cluster(m.To+i), next)
		}
	}
	if err := r.flushFAT(); err != nil {
		return err
	}
	// 3. The references: each switch alone leaves a whole file, since
	// old and new clusters hold the same bytes and the old chain stays.
	for c, to := range mv.links {
		t.Set(c, to)
	}
	if err := r.flushFAT(); err != nil {
		return err
	}
	if err := r.writeEntries(); err != nil {
		return err
	}
	if mv.root != 0 {
		v.boot.RootCluster = uint32(mv.root)
		if err := v.writeBoot(); err != nil {
			return err
		}
	}
	if err := v.barrier(); err != nil {
		return err
	}
	if mv.root != 0 && l.BackupBootOffset != 0 {
		// The backup names the new root too (without the dirty bit, as
		// Linux keeps it), before the old root's clusters are freed.
		if _, err := v.dev.WriteAt(v.cleanBoot(), l.BackupBootOffset); err != nil {
			return fmt.Errorf("fat: writing the backup boot sector: %w", err)
		}
		if err := v.barrier(); err != nil {
			return err
		}
	}
	// 4. The old clusters, now reached by nothing.
	for _, m := range mv.runs {
		for i := range m.Len {
			t.Set(Cluster(m.From+i), 0)
		}
	}
	return r.flushFAT()
}

// flushFAT writes the FAT's changed windows to every copy, then flushes.
func (r *resizer) flushFAT() error {
	if err := r.v.FlushFAT(); err != nil {
		return err
	}
	if err := r.v.table.Err(); err != nil {
		return err
	}
	return r.v.barrier()
}

// writeEntries switches the directory entries in place, a sector at a
// time.
func (r *resizer) writeEntries() error {
	l := r.l
	bySector := map[int64][]int64{}
	for off := range r.mv.entries {
		s := off / l.SectorSize * l.SectorSize
		bySector[s] = append(bySector[s], off)
	}
	sec := make([]byte, l.SectorSize)
	b := r.v.dev.NewBatch()
	for _, s := range slices.Sorted(maps.Keys(bySector)) {
		if _, err := r.v.dev.ReadAt(sec, s); err != nil {
			return fmt.Errorf("fat: reading directory sector at byte %d: %w", s, err)
		}
		for _, off := range bySector[s] {
			setEntryCluster(sec[off-s:], r.mv.entries[off], l.Type)
		}
		if err := b.Write(s, slices.Clone(sec)); err != nil {
			return fmt.Errorf("fat: writing directory sector at byte %d: %w", s, err)
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("fat: writing directory entries: %w", err)
	}
	r.v.metaWritten = true
	return nil
}

// setEntryCluster sets the first cluster of the short entry at b's start
// (on FAT12/16 the high word is not the cluster's and stays).
func setEntryCluster(b []byte, c Cluster, t Type) {
	le := binary.LittleEndian
	le.PutUint16(b[direntClusterLow:], uint16(c))
	if t == FAT32 {
		le.PutUint16(b[direntClusterHigh:], uint16(uint32(c)>>16))
	}
}
