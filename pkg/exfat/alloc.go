package exfat

import (
	"fmt"
	"sort"
)

// allocate takes n free clusters and marks them in use in the in-memory
// bitmap. It prefers one contiguous run: right after cluster after when
// that extends a file in place, else the first run that fits at or after
// the cursor (wrapping around), so that consecutive files lie next to each
// other; failing that, the largest free runs, the fewest that hold n
// clusters, in disk order. The FAT is not touched: the caller chains the
// runs when there is more than one.
func (v *Volume) allocate(n uint32, after Cluster) ([]Extent, error) {
	if n == 0 {
		return nil, nil
	}
	if err := v.begin(); err != nil {
		return nil, err
	}
	if err := v.guardBitmap(); err != nil {
		return nil, err
	}
	b := v.bitmap
	if n > b.free {
		cs := v.layout.ClusterSize
		return nil, &NoSpaceError{Need: int64(n) * cs, Free: int64(b.free) * cs}
	}
	var exts []Extent
	if after >= FirstCluster && after < v.layout.MaxCluster() {
		if e, ok := b.findRun(after+1, after+1, n); ok {
			exts = []Extent{e}
		}
	}
	if exts == nil {
		exts = v.firstFit(n)
	}
	if exts == nil {
		exts = v.fewestRuns(n)
	}
	for _, e := range exts {
		b.mark(e, true)
	}
	v.cursor = exts[len(exts)-1].End()
	if v.cursor > v.layout.MaxCluster() {
		v.cursor = FirstCluster
	}
	return exts, nil
}

// guardBitmap makes sure, once per session and before the first cluster
// is handed out, that no cluster a file or directory still uses is handed
// out because the bitmap wrongly marks it free: it walks the tree as
// Check's first pass does (directories and FAT chains, no file data) and
// holds every such cluster (bitmap.hold). FAT needs no such walk: its
// allocator reads the table the chains are made of, so a cluster a chain
// links to is never free there.
func (v *Volume) guardBitmap() error {
	b := v.bitmap
	if b.guarded {
		return nil
	}
	rep := &Report{}
	t := newTreeCheck(v, rep, CheckOptions{MaxDepth: DefaultMaxDepth})
	if err := t.walk(); err != nil {
		return err
	}
	b.guarded = true
	if n := extentsClusters(rep.unmarked); n > 0 {
		b.hold(rep.unmarked)
		v.warnings = append(v.warnings, fmt.Sprintf("%d clusters files use are marked free in the allocation bitmap (the first is %d); they are left alone: run fverify --repair", n, rep.unmarked[0].Start))
	}
	return nil
}

// firstFit finds the first run of n free clusters starting at or after the
// cursor, then from cluster 2 up to the cursor.
func (v *Volume) firstFit(n uint32) []Extent {
	max := v.layout.MaxCluster()
	if v.cursor < FirstCluster || v.cursor > max {
		v.cursor = FirstCluster
	}
	if e, ok := v.bitmap.findRun(v.cursor, max, n); ok {
		return []Extent{e}
	}
	if e, ok := v.bitmap.findRun(FirstCluster, v.cursor, n); ok {
		return []Extent{e}
	}
	return nil
}

// fewestRuns takes the longest free runs until n clusters are covered and
// returns them in disk order.
func (v *Volume) fewestRuns(n uint32) []Extent {
	all := v.bitmap.freeRuns()
	sort.SliceStable(all, func(i, j int) bool { return all[i].Len > all[j].Len })
	var got []Extent
	for _, e := range all {
		if n == 0 {
			break
		}
		e.Len = min(e.Len, n)
		got = append(got, e)
		n -= e.Len
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Start < got[j].Start })
	return got
}

// release frees clusters nothing on disk names yet: they are free again at
// once.
func (v *Volume) release(exts []Extent) {
	for _, e := range exts {
		v.bitmap.mark(e, false)
	}
}
