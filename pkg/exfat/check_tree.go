package exfat

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"path"
	"slices"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// treeCheck walks the directory tree and the clusters every file uses.
// used holds one bit per cluster (the clusters files were found to use);
// the runs of clusters met twice are recorded in shared, whose owners a
// second walk names only when there is one. Both walks work a run of
// clusters at a time (a word of the used bitmap, or a whole extent met
// before), never a cluster per file: many entries naming one long run is
// damage the check must get through in time linear in the volume.
type treeCheck struct {
	v       *Volume
	rep     *Report
	opts    CheckOptions
	l       *Layout
	used    []byte
	shared  []Extent                  // first pass: runs met twice; then sorted and merged
	claimed map[claimKey]*claimedRuns // first pass: extents met again, claimed whole
	holds   map[claimKey]*holding     // second pass: who holds which part of the shared runs
	nholds  []*holding                // the same, in the order met
	seq     int                       // second pass: claims so far
	chains  map[chainKey]chainResult  // FAT chains of files whose first cluster is shared, walked once
	sharers []sharer                  // second pass: files with a shared cluster
	entered map[Cluster]bool          // second pass: shared directories walked
	pass2   bool
}

// claimKey names the extents a claim is for: one extent by its value, or
// the runs of a FAT chain as kept by chain (the same slice for every
// entry naming the chain).
type claimKey struct {
	e Extent
	p *Extent
	n int
}

func keyOf(exts []Extent) claimKey {
	if len(exts) == 1 {
		return claimKey{e: exts[0]}
	}
	return claimKey{p: &exts[0], n: len(exts)}
}

// claimedRuns is what the first claim of extents met again found: the
// runs of them the bitmap marks free, and whether they are all recorded
// as shared yet.
type claimedRuns struct {
	free  []Extent
	whole bool
}

// holding is the shared runs of some extents, and the owners that claim
// them, with the number of their claim in the second walk.
type holding struct {
	runs   []Extent
	owners []owner
}

type owner struct {
	path string
	seq  int
}

// sharer is a file or directory found holding a shared cluster, with where
// its entry set lies.
type sharer struct {
	path   string
	stream StreamEntry
	dir    bool
	exts   []Extent // its directory's clusters
	slot   int
	slots  int
}

// enteredShared reports whether a directory whose clusters are shared
// must not be walked: in the first pass every later meeting (the first
// claimed its clusters), in the second every meeting but the first.
func (t *treeCheck) enteredShared(first Cluster) bool {
	if !t.pass2 {
		return true
	}
	if t.entered[first] {
		return true
	}
	t.entered[first] = true
	return false
}

func newTreeCheck(v *Volume, rep *Report, opts CheckOptions) *treeCheck {
	return &treeCheck{v: v, rep: rep, opts: opts, l: v.layout, used: make([]byte, v.layout.BitmapBytes()), claimed: map[claimKey]*claimedRuns{}, chains: map[chainKey]chainResult{}}
}

// problem reports a problem in the first pass only.
func (t *treeCheck) problem(kind, p string, c Cluster, off int64, format string, args ...any) {
	if !t.pass2 {
		t.rep.addf(kind, p, c, off, format, args...)
	}
}

func (t *treeCheck) run() error {
	v := t.v
	if err := t.walk(); err != nil {
		return err
	}
	t.checkFATHead()
	if v.bitmap != nil {
		t.rep.FreeClusters = v.bitmap.free
		t.lost()
		if p := v.percentInUse(); v.boot.PercentInUse != PercentUnknown && v.boot.PercentInUse != p {
			t.rep.percent, t.rep.percentBad = p, true
			t.rep.Warnings = append(t.rep.Warnings, fmt.Sprintf("percent in use is %d but the allocation bitmap says %d", v.boot.PercentInUse, p))
		}
	}
	if len(t.shared) > 0 {
		t.claimed = nil
		t.shared = mergeRuns(t.shared)
		t.pass2, t.entered, t.holds = true, map[Cluster]bool{}, map[claimKey]*holding{}
		if err := t.walk(); err != nil {
			return err
		}
		t.reportShared()
	}
	return nil
}

