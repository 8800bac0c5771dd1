package exfat

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/ftools/ftools/pkg/internal/resize"
	fio "github.com/ftools/ftools/pkg/io"
)

// Resize grows or shrinks the exFAT volume that starts at dev's offset 0
// to o.Size bytes, in place (see pkg/internal/resize). When growing, dev
// already holds o.Size bytes; after a shrink the caller shortens it.
//
// Shrinking moves every cluster in use past the new end (file data,
// directories, the up-case table, the allocation bitmap) into free
// clusters below it, directories deepest first so that an entry is only
// rewritten in a directory that stays where it is, in rounds that each
// keep the crash order: the copies are written and flushed, the clusters
// they went to are marked in the bitmap and the FAT links among them
// written, flushed; then the links from clusters that stay and the entry
// sets (FirstCluster, NoFatChain, set checksum) are switched, flushed; then
// the old clusters are marked free. A contiguous (NoFatChain) file whose
// run crosses the end gets a new run of its own when one is free, else
// keeps what lies below the end and becomes a FAT chain. Only then is the
// boot region changed: the main one (its checksum sector recomputed), a
// flush, the backup, a flush. The bitmap's DataLength is shortened after
// that (a bitmap longer than the cluster count needs is valid).
//
// Growing zeroes the FAT sectors and bitmap bytes the new clusters need,
// lengthens the FAT into the gap before the cluster heap (refused,
// wrapping resize.ErrUnsafe, when the heap would have to move), extends
// the bitmap into the cluster after it or moves it to a free run of the
// old heap, and then writes the boot region.
//
// A cut at any point leaves the old volume or the new one, every file
// whole, with at worst lost clusters and the dirty flag (fverify --repair
// tidies them). A refusal writes nothing; so does o.DryRun, which only
// fills the plan.
func Resize(dev *fio.Device, o resize.Options) (*resize.Plan, error) {
	if o.Context == nil {
		o.Context = context.Background()
	}
	v, err := Open(dev)
	if err != nil {
		return nil, err
	}
	r := &resizer{v: v, o: o}
	plan, err := r.run()
	if cerr := v.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return plan, err
}

// resizer is one resize's state.
type resizer struct {
	v    *Volume
	o    resize.Options
	plan *resize.Plan

	oldN, newN uint32
	secs       uint64 // the new VolumeLength
	fatLen     uint32 // the new FatLength
	end        Cluster
	newRoot    Cluster // the root directory's new first cluster, if it moved
	cur        Cluster // where the search for free clusters below end goes on
	freeBelow  int64   // free clusters below end
	reserve    int64   // clusters past end still to be placed
	cp         resize.Copier
}

func (r *resizer) run() (*resize.Plan, error) {
	v, o := r.v, r.o
	l, bs := v.layout, v.boot
	switch {
	case !v.writable && !o.DryRun:
		return nil, ErrReadOnly
	case v.fromBackup:
		return nil, fmt.Errorf("%w: the main boot region is damaged (%v); repair the volume first", ErrUnsupported, v.bootErr)
	case v.bootConflict != nil:
		return nil, fmt.Errorf("%w: %v; repair the volume first", ErrCorrupt, v.bootConflict)
	case v.bitmap == nil:
		return nil, fmt.Errorf("%w: the allocation bitmap is unusable; repair the volume first", ErrCorrupt)
	case bs.NumberOfFATs != 1:
		return nil, fmt.Errorf("%w: resizing a volume with two FATs (TexFAT)", ErrUnsupported)
	case bs.Dirty():
		return nil, fmt.Errorf("%w: the volume is marked dirty (it was not unmounted cleanly); run fverify --repair first", ErrUnsupported)
	}
	ss := l.SectorSize
	secs := o.Size / ss
	heap := int64(bs.ClusterHeapOffset)
	r.oldN = l.Clusters
	used := int64(v.bitmap.n - v.bitmap.free)
	// At the smallest size, the bitmap and up-case table move if they lie
	// past its end, and each is copied whole before its old clusters are
	// freed: they count twice.
	twice, err := r.movedWhole(FirstCluster + Cluster(used))
	if err != nil {
		return nil, err
	}
	tooSmall := func(what string) error {
		need := max(heap+(used+twice)<<bs.ClusterShift, (1<<20)/ss) * ss
		return &resize.TooSmallError{Asked: o.Size, Need: need, What: what}
	}
	if o.Size < 1<<20 || secs <= heap {
		return nil, tooSmall(fmt.Sprintf("the cluster heap starts at byte %d", heap*ss))
	}
	nc := uint64(secs-heap) >> bs.ClusterShift
	if nc > MaxClusterCount {
		return nil, fmt.Errorf("%w: %d clusters of %d bytes exceed exFAT's %d", resize.ErrTypeLimit, nc, l.ClusterSize, uint32(MaxClusterCount))
	}
	if nc == 0 {
		return nil, tooSmall("")
	}
	r.newN, r.secs = uint32(nc), uint64(secs)
	r.fatLen = bs.FATLength
	if need := uint32((int64(nc+2)*4 + ss - 1) / ss); need > r.fatLen {
		r.fatLen = need
	}
	oldBitmap := int64(v.bitmapEnt.DataLength)
	r.plan = &resize.Plan{
		Type: "exFAT", OldSize: l.TotalSize, NewSize: secs * ss, ClusterSize: l.ClusterSize,
		OldClusters: r.oldN, NewClusters: r.newN, OldFATSectors: bs.FATLength, NewFATSectors: r.fatLen,
		OldBitmapBytes: oldBitmap, NewBitmapBytes: (int64(nc) + 7) / 8, DryRun: o.DryRun,
	}
	if r.newN < r.oldN {
		r.plan.NewFATSectors = bs.FATLength
		return r.plan, r.shrink(tooSmall)
	}
	// A dry run plans a grow past the device's end (FAT's rule: the
	// caller extends the image or partition only once the plan holds).
	if err := resize.CheckRoom("exfat", r.plan.NewSize, v.dev.Size(), o.DryRun); err != nil {
		return nil, err
	}
	return r.plan, r.grow()
}

