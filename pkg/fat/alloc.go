package fat

import "slices"

// Extent is a run of consecutive clusters.
type Extent struct {
	Start Cluster
	Len   uint32
}

// End is the cluster after the extent.
func (e Extent) End() Cluster { return e.Start + Cluster(e.Len) }

// cursorStart is where allocation begins after open: right after FSINFO's
// next free hint, as the Linux driver and mtools read it.
func (v *Volume) cursorStart() Cluster {
	c := Cluster(2)
	if v.info != nil && v.info.NextFree >= 2 && v.info.NextFree < uint32(v.layout.MaxCluster()) {
		c = Cluster(v.info.NextFree) + 1
	}
	return c
}

// allocate takes n free clusters and chains them in order (the last one
// ends the chain); after != 0 links an existing chain's last cluster to the
// first new one. It prefers one contiguous run, the first that fits at or
// after the cursor (wrapping around), so that consecutive files lie next to
// each other; failing that it takes the largest free runs, the fewest that
// hold n clusters (see fewestRuns). A chain being extended grows in place
// when the clusters after its end are free. The search reads the free-space
// summary (fatsum.go), not the whole FAT. Only the in-memory FAT changes;
// FlushFAT writes it.
func (v *Volume) allocate(n uint32, after Cluster) ([]Extent, error) {
	if n == 0 {
		return nil, nil
	}
	free := v.allocatable()
	if err := v.table.Err(); err != nil {
		return nil, err
	}
	if n > free {
		return nil, &NoSpaceError{Need: int64(n) * v.layout.ClusterSize, Free: int64(free) * v.layout.ClusterSize}
	}
	if err := v.begin(); err != nil {
		return nil, err
	}
	var exts []Extent
	if v.allocPolicy == AllocFirstFit {
		exts = v.takeInOrder(n)
	} else if after != 0 && after < v.layout.MaxCluster() {
		// Extending a chain: right after its end, if that is free.
		if s, ok := v.table.findRun(after+1, after+Cluster(n), n); ok && s == after+1 {
			exts = []Extent{{s, n}}
		}
	}
	if exts == nil {
		exts = v.firstFit(n)
	}
	if exts == nil {
		exts = v.fewestRuns(n)
	}
	if err := v.table.Err(); err != nil {
		return nil, err
	}
	if exts == nil {
		return nil, &NoSpaceError{Need: int64(n) * v.layout.ClusterSize, Free: int64(free) * v.layout.ClusterSize}
	}
	t := v.table
	prev := after
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			if prev != 0 {
				t.Set(prev, c)
			}
			prev = c
		}
	}
	t.Set(prev, t.EOC())
	last := exts[len(exts)-1]
	v.cursor = last.End()
	if v.cursor > v.layout.MaxCluster() {
		v.cursor = 2
	}
	if v.info != nil {
		v.info.NextFree = uint32(last.End() - 1)
		v.info.FreeCount = t.sum.free
		v.infoDirty = true
	}
	return exts, v.table.Err()
}

// firstFit finds the first run of n free clusters at or after the cursor,
// then from cluster 2 up to the cursor.
func (v *Volume) firstFit(n uint32) []Extent {
	max := v.layout.MaxCluster()
	if v.cursor < 2 || v.cursor > max {
		v.cursor = 2
	}
	if s, ok := v.table.findRun(v.cursor, max, n); ok {
		return []Extent{{s, n}}
	}
	if s, ok := v.table.findRun(2, v.cursor+Cluster(n)-1, n); ok {
		return []Extent{{s, n}}
	}
	return nil
}

// maxPieces bounds how many of the largest free runs fewestRuns takes one
// by one; the rest of a request comes from the cursor on, in disk order.
const maxPieces = 64

// fewestRuns takes the largest free runs, longest first (the first of
// equals), until n clusters are covered, and returns them in disk order:
// the fewest pieces that hold n. Each run comes from the summary, so a
// piece costs a pass over the summary and one window, not over the FAT.
// After maxPieces pieces the remainder is taken in disk order from the
// cursor (a volume whose free space is dust). The clusters are marked
// taken (end of chain) as they are chosen; allocate links them.
func (v *Volume) fewestRuns(n uint32) []Extent {
	t := v.table
	var got []Extent
	mark := func(e Extent) {
		for c := e.Start; c < e.End(); c++ {
			t.Set(c, t.EOC())
		}
		got = append(got, e)
		n -= e.Len
	}
	for len(got) < maxPieces && n > 0 {
		e := t.largestRun()
		if e.Len == 0 {
			break
		}
		e.Len = min(e.Len, n)
		mark(e)
	}
	if n > 0 {
		rest := v.takeInOrder(n)
		if rest == nil {
			for _, e := range got {
				for c := e.Start; c < e.End(); c++ {
					t.Set(c, 0)
				}
			}
			return nil
		}
		for _, e := range rest {
			mark(e)
		}
	}
	slices.SortFunc(got, func(a, b Extent) int { return int(a.Start) - int(b.Start) })
	return got
}

// freeClusters marks the clusters of exts free. A cluster already free
// (one a damaged volume lists twice) is not counted twice: the summary
// counts what the FAT holds.
func (v *Volume) freeClusters(exts []Extent) {
	if len(exts) == 0 {
		return
	}
	v.freeCount()
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			v.table.Set(c, 0)
		}
	}
	if v.info != nil {
		v.info.FreeCount = v.table.sum.free
		v.infoDirty = true
	}
}

// extentsOf turns a cluster list into runs.
func extentsOf(cs []Cluster) []Extent {
	var out []Extent
	for _, c := range cs {
		if n := len(out); n > 0 && out[n-1].End() == c {
			out[n-1].Len++
			continue
		}
		out = append(out, Extent{c, 1})
	}
	return out
}

// clusterAt is the i-th cluster (from 0) of the chain exts.
func clusterAt(exts []Extent, i int64) (Cluster, bool) {
	for _, e := range exts {
		if i < int64(e.Len) {
			return e.Start + Cluster(i), true
		}
		i -= int64(e.Len)
	}
	return 0, false
}