// walk checks the root directory, the system files it names, and the tree.
func (t *treeCheck) walk() error {
	v, l := t.v, t.l
	exts, err := v.fat.chainAll(l, l.RootCluster, maxRootClusters(l))
	if err != nil {
		t.problem(KindChain, "/", l.RootCluster, -1, "the root directory's cluster chain is broken: %v", err)
		if len(exts) == 0 {
			return nil
		}
	}
	t.claim("/", exts)
	raw, err := v.readExtents(exts, extentsClusters(exts)*l.ClusterSize)
	if err != nil {
		return fmt.Errorf("exfat: reading the root directory: %w", err)
	}
	pd := parseDir(raw, v.up, true)
	t.checkSys(pd.sys, exts)
	if !t.pass2 {
		t.rep.Dirs++
	}
	return t.walkDir("/", exts, pd, 0)
}

// walkDir checks the members of one parsed directory and descends.
func (t *treeCheck) walkDir(dirPath string, exts []Extent, pd parsedDir, depth int) error {
	// Each directory is a cancellation point: the walk changes nothing,
	// so it may stop anywhere.
	if err := fsutil.Cancelled(t.opts.Context); err != nil {
		return err
	}
	v, l := t.v, t.l
	at := func(slot int) int64 { return entryOffsetIn(l, exts, slot) }
	for _, p := range pd.probs {
		t.problem(p.Kind, dirPath, 0, at(p.Slot), "%v", trimPrefix(relocate(p.Err, l, exts)))
		if p.Kind == KindNameHash && !t.pass2 && v.upcaseOK() {
			t.hashFix(exts, pd, p.Slot)
		}
		var free []Extent
		if p.Stream != nil {
			// The set is damaged, but the clusters it names are not
			// free for the taking.
			if fexts, err := v.fileExtents(p.Stream); err == nil {
				if !t.claim(path.Join(dirPath, "(damaged entry set)"), fexts) {
					free = fexts
				}
			}
		}
		if p.Kind == KindSetChecksum && !t.pass2 && p.Slots > 0 && p.Slot+p.Slots <= pd.end {
			t.rep.setFixes = append(t.rep.setFixes, entryFix{exts: exts, slot: p.Slot, set: make([]byte, p.Slots*EntrySize), free: free})
		}
	}
	for _, r := range pd.recs {
		p := path.Join(dirPath, r.Name)
		if t.opts.Visit != nil && !t.pass2 {
			t.opts.Visit(p)
		}
		fexts, longer := t.checkFile(p, r, at(r.Slot))
		hit := t.claim(p, fexts)
		if longer {
			t.longerChain(p, r, fexts, hit, at(r.Slot))
		}
		if hit {
			if t.pass2 {
				t.sharers = append(t.sharers, sharer{path: p, stream: r.Set.Stream, dir: r.IsDir(), exts: exts, slot: r.Slot, slots: r.Slots})
			}
			if r.IsDir() && t.enteredShared(r.Set.Stream.FirstCluster) {
				// Its clusters were met before: its members were (or will
				// be) checked through the first entry that names it.
				continue
			}
		}
		if !r.IsDir() {
			if !t.pass2 {
				t.rep.Files++
			}
			continue
		}
		if !t.pass2 {
			t.rep.Dirs++
		}
		if fexts == nil {
			continue
		}
		if depth+1 >= t.opts.MaxDepth {
			t.problem(KindDepth, p, 0, -1, "directories are nested deeper than %d levels; not checked below", t.opts.MaxDepth)
			continue
		}
		raw, err := v.readExtents(fexts, r.Size())
		if err != nil {
			return fmt.Errorf("exfat: reading directory %s: %w", p, err)
		}
		if err := t.walkDir(p, fexts, parseDir(raw, v.up, false), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// relocate makes a directory-relative FormatError offset a volume offset.
func relocate(err error, l *Layout, exts []Extent) error {
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset < 0 {
		return err
	}
	c := *fe
	if off, ferr := fileOffset(l, exts, fe.Offset); ferr == nil {
		c.Offset = off
	} else {
		c.Offset = -1
	}
	return &c
}

// trimPrefix drops the package prefix of an error message, which a
// Problem does not repeat.
func trimPrefix(err error) string { return strings.TrimPrefix(err.Error(), "exfat: ") }

// checkFile checks a file's or directory's stream extension against its
// clusters and returns the clusters it uses (nil when unusable), and
// whether its FAT chain goes on past them (reported by the caller).
func (t *treeCheck) checkFile(p string, r *Record, off int64) (exts []Extent, longer bool) {
	l := t.l
	s := &r.Set.Stream
	cs := uint64(l.ClusterSize)
	streamOff := off + EntrySize
	if off < 0 {
		streamOff = -1
	}
	if s.ValidDataLength > s.DataLength {
		t.problem(KindSize, p, 0, streamOff, "valid data length %d is greater than the size %d", s.ValidDataLength, s.DataLength)
	}
	if s.DataLength == 0 {
		if s.FirstCluster != 0 {
			t.problem(KindChain, p, s.FirstCluster, streamOff, "is empty but names first cluster %d", s.FirstCluster)
		}
		if s.NoFATChain() {
			t.problem(KindChain, p, 0, streamOff, "is empty but has the NoFatChain flag")
		}
		if r.IsDir() {
			t.problem(KindSize, p, 0, streamOff, "directory has size 0")
		}
		return nil, false
	}
	if r.IsDir() && (s.DataLength%cs != 0 || s.DataLength > maxDirBytes) {
		t.problem(KindSize, p, 0, streamOff, "directory size %d is not a multiple of the cluster size %d up to 256 MiB", s.DataLength, cs)
		return nil, false
	}
	need, ok := l.lengthClusters(s.DataLength)
	if !ok {
		t.problem(KindSize, p, 0, streamOff, "DataLength %d exceeds the cluster heap (%d bytes)", s.DataLength, l.HeapBytes())
		return nil, false
	}
	if !l.ValidCluster(s.FirstCluster) {
		t.problem(KindChain, p, s.FirstCluster, streamOff, "first cluster %d is outside the heap (2..%d)", s.FirstCluster, l.MaxCluster())
		return nil, false
	}
	if s.NoFATChain() {
		if need > uint64(l.MaxCluster()-s.FirstCluster)+1 {
			t.problem(KindChain, p, s.FirstCluster, streamOff, "its %d contiguous clusters from %d run past the heap's end", need, s.FirstCluster)
			return nil, false
		}
		return []Extent{{s.FirstCluster, uint32(need)}}, false
	}
	exts, err := t.chain(s.FirstCluster, need)
	switch {
	case errors.Is(err, errChainLong):
		return exts, true
	case errors.Is(err, errChainLoop):
		// exts holds the cluster the chain comes back to twice: the
		// second pass names the file as sharing clusters with itself.
		return exts, false
	case err != nil:
		t.problem(KindChain, p, s.FirstCluster, streamOff, "%v", trimPrefix(err))
	case uint64(extentsClusters(exts)) < need:
		t.problem(KindSize, p, s.FirstCluster, streamOff, "its cluster chain has %d clusters but its size %d needs %d", extentsClusters(exts), s.DataLength, need)
	}
	return exts, false
}

// chainKey is a FAT chain walked: from first, at most need clusters.
type chainKey struct {
	first Cluster
	need  uint64
}

type chainResult struct {
	exts []Extent
	err  error
}

// chain walks a file's FAT chain from first for at most need clusters. A
// chain whose first cluster another file uses is walked once and kept
// (the FAT does not change while Check runs): the many entries a damaged
// directory may have naming one long chain cost a step each, not a walk.
func (t *treeCheck) chain(first Cluster, need uint64) ([]Extent, error) {
	k := chainKey{first, need}
	if r, ok := t.chains[k]; ok {
		t.rep.work.chainSteps++
		return r.exts, r.err
	}
	exts, err := t.v.fat.chainAll(t.l, first, need)
	t.rep.work.chainSteps += extentsClusters(exts) + 1
	if t.usedBefore(first) {
		t.chains[k] = chainResult{exts, err}
	}
	return exts, err
}

// usedBefore reports whether cluster c (a valid one) was claimed before:
// in the first pass, by a file walked before; in the second, by two files.
func (t *treeCheck) usedBefore(c Cluster) bool {
	if t.pass2 {
		_, found := slices.BinarySearchFunc(t.shared, c, func(r Extent, c Cluster) int {
			if r.End() <= c {
				return -1
			}
			if r.Start > c {
				return 1
			}
			return 0
		})
		return found
	}
	i := uint32(c - FirstCluster)
	return t.used[i/8]&(1<<(i%8)) != 0
}

// longerChain reports a FAT chain that goes on past the clusters the
// file's size needs, what a power cut leaves while a fragmented file is
// extended (the chain is linked before the new size is written). Unless
// the chain shares clusters, Repair ends it where the size does: the
// clusters past it hold nothing of the file.
func (t *treeCheck) longerChain(p string, r *Record, exts []Extent, shared bool, off int64) {
	s := &r.Set.Stream
	if off >= 0 {
		off += EntrySize
	}
	t.problem(KindSize, p, s.FirstCluster, off, "its cluster chain goes on past the %d clusters its size %d needs", extentsClusters(exts), s.DataLength)
	if !shared && !t.pass2 && len(exts) > 0 {
		t.rep.chainCuts = append(t.rep.chainCuts, exts[len(exts)-1].End()-1)
	}
}

// claim records that the file at p uses exts: a cluster already used is
// shared; a cluster the bitmap marks free is reported. It reports whether
// any of them is shared (in the second pass, with another owner so far).
func (t *treeCheck) claim(p string, exts []Extent) bool {
	if len(exts) == 0 {
		return false
	}
	if t.pass2 {
		return t.hold(p, exts)
	}
	key := keyOf(exts)
	if c := t.claimed[key]; c != nil {
		// Claimed whole before: every cluster is shared, and the bitmap
		// (which the check does not change) says the same.
		t.rep.work.clusterSteps++
		if !c.whole {
			for _, e := range exts {
				if e, ok := t.clip(e); ok {
					t.shared = appendExtent(t.shared, e)
				}
			}
			c.whole = true
		}
		t.unmarked(p, c.free)
		return true
	}
	var free []Extent
	hit := false
	for _, e := range exts {
		e, ok := t.clip(e)
		if !ok {
			continue
		}
		var sh bool
		free, sh = t.claimRun(e, free)
		hit = hit || sh
	}
	if hit {
		t.claimed[key] = &claimedRuns{free: free}
	}
	t.unmarked(p, free)
	return hit
}

// unmarked reports the clusters of the file at p that the bitmap marks
// free.
func (t *treeCheck) unmarked(p string, free []Extent) {
	if len(free) > 0 {
		n := extentsClusters(free)
		t.rep.unmarked = append(t.rep.unmarked, free...)
		t.problem(KindFree, p, free[0].Start, t.v.bitmap.bitOffset(t.l, free[0].Start), "%d of its clusters are marked free in the allocation bitmap", n)
	}
}

// clip drops the clusters of e outside the heap.
func (t *treeCheck) clip(e Extent) (Extent, bool) {
	lo, hi := uint64(e.Start), uint64(e.Start)+uint64(e.Len)
	lo = max(lo, uint64(FirstCluster))
	hi = min(hi, uint64(t.l.MaxCluster())+1)
	if lo >= hi {
		return Extent{}, false
	}
	return Extent{Cluster(lo), uint32(hi - lo)}, true
}

// claimRun marks e used a word of the used bitmap at a time, records the
// runs of it already used as shared and appends the runs of it the
// bitmap marks free to free. It reports whether any cluster was shared.
func (t *treeCheck) claimRun(e Extent, free []Extent) ([]Extent, bool) {
	bm := t.v.bitmap
	hit := false
	lo, hi := uint64(e.Start-FirstCluster), uint64(e.End()-FirstCluster)
	for base := lo &^ 63; base < hi; base += 64 {
		t.rep.work.clusterSteps++
		m := ^uint64(0)
		if base < lo {
			m &^= 1<<(lo-base) - 1
		}
		if hi-base < 64 {
			m &= 1<<(hi-base) - 1
		}
		u := loadWord(t.used, base/8)
		if s := u & m; s != 0 {
			hit = true
			t.shared = appendRuns(t.shared, s, base)
		}
		storeWord(t.used, base/8, u|m)
		if bm != nil {
			if f := ^loadWord(bm.bits, base/8) & m; f != 0 {
				free = appendRuns(free, f, base)
			}
		}
	}
	return free, hit
}

// loadWord reads the 64 bits of b from byte i, zeros past its end.
func loadWord(b []byte, i uint64) uint64 {
	var w uint64
	for k := uint64(0); k < 8 && i+k < uint64(len(b)); k++ {
		w |= uint64(b[i+k]) << (8 * k)
	}
	return w
}

// storeWord writes w's bits to b from byte i, those past its end dropped.
func storeWord(b []byte, i uint64, w uint64) {
	for k := uint64(0); k < 8 && i+k < uint64(len(b)); k++ {
		b[i+k] = byte(w >> (8 * k))
	}
}

// appendRuns appends the runs of set bits of w, the bits of clusters
// from index base (cluster FirstCluster+base), to exts.
func appendRuns(exts []Extent, w uint64, base uint64) []Extent {
	for w != 0 {
		i := uint64(bits.TrailingZeros64(w))
		n := uint64(bits.TrailingZeros64(^(w >> i)))
		if i+n == 64 {
			w = 0
		} else {
			w &^= (1<<n - 1) << i
		}
		exts = appendExtent(exts, Extent{FirstCluster + Cluster(base+i), uint32(n)})
	}
	return exts
}

// mergeRuns sorts runs and merges those that overlap or touch.
func mergeRuns(runs []Extent) []Extent {
	slices.SortFunc(runs, func(a, b Extent) int { return cmp.Compare(a.Start, b.Start) })
	out := runs[:0]
	for _, r := range runs {
		if k := len(out); k > 0 && r.Start <= out[k-1].End() {
			if r.End() > out[k-1].End() {
				out[k-1].Len = uint32(r.End() - out[k-1].Start)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// hold records, in the second pass, the parts of exts that are shared as
// held by p, and reports whether there are any.
func (t *treeCheck) hold(p string, exts []Extent) bool {
	t.seq++
	t.rep.work.ownerSteps++
	key := keyOf(exts)
	if h := t.holds[key]; h != nil {
		h.owners = append(h.owners, owner{p, t.seq})
		return true
	}
	var runs []Extent
	for _, e := range exts {
		e, ok := t.clip(e)
		if !ok {
			continue
		}
		i, _ := slices.BinarySearchFunc(t.shared, e.Start, func(r Extent, c Cluster) int {
			if r.End() <= c {
				return -1
			}
			if r.Start > c {
				return 1
			}
			return 0
		})
		for ; i < len(t.shared) && t.shared[i].Start < e.End(); i++ {
			r := t.shared[i]
			lo, hi := max(r.Start, e.Start), min(r.End(), e.End())
			if lo >= hi {
				continue
			}
			t.rep.work.ownerSteps++
			runs = append(runs, Extent{lo, uint32(hi - lo)})
		}
	}
	if len(runs) == 0 {
		return false
	}
	h := &holding{runs: runs, owners: []owner{{p, t.seq}}}
	t.holds[key] = h
	t.nholds = append(t.nholds, h)
	return true
}

// lost reports clusters the bitmap marks in use that no file uses.
func (t *treeCheck) lost() {
	bm := t.v.bitmap
	var runs []Extent
	for c := FirstCluster; c <= t.l.MaxCluster(); c++ {
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+7 <= t.l.MaxCluster() && bm.bits[i/8] == t.used[i/8] {
			c += 7
			continue
		}
		if bm.used(c) && t.used[i/8]&(1<<(i%8)) == 0 {
			runs = appendExtent(runs, Extent{c, 1})
		}
	}
	if len(runs) == 0 {
		return
	}
	n := extentsClusters(runs)
	t.rep.lost, t.rep.LostClusters = runs, uint32(n)
	t.rep.addf(KindLost, "", runs[0].Start, bm.bitOffset(t.l, runs[0].Start), "%d clusters in %d runs are marked in use but no file uses them", n, len(runs))
}
