package fat

import (
	"fmt"
	"sort"
)

// Extent is a run of consecutive clusters.
type Extent struct {
	Start Cluster
	Len   uint32
}

// End is the cluster after the extent.
func (e Extent) End() Cluster { return e.Start + Cluster(e.Len) }

// NoSpaceError says how much was needed and how much was free.
type NoSpaceError struct {
	Need, Free int64 // bytes
}

func (e *NoSpaceError) Error() string {
	return fmt.Sprintf("no space left on volume: need %d bytes, %d free", e.Need, e.Free)
}

func (e *NoSpaceError) Unwrap() error { return ErrNoSpace }

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
// hold n clusters. A chain being extended grows in place when the clusters
// after its end are free. Only the in-memory FAT changes; FlushFAT writes
// it.
func (v *Volume) allocate(n uint32, after Cluster) ([]Extent, error) {
	if n == 0 {
		return nil, nil
	}
	if free := v.allocatable(); n > free {
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
		if e, ok := v.scanRun(after+1, after+Cluster(n), n); ok {
			exts = []Extent{e}
		}
	}
	if exts == nil {
		exts = v.firstFit(n)
	}
	if exts == nil {
		exts = v.fewestRuns(n)
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
	v.free -= n
	last := exts[len(exts)-1]
	v.cursor = last.End()
	if v.cursor > v.layout.MaxCluster() {
		v.cursor = 2
	}
	if v.info != nil {
		v.info.NextFree = uint32(last.End() - 1)
		v.info.FreeCount = v.free
		v.infoDirty = true
	}
	return exts, nil
}

// firstFit finds the first run of n free clusters at or after the cursor,
// then from cluster 2 up to the cursor.
func (v *Volume) firstFit(n uint32) []Extent {
	max := v.layout.MaxCluster()
	if v.cursor < 2 || v.cursor > max {
		v.cursor = 2
	}
	if e, ok := v.scanRun(v.cursor, max, n); ok {
		return []Extent{e}
	}
	if e, ok := v.scanRun(2, v.cursor+Cluster(n)-1, n); ok {
		return []Extent{e}
	}
	return nil
}

// scanRun looks for n free clusters in a row in [from, to].
func (v *Volume) scanRun(from, to Cluster, n uint32) (Extent, bool) {
	if to > v.layout.MaxCluster() {
		to = v.layout.MaxCluster()
	}
	var start Cluster
	var run uint32
	for c := from; c <= to; c++ {
		if !v.usable(c) {
			run = 0
			continue
		}
		if run == 0 {
			start = c
		}
		run++
		if run == n {
			return Extent{start, n}, true
		}
	}
	return Extent{}, false
}

// fewestRuns gathers every free run, takes the longest first until n
// clusters are covered, and returns them in disk order.
func (v *Volume) fewestRuns(n uint32) []Extent {
	var all []Extent
	max := v.layout.MaxCluster()
	for c := Cluster(2); c <= max; c++ {
		if !v.usable(c) {
			continue
		}
		s := c
		for c <= max && v.usable(c) {
			c++
		}
		all = append(all, Extent{s, uint32(c - s)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Len > all[j].Len })
	var got []Extent
	for _, e := range all {
		if n == 0 {
			break
		}
		if e.Len > n {
			e.Len = n
		}
		got = append(got, e)
		n -= e.Len
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Start < got[j].Start })
	return got
}

func (v *Volume) freeClusters(cs []Cluster) {
	for _, c := range cs {
		v.table.Set(c, 0)
	}
	v.free += uint32(len(cs))
	if v.info != nil && len(cs) > 0 {
		v.info.FreeCount = v.free
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