func (r *resizer) step(format string, args ...any) {
	r.plan.Steps = append(r.plan.Steps, fmt.Sprintf(format, args...))
}

// start readies the volume for its first change (the dirty flag goes
// out with the first write) and makes sure no cluster a file uses is
// handed out because the bitmap wrongly marks it free.
func (r *resizer) start() error {
	if err := r.v.begin(); err != nil {
		return err
	}
	return r.v.guardBitmap()
}

// sync flushes the device unless the sync policy is none.
func (r *resizer) sync() error {
	if r.v.dev.Policy() == fio.SyncNone {
		return nil
	}
	return r.v.dev.Sync()
}

// A round of moves takes at most this many files and directories, or
// bytes to copy: what it holds in memory (their records, pinned
// directories) stays bounded. Variables so that tests can make rounds
// small.
var resizeChunkItems, resizeChunkBytes = 512, int64(1 << 30)

// item is a file or directory with clusters past the new end.
type item struct {
	path  string
	depth int
	past  int64
}

// pastOf counts the clusters of exts at or past end.
func pastOf(exts []Extent, end Cluster) int64 {
	var n int64
	for _, e := range exts {
		if e.End() > end {
			n += int64(e.End() - max(e.Start, end))
		}
	}
	return n
}

// fullBitmapExtents is the bitmap's whole chain, as its entry's DataLength
// has it (which may exceed what the cluster count needs).
func (v *Volume) fullBitmapExtents() ([]Extent, error) {
	n, ok := v.layout.lengthClusters(v.bitmapEnt.DataLength)
	if !ok || n == 0 {
		return nil, corruptf("allocation bitmap entry", "data length", -1, v.bitmapEnt.DataLength, "is out of range")
	}
	return v.fat.chainN(v.layout, v.bitmapEnt.FirstCluster, n)
}

func (v *Volume) upcaseExtents() ([]Extent, error) {
	if v.upcaseEnt.Type == 0 {
		return nil, nil
	}
	n, ok := v.layout.lengthClusters(v.upcaseEnt.DataLength)
	if !ok || n == 0 {
		return nil, corruptf("up-case table entry", "data length", -1, v.upcaseEnt.DataLength, "is out of range")
	}
	return v.fat.chainN(v.layout, v.upcaseEnt.FirstCluster, n)
}

// movedWhole is the clusters of the up-case table and the bitmap that a
// shrink whose end is cluster end copies (the ones with clusters past it).
func (r *resizer) movedWhole(end Cluster) (int64, error) {
	bmExts, err := r.v.fullBitmapExtents()
	if err != nil {
		return 0, err
	}
	upExts, err := r.v.upcaseExtents()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, exts := range [][]Extent{bmExts, upExts} {
		if pastOf(exts, end) > 0 {
			n += extentsClusters(exts)
		}
	}
	return n, nil
}

func (r *resizer) shrink(tooSmall func(string) error) error {
	v, l := r.v, r.v.layout
	r.end = Cluster(r.newN) + FirstCluster
	end := r.end
	cs := l.ClusterSize
	rootPast := pastOf(v.root().exts, end)
	// Everything with clusters past the end, found by walking the tree.
	var items []item
	maxDepth := 0
	walkErr := fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rec := fi.Sys().(*Record)
		exts, err := v.recordExtents(rec)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if n := pastOf(exts, end); n > 0 {
			depth := strings.Count(p, "/") + 1
			items = append(items, item{p, depth, n})
			maxDepth = max(maxDepth, depth)
		}
		return nil
	})
	if walkErr != nil {
		return fmt.Errorf("exfat: reading the tree: %w", walkErr)
	}
	bmExts, err := v.fullBitmapExtents()
	if err != nil {
		return err
	}
	upExts, err := v.upcaseExtents()
	if err != nil {
		return err
	}
	var need int64
	for _, it := range items {
		need += it.past
	}
	// The up-case table and the bitmap move whole, each to one run: the
	// Linux driver reads both as contiguous, whatever their FAT chains say.
	var upMove, bmMove int64
	if pastOf(upExts, end) > 0 {
		upMove = extentsClusters(upExts)
	}
	if pastOf(bmExts, end) > 0 {
		bmMove = extentsClusters(bmExts)
	}
	filesNeed := need
	need += upMove + bmMove + rootPast
	b := v.bitmap
	if v.writable {
		// Clusters files use that the bitmap marks free are not free.
		if err := v.guardBitmap(); err != nil {
			return err
		}
	}
	r.freeBelow = int64(b.countFree(FirstCluster, end))
	if need > r.freeBelow {
		what := fmt.Sprintf("%d clusters in use lie past the new end and only %d are free before it", need, r.freeBelow)
		var largest item
		for _, it := range items {
			if it.past > largest.past {
				largest = it
			}
		}
		if largest.path != "" {
			what += fmt.Sprintf("; the most of them, %d, are /%s's", largest.past, largest.path)
		}
		return tooSmall(what)
	}
	r.cur = FirstCluster
	var upRun, bmRun Extent
	undo := func() {
		for _, e := range []Extent{upRun, bmRun} {
			b.mark(e, false)
		}
		clear(b.dirty)
	}
	for _, sf := range []struct {
		n    int64
		run  *Extent
		what string
	}{{upMove, &upRun, "up-case table"}, {bmMove, &bmRun, "allocation bitmap"}} {
		if sf.n == 0 {
			continue
		}
		e, ok := r.findRun(uint32(sf.n))
		if !ok {
			undo()
			return tooSmall(fmt.Sprintf("the %s (%d clusters) lies past the new end and no free run of its length is left before it", sf.what, sf.n))
		}
		b.mark(e, true)
		r.freeBelow -= sf.n
		*sf.run = e
	}
	r.reserve = need - upMove - bmMove
	r.plan.MoveClusters = need
	r.plan.MoveBytes = need * cs
	if upMove > 0 {
		r.step("move the up-case table (%d clusters) to clusters %d-%d and repoint its entry", upMove, upRun.Start, upRun.End()-1)
	}
	if bmMove > 0 {
		r.step("move the allocation bitmap (%d clusters) to clusters %d-%d and repoint its entry", bmMove, bmRun.Start, bmRun.End()-1)
	}
	if len(items) > 0 {
		r.step("move %d files and directories with %d clusters past cluster %d into free clusters below it, deepest first", len(items), filesNeed, end-1)
	}
	if rootPast > 0 {
		r.step("move the root directory's %d clusters past the end (its first cluster, if among them, changes with the boot region)", rootPast)
	}
	r.step("write the main boot region (VolumeLength %d sectors, ClusterCount %d, checksum), then the backup", r.secs, r.newN)
	if nb := r.plan.NewBitmapBytes; uint64(nb) < v.bitmapEnt.DataLength {
		r.step("shorten the allocation bitmap to %d bytes", nb)
	}
	if r.o.DryRun {
		undo()
		return nil
	}
	if err := r.start(); err != nil {
		return err
	}
	r.cp = resize.Copier{
		ClusterSize: cs, Buf: make([]byte, max(resize.CopyBufSize, cs)),
		Offset: func(c uint32) int64 { return l.ClusterOffset(Cluster(c)) },
		ReadAt: v.dev.ReadAt, Write: v.writeData, Progress: r.o.Progress, Total: need * cs,
	}
	if upMove > 0 {
		if err := r.moveUpcase(upExts, upRun); err != nil {
			return err
		}
	}
	if bmMove > 0 {
		if err := r.moveBitmap(bmExts, bmRun); err != nil {
			return err
		}
		bmExts = []Extent{bmRun}
	}
	for depth := maxDepth; depth >= 1; depth-- {
		var chunk []item
		var bytes int64
		for _, it := range items {
			if it.depth != depth {
				continue
			}
			chunk = append(chunk, it)
			bytes += it.past * cs
			if len(chunk) >= resizeChunkItems || bytes >= resizeChunkBytes {
				if err := r.moveChunk(chunk); err != nil {
					return err
				}
				chunk, bytes = nil, 0
			}
		}
		if err := r.moveChunk(chunk); err != nil {
			return err
		}
	}
	if rootPast > 0 {
		if err := r.moveRoot(); err != nil {
			return err
		}
	}
	// Clusters past the end that are still marked (lost ones) are freed;
	// not the root's first cluster while the boot sector names it.
	for c := end; c <= l.MaxCluster(); c++ {
		if b.used(c) && c != l.RootCluster {
			b.mark(Extent{c, 1}, false)
		}
	}
	if err := v.Commit(); err != nil {
		return err
	}
	live := uint32(0)
	if l.RootCluster >= end {
		live = 1
	}
	if n := b.countUsed(end, l.MaxCluster()+1); n > live {
		return fmt.Errorf("exfat: %d clusters past the new end are still in use; nothing was shrunk", n-live)
	}
	if err := r.o.Context.Err(); err != nil {
		// Everything moved is whole where it now lies; the volume keeps
		// its old size.
		return err
	}
	if err := r.writeBoot(); err != nil {
		return err
	}
	// The bitmap's tail: its entry first, then its chain's end and its
	// surplus clusters.
	nb := uint64(r.plan.NewBitmapBytes)
	if v.bitmapEnt.DataLength > nb {
		keep := (int64(nb) + cs - 1) / cs
		r.setSysEntry(TypeBitmap, func(e *AllocEntry) { e.DataLength = nb })
		if err := v.Commit(); err != nil {
			return err
		}
		if extentsClusters(bmExts) > keep {
			kept, freed := splitExtents(bmExts, keep)
			if err := v.fat.Set(kept[len(kept)-1].End()-1, fatEOC); err != nil {
				return err
			}
			v.pendingFree = append(v.pendingFree, freed...)
			b.exts = kept
			if err := v.Commit(); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitExtents cuts exts after k clusters.
func splitExtents(exts []Extent, k int64) (kept, rest []Extent) {
	for _, e := range exts {
		switch {
		case k >= int64(e.Len):
			kept = append(kept, e)
			k -= int64(e.Len)
		case k > 0:
			kept = append(kept, Extent{e.Start, uint32(k)})
			rest = append(rest, Extent{e.Start + Cluster(k), e.Len - uint32(k)})
			k = 0
		default:
			rest = append(rest, e)
		}
	}
	return kept, rest
}

// countFree counts the free clusters in [from, to).
func (b *bitmap) countFree(from, to Cluster) uint32 {
	return uint32(to-from) - b.countUsed(from, to)
}

// countUsed counts the clusters marked in use in [from, to).
func (b *bitmap) countUsed(from, to Cluster) uint32 {
	var n uint32
	to = min(to, FirstCluster+Cluster(b.n))
	for c := from; c < to; {
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+8 <= to {
			n += uint32(bits.OnesCount8(b.bits[i/8]))
			c += 8
			continue
		}
		if b.used(c) {
			n++
		}
		c++
	}
	return n
}

// nextFree finds the first free cluster at or after from and below r.end
// and returns the free run it starts (cut at r.end).
func (r *resizer) nextFree(from Cluster) (Extent, bool) {
	b := r.v.bitmap
	c := max(from, FirstCluster)
	for c < r.end {
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+8 <= r.end && b.bits[i/8] == 0xFF {
			c += 8
			continue
		}
		if !b.used(c) {
			break
		}
		c++
	}
	if c >= r.end {
		return Extent{}, false
	}
	s := c
	for c < r.end {
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+8 <= r.end && b.bits[i/8] == 0 {
			c += 8
			continue
		}
		if b.used(c) {
			break
		}
		c++
	}
	return Extent{s, uint32(c - s)}, true
}

// findRun finds n free clusters in one run below r.end, from the cursor
// on, then from the start.
func (r *resizer) findRun(n uint32) (Extent, bool) {
	for _, span := range [][2]Cluster{{r.cur, r.end}, {FirstCluster, r.cur}} {
		for c := span[0]; c < span[1]; {
			e, ok := r.nextFree(c)
			if !ok || e.Start >= span[1] {
				break
			}
			if e.Len >= n {
				return Extent{e.Start, n}, true
			}
			c = e.End()
		}
	}
	return Extent{}, false
}

// take hands out n free clusters below r.end (one run if there is one,
// else the free runs from the cursor on) and marks them in use.
func (r *resizer) take(n uint32) ([]resize.Run, error) {
	b := r.v.bitmap
	var got []resize.Run
	if e, ok := r.findRun(n); ok {
		got = []resize.Run{{Start: uint32(e.Start), Len: n}}
	} else {
		left := n
		c, wrapped := r.cur, false
		for left > 0 {
			e, ok := r.nextFree(c)
			if !ok {
				if wrapped {
					return nil, fmt.Errorf("%w: no free clusters are left below cluster %d", resize.ErrTooSmall, r.end)
				}
				c, wrapped = FirstCluster, true
				continue
			}
			k := min(e.Len, left)
			got = append(got, resize.Run{Start: uint32(e.Start), Len: k})
			b.mark(Extent{e.Start, k}, true)
			left -= k
			c = e.Start + Cluster(k)
		}
		for _, g := range got {
			b.mark(Extent{Cluster(g.Start), g.Len}, false)
		}
	}
	for _, g := range got {
		b.mark(Extent{Cluster(g.Start), g.Len}, true)
	}
	last := got[len(got)-1]
	r.cur = Cluster(last.End())
	if r.cur >= r.end {
		r.cur = FirstCluster
	}
	r.freeBelow -= int64(n)
	return got, nil
}

func toRuns(exts []Extent) []resize.Run {
	out := make([]resize.Run, len(exts))
	for i, e := range exts {
		out[i] = resize.Run{Start: uint32(e.Start), Len: e.Len}
	}
	return out
}

func toExtents(runs []resize.Run) []Extent {
	var out []Extent
	for _, x := range runs {
		out = appendExtent(out, Extent{Cluster(x.Start), x.Len})
	}
	return out
}

// link is a FAT entry to set.
type link struct {
	c    Cluster
	next uint32
}

// job is one file, directory or system file being moved.
type job struct {
	oldExts  []Extent
	newRuns  []resize.Run
	moves    []resize.Move
	chained  bool   // the new clusters are a FAT chain
	live     []link // entries of the chain in use, switched with the entry
	freed    []Extent
	parent   *dir
	rec      *Record
	d        *dir // the directory moved, if one
	switchFn func() error
}

// plan decides where a file's clusters go and copies them (data is
// written through the volume's data stream; raw, when set, holds the
// clusters' contents, as a directory's are in memory). oldNoFAT says the
// clusters are one run the FAT does not describe.
func (r *resizer) planJob(j *job, oldNoFAT bool, raw []byte) error {
	v, l := r.v, r.v.layout
	n := extentsClusters(j.oldExts)
	past := pastOf(j.oldExts, r.end)
	runs := toRuns(j.oldExts)
	var err error
	whole := false
	if oldNoFAT && r.freeBelow-n >= r.reserve-past {
		if _, ok := r.findRun(uint32(n)); ok {
			got, err := r.take(uint32(n)) // the run findRun found
			if err != nil {
				return err
			}
			j.newRuns = got
			j.moves = []resize.Move{{From: runs[0].Start, To: got[0].Start, Len: uint32(n)}}
			whole = true
		}
	}
	if !whole {
		j.newRuns, j.moves, err = resize.Relocate(runs, uint32(r.end), r.take)
		if err != nil {
			return err
		}
		j.chained = true
	}
	r.reserve -= past
	for _, m := range j.moves {
		j.freed = appendExtent(j.freed, Extent{Cluster(m.From), m.Len})
		if raw == nil {
			if err := r.cp.Copy(m); err != nil {
				return err
			}
			continue
		}
		// The clusters' place in the file: where m.From lies in oldExts.
		pos := int64(0)
		for _, e := range j.oldExts {
			if Cluster(m.From) >= e.Start && Cluster(m.From) < e.End() {
				pos += int64(Cluster(m.From) - e.Start)
				break
			}
			pos += int64(e.Len)
		}
		cs := l.ClusterSize
		if err := v.writeData(l.ClusterOffset(Cluster(m.To)), raw[pos*cs:(pos+int64(m.Len))*cs]); err != nil {
			return err
		}
		r.cp.Done += int64(m.Len) * cs
		if r.cp.Progress != nil {
			r.cp.Progress(r.cp.Done, r.cp.Total)
		}
	}
	if !j.chained {
		return nil
	}
	// The FAT: links from new clusters (and all links of a chain the FAT
	// did not describe) go out now; a changed link from a cluster of the
	// chain in use goes out with the entry.
	// The clusters copied to, sorted, for a binary search.
	to := make([]resize.Move, len(j.moves))
	copy(to, j.moves)
	slices.SortFunc(to, func(a, b resize.Move) int { return cmp.Compare(a.To, b.To) })
	isNew := func(c Cluster) bool {
		i := sort.Search(len(to), func(i int) bool { return Cluster(to[i].To+to[i].Len) > c })
		return i < len(to) && c >= Cluster(to[i].To)
	}
	for i, x := range j.newRuns {
		for c := Cluster(x.Start); c < Cluster(x.End()); c++ {
			next := uint32(c + 1)
			if c == Cluster(x.End())-1 {
				next = fatEOC
				if i+1 < len(j.newRuns) {
					next = j.newRuns[i+1].Start
				}
			}
			cNew := isNew(c)
			if !cNew && !oldNoFAT && next == uint32(c+1) && !isNew(c+1) {
				continue // inside a run that stays: the link is as it was
			}
			if cNew || oldNoFAT {
				if err := v.fat.Set(c, next); err != nil {
					return err
				}
				continue
			}
			old, err := v.fat.Get(c)
			if err != nil {
				return err
			}
			if old != next {
				j.live = append(j.live, link{c, next})
			}
		}
	}
	return nil
}

// moveChunk moves the items of one depth in the crash order: copies and
// new links, commit; switched links and entries, commit; old clusters
// freed (by the same commit, after the entries).
func (r *resizer) moveChunk(items []item) error {
	if len(items) == 0 {
		return nil
	}
	v := r.v
	if err := r.o.Context.Err(); err != nil {
		return err
	}
	var jobs []*job
	defer func() {
		for _, j := range jobs {
			j.parent.node.Unpin()
			if j.d != nil {
				j.d.node.Unpin()
			}
		}
	}()
	for _, it := range items {
		parent, rec, _, err := v.lookupPath("resize", it.path)
		if err != nil {
			return err
		}
		if rec == nil || parent == nil {
			return fmt.Errorf("exfat: %s: not found while resizing", it.path)
		}
		exts, err := v.recordExtents(rec)
		if err != nil {
			return fmt.Errorf("exfat: %s: %w", it.path, err)
		}
		j := &job{oldExts: exts, parent: parent, rec: rec}
		parent.node.Pin()
		jobs = append(jobs, j)
		var raw []byte
		if rec.IsDir() {
			d, err := v.loadDir(parent, rec)
			if err != nil {
				return fmt.Errorf("exfat: %s: %w", it.path, err)
			}
			d.node.Pin()
			j.d = d
			raw = d.raw
		}
		if err := r.planJob(j, rec.Set.Stream.NoFATChain(), raw); err != nil {
			return fmt.Errorf("exfat: moving %s: %w", it.path, err)
		}
	}
	if err := v.Commit(); err != nil {
		return err
	}
	for _, j := range jobs {
		for _, k := range j.live {
			if err := v.fat.Set(k.c, k.next); err != nil {
				return err
			}
		}
		s := &j.rec.Set.Stream
		s.FirstCluster = Cluster(j.newRuns[0].Start)
		if j.chained {
			s.Flags &^= streamNoFATChain
		}
		if err := j.parent.update(j.rec); err != nil {
			return err
		}
		v.pendingFree = append(v.pendingFree, j.freed...)
	}
	if err := v.Commit(); err != nil {
		return err
	}
	for _, j := range jobs {
		if d := j.d; d != nil {
			old := d.first
			d.first = Cluster(j.newRuns[0].Start)
			d.exts = toExtents(j.newRuns)
			d.noFAT = j.rec.Set.Stream.NoFATChain()
			if v.dirs[old] == d {
				delete(v.dirs, old)
				v.dirs[d.first] = d
			}
			d.locate(d.list())
		}
	}
	return nil
}

// moveRoot moves the root directory's clusters past the end as a chained
// file's are moved. When its first cluster is among them, the copy's
// chain is complete but the boot sector still names the old first
// cluster (kept in use, and its link switched to the copy's second
// cluster); the boot region's commit names the new one.
func (r *resizer) moveRoot() error {
	v := r.v
	root := v.root()
	j := &job{oldExts: root.exts}
	if err := r.planJob(j, false, root.raw); err != nil {
		return fmt.Errorf("exfat: moving the root directory: %w", err)
	}
	if err := v.Commit(); err != nil {
		return err
	}
	first := Cluster(j.newRuns[0].Start)
	old := root.first
	freed := j.freed
	if first != old {
		// The old first cluster stays the root's until the boot region
		// changes: its link goes where the copy's does.
		next := uint32(fatEOC)
		if x := j.newRuns[0]; x.Len > 1 {
			next = x.Start + 1
		} else if len(j.newRuns) > 1 {
			next = j.newRuns[1].Start
		}
		j.live = append(j.live, link{old, next})
		freed = nil
		for _, e := range j.freed {
			if e.Start == old {
				e.Start, e.Len = e.Start+1, e.Len-1
			}
			if e.Len > 0 {
				freed = append(freed, e)
			}
		}
		r.newRoot = first
	}
	for _, k := range j.live {
		if err := v.fat.Set(k.c, k.next); err != nil {
			return err
		}
	}
	root.exts = toExtents(j.newRuns)
	v.pendingFree = append(v.pendingFree, freed...)
	return v.Commit()
}

// setSysEntry changes the root's allocation bitmap or up-case table entry.
func (r *resizer) setSysEntry(typ byte, change func(e *AllocEntry)) {
	v := r.v
	root := v.root()
	for i, s := range root.sys {
		if s.typ() != typ {
			continue
		}
		e := DecodeAllocEntry(s.raw)
		if typ == TypeBitmap && int(e.Flags&1) != v.layout.ActiveFAT {
			continue
		}
		change(&e)
		e.Encode(root.sys[i].raw)
		copy(root.raw[s.slot*EntrySize:], root.sys[i].raw)
		root.markDirty(s.slot, 1)
		if typ == TypeBitmap {
			v.bitmapEnt = e
		} else {
			v.upcaseEnt = e
		}
		return
	}
}

// moveUpcase moves the up-case table to dst (marked in use in memory):
// copied and chained, flushed; its entry switched, flushed; its old
// clusters freed.
func (r *resizer) moveUpcase(old []Extent, dst Extent) error {
	v := r.v
	to := uint32(dst.Start)
	for _, e := range old {
		if err := r.cp.Copy(resize.Move{From: uint32(e.Start), To: to, Len: e.Len}); err != nil {
			return fmt.Errorf("exfat: moving the up-case table: %w", err)
		}
		to += e.Len
	}
	if err := v.fat.setChain([]Extent{dst}); err != nil {
		return err
	}
	if err := v.Commit(); err != nil {
		return err
	}
	r.setSysEntry(TypeUpcase, func(e *AllocEntry) { e.FirstCluster = dst.Start })
	v.pendingFree = append(v.pendingFree, old...)
	return v.Commit()
}

// moveBitmap moves the allocation bitmap to dst (marked in use in
// memory): the run is marked in the bitmap where it is and chained,
// flushed; the bitmap, its old clusters free, is written to dst, flushed;
// then its entry is switched.
func (r *resizer) moveBitmap(old []Extent, dst Extent) error {
	v, b := r.v, r.v.bitmap
	if err := v.fat.setChain([]Extent{dst}); err != nil {
		return err
	}
	if err := v.Commit(); err != nil {
		return err
	}
	b.exts = []Extent{dst}
	for _, e := range old {
		b.mark(e, false)
	}
	if err := r.writeWholeBitmap(b.exts, int64(v.bitmapEnt.DataLength)); err != nil {
		return err
	}
	r.setSysEntry(TypeBitmap, func(e *AllocEntry) { e.FirstCluster = dst.Start })
	return v.Commit()
}

// writeWholeBitmap writes the bitmap as it is to be on disk (held bits
// clear) into exts, zeros up to length bytes, through the data stream.
func (r *resizer) writeWholeBitmap(exts []Extent, length int64) error {
	v, l, b := r.v, r.v.layout, r.v.bitmap
	buf := make([]byte, l.ClusterSize)
	for pos := int64(0); pos < length; pos += l.ClusterSize {
		k := min(l.ClusterSize, length-pos)
		clear(buf)
		if pos < int64(len(b.bits)) {
			copy(buf, b.bits[pos:])
			if b.held != nil {
				for i := int64(0); i < k && pos+i < int64(len(b.bits)); i++ {
					buf[i] &^= b.held[pos+i]
				}
			}
		}
		off, err := fileOffset(l, exts, pos)
		if err != nil {
			return err
		}
		if err := v.writeData(off, buf[:k]); err != nil {
			return err
		}
	}
	clear(b.dirty)
	return nil
}

// writeBoot writes the new VolumeLength, ClusterCount and FatLength into
// the main boot region (checksum sector recomputed), flushes, then the
// backup region, and flushes: the resize's commit. The volume in memory
// follows.
func (r *resizer) writeBoot() error {
	v, l := r.v, r.v.layout
	if err := v.flushData(); err != nil {
		return err
	}
	if err := r.sync(); err != nil {
		return err
	}
	ss := int(l.SectorSize)
	le := binary.LittleEndian
	patch := func(b []byte) {
		le.PutUint64(b[offVolumeLength:], r.secs)
		le.PutUint32(b[offFATLength:], r.fatLen)
		le.PutUint32(b[offClusterCount:], r.newN)
		if r.newRoot != 0 {
			le.PutUint32(b[offRootCluster:], uint32(r.newRoot))
		}
	}
	for _, at := range []int64{0, int64(backupBootSector * ss)} {
		region := make([]byte, bootRegionSectors*ss)
		if _, err := v.dev.ReadAt(region, at); err != nil {
			return fmt.Errorf("exfat: reading the boot region at byte %d: %w", at, err)
		}
		patch(region)
		sealBootRegion(region, ss)
		if _, err := v.dev.WriteAt(region, at); err != nil {
			return fmt.Errorf("exfat: writing the boot region at byte %d: %w", at, err)
		}
		if err := r.sync(); err != nil {
			return err
		}
	}
	patch(v.raw)
	bs := v.boot
	bs.VolumeLength, bs.FATLength, bs.ClusterCount = r.secs, r.fatLen, r.newN
	if r.newRoot != 0 {
		root := v.root()
		delete(v.dirs, l.RootCluster)
		bs.RootCluster, l.RootCluster, root.first = r.newRoot, r.newRoot, r.newRoot
		v.dirs[r.newRoot] = root
	}
	l.TotalSize = int64(r.secs) * l.SectorSize
	l.FATSize = int64(r.fatLen) * l.SectorSize
	l.Clusters = r.newN
	v.fat.size, v.fat.entries = l.FATSize, r.newN+2
	b := v.bitmap
	nb := (int64(r.newN) + 7) / 8
	if int64(len(b.bits)) < nb {
		b.bits = append(b.bits, make([]byte, nb-int64(len(b.bits)))...)
		if b.held != nil {
			b.held = append(b.held, make([]byte, nb-int64(len(b.held)))...)
		}
	}
	b.bits = b.bits[:nb]
	if b.held != nil {
		b.held = b.held[:nb]
	}
	if k := r.newN % 8; k != 0 {
		// Bits past the cluster count (the old root's first cluster's,
		// say) are cleared.
		if m := byte(1)<<k - 1; b.bits[nb-1]&^m != 0 {
			b.bits[nb-1] &= m
			if b.held != nil {
				b.held[nb-1] &= m
			}
			b.dirty[nb-1] = struct{}{}
		}
	}
	b.n = r.newN
	b.free = r.newN - b.countUsed(FirstCluster, FirstCluster+Cluster(r.newN))
	if v.cursor > l.MaxCluster() {
		v.cursor = FirstCluster
	}
	return nil
}

func (r *resizer) grow() error {
	v, l, bs, b := r.v, r.v.layout, r.v.boot, r.v.bitmap
	cs, ss := l.ClusterSize, l.SectorSize
	room := int64(bs.ClusterHeapOffset) - int64(bs.FATOffset)
	if int64(r.fatLen) > room {
		most := min(room*ss/4-2, MaxClusterCount) // clusters the gap's FAT can count
		largest := (int64(bs.ClusterHeapOffset) + most<<bs.ClusterShift) * ss
		return &resize.FATFullError{Asked: r.o.Size, Largest: largest, Msg: fmt.Sprintf("exfat: growing to %d clusters needs %d more FAT sectors (%d in all; the gap before the cluster heap holds %d): the cluster heap would move, which ftools does not do; the largest size the FAT can count is %d bytes",
			r.newN, int64(r.fatLen)-int64(bs.FATLength), r.fatLen, room, largest)}
	}
	nb := r.plan.NewBitmapBytes
	bmExts, err := v.fullBitmapExtents()
	if err != nil {
		return err
	}
	haveCl := extentsClusters(bmExts)
	needCl := (nb + cs - 1) / cs
	var extend, reloc []Extent
	if needCl > haveCl {
		k := uint32(needCl - haveCl)
		last := bmExts[len(bmExts)-1].End()
		if e, ok := b.findRun(last, last, k); ok {
			extend = []Extent{e}
			r.step("extend the allocation bitmap into the %d free clusters after it (%d-%d)", k, e.Start, e.End()-1)
		} else {
			// One run: the Linux driver reads the bitmap as contiguous.
			e, ok := b.findRun(FirstCluster, l.MaxCluster(), uint32(needCl))
			if !ok {
				return fmt.Errorf("exfat: cannot grow to %d bytes: the allocation bitmap needs %d contiguous free clusters, the cluster after it is in use, and the volume has no free run that long; nothing was changed", r.o.Size, needCl)
			}
			reloc = []Extent{e}
			r.step("move the allocation bitmap to clusters %d-%d (the cluster after it is in use) and repoint its entry", e.Start, e.End()-1)
		}
	}
	if r.fatLen > bs.FATLength {
		r.step("lengthen the FAT from %d to %d sectors into the gap before the cluster heap", bs.FATLength, r.fatLen)
	}
	if r.newN > r.oldN {
		r.step("zero the FAT entries and allocation bitmap bits of clusters %d-%d", r.oldN+2, r.newN+1)
	}
	r.step("write the main boot region (VolumeLength %d sectors, ClusterCount %d, FatLength %d, checksum), then the backup", r.secs, r.newN, r.fatLen)
	if r.o.DryRun {
		return nil
	}
	if err := r.start(); err != nil {
		return err
	}
	if err := r.o.Context.Err(); err != nil {
		return err
	}
	if r.newN > r.oldN {
		// The dirty flag is durable before the first write into the FAT
		// region (no data comes first to share a flush with it).
		if err := r.v.markDirty(true); err != nil {
			return err
		}
		// The FAT entries of the new clusters, and the new FAT sectors.
		zero := make([]byte, 1<<20)
		from, to := l.FATOffset+int64(r.oldN+2)*4, l.FATOffset+int64(r.fatLen)*ss
		for off := from; off < to; {
			n := min(int64(len(zero)), to-off)
			if err := v.writeData(off, zero[:n]); err != nil {
				return err
			}
			off += n
		}
		if err := v.flushData(); err != nil {
			return err
		}
		// Pages read before hold what was there.
		clear(v.fat.pages)
		// The bitmap's new bytes, zero, after the bits it has.
		if int64(len(b.bits)) < nb {
			b.bits = append(b.bits, make([]byte, nb-int64(len(b.bits)))...)
			if b.held != nil {
				b.held = append(b.held, make([]byte, nb-int64(len(b.held)))...)
			}
		}
		if r.oldN%8 != 0 {
			b.bits[r.oldN/8] &= byte(1)<<(r.oldN%8) - 1
		}
	}
	switch {
	case reloc != nil:
		got := reloc
		b.mark(got[0], true)
		if err := v.fat.setChain(got); err != nil {
			return err
		}
		if err := v.Commit(); err != nil {
			return err
		}
		b.exts = got
		for _, e := range bmExts {
			b.mark(e, false)
		}
		if err := r.writeWholeBitmap(got, nb); err != nil {
			return err
		}
		r.setSysEntry(TypeBitmap, func(e *AllocEntry) { e.FirstCluster, e.DataLength = got[0].Start, uint64(nb) })
	default:
		if extend != nil {
			b.mark(extend[0], true)
			if err := v.fat.setChain(append([]Extent{{bmExts[len(bmExts)-1].End() - 1, 1}}, extend...)); err != nil {
				return err
			}
			bmExts = append(bmExts, extend...)
		}
		b.exts = bmExts
		if from := int64(r.oldN / 8); from < nb {
			if err := r.writeBitmapBytes(from, nb); err != nil {
				return err
			}
		}
		if uint64(nb) > v.bitmapEnt.DataLength {
			r.setSysEntry(TypeBitmap, func(e *AllocEntry) { e.DataLength = uint64(nb) })
		}
	}
	if err := v.Commit(); err != nil {
		return err
	}
	return r.writeBoot()
}

// writeBitmapBytes writes bytes [from, to) of the bitmap as they are in
// memory (held bits clear) through the data stream.
func (r *resizer) writeBitmapBytes(from, to int64) error {
	v, l, b := r.v, r.v.layout, r.v.bitmap
	for pos := from; pos < to; {
		k := min(l.ClusterSize-pos%l.ClusterSize, to-pos)
		out := append([]byte(nil), b.bits[pos:pos+k]...)
		if b.held != nil {
			for i := range out {
				out[i] &^= b.held[pos+int64(i)]
			}
		}
		off, err := fileOffset(l, b.exts, pos)
		if err != nil {
			return err
		}
		if err := v.writeData(off, out); err != nil {
			return err
		}
		pos += k
	}
	return nil
}
