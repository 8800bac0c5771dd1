package fat

import (
	"math"

	"github.com/ftools/ftools/pkg/internal/bounds"
)

// chainEnd says how a chain walk ended.
type chainEnd int

const (
	endEOC   chainEnd = iota // an end-of-chain mark: the chain is sound
	endStart                 // the first cluster is not a data cluster
	endOwned                 // the walk reached a cluster already claimed (a loop or a cross-link)
	endFree                  // the next cluster is marked free
	endBad                   // the next cluster is marked bad
	endRange                 // the last cluster claimed links outside the data clusters (or to a reserved value)
	endLimit                 // the walk claimed as many clusters as it was allowed and the chain goes on
)

// chainWalk is how one chain walk went.
type chainWalk struct {
	end  chainEnd
	at   Cluster // where the walk stopped: the cluster not claimed (endOwned, endFree, endBad, endLimit, endStart), or the last one claimed (endEOC, endRange)
	val  Cluster // endRange: the out-of-range value at's entry holds
	n    int64   // clusters claimed
	last Cluster // the last cluster claimed, 0 if none
}

// walkChain follows the chain from first in tb, claiming every cluster for
// id in cl, at most limit clusters (a negative limit: no bound but the
// table's). It stops before a cluster that is already claimed, free or
// bad, after one whose entry holds an end mark or links out of range, or
// when the limit is reached, so it takes at most Entries() steps whatever
// the table holds. The last cluster claimed, and every claimStride-th, is
// recorded as id's (claims.holder). visit, if not nil, sees each claimed
// cluster in order.
func walkChain(tb Table, cl *claims, id uint32, first Cluster, limit int64, visit func(Cluster)) chainWalk {
	w := walkClaim(tb, cl, id, first, limit, visit)
	if w.n > 0 {
		cl.mark(w.last, id, true)
	}
	return w
}

func walkClaim(tb Table, cl *claims, id uint32, first Cluster, limit int64, visit func(Cluster)) chainWalk {
	top := Cluster(tb.Entries() - 1)
	if first < FirstCluster || first > top {
		return chainWalk{end: endStart, at: first}
	}
	var w chainWalk
	for c := first; ; {
		cl.steps++
		if limit >= 0 && w.n >= limit {
			w.end, w.at = endLimit, c
			return w
		}
		if cl.has(c) {
			w.end, w.at = endOwned, c
			return w
		}
		v := tb.Get(c)
		switch {
		case tb.IsFree(v):
			w.end, w.at = endFree, c
			return w
		case tb.IsBad(v):
			w.end, w.at = endBad, c
			return w
		}
		w.n++
		if w.n%claimStride == 0 {
			cl.mark(c, id, false)
		} else {
			cl.set(c)
		}
		w.last = c
		if visit != nil {
			visit(c)
		}
		switch {
		case tb.IsEOC(v):
			w.end, w.at = endEOC, c
			return w
		case v < FirstCluster || v > top:
			w.end, w.at, w.val = endRange, c, v
			return w
		}
		c = v
	}
}

// fatEntryOffset is the byte offset of cluster c's entry in FAT 1 on the
// volume.
func fatEntryOffset(l *Layout, c Cluster) int64 {
	switch l.Type {
	case FAT12:
		return l.FATOffset + int64(c) + int64(c)/2
	case FAT16:
		return l.FATOffset + 2*int64(c)
	}
	return l.FATOffset + 4*int64(c)
}

// clustersFor is the number of clusters a file of size bytes needs.
// A FAT size is 32 bits, so the count always fits; whether it fits the
// volume is the chain walk's to find (the walk is bounded by the table).
func clustersFor(size uint32, cs int64) int64 {
	n, _ := bounds.Clusters(uint64(size), cs, math.MaxUint64)
	return int64(n)
}

// dirClusterLimit is the most clusters a directory may have: FAT's limit
// of 65,536 entries.
func dirClusterLimit(l *Layout) int64 { return MaxDirEntries * DirEntrySize / l.ClusterSize }

// limitFor is how many clusters a walk may claim for a node: a file as
// many as its size needs (the rest of a longer chain is not its data), a
// directory up to FAT's size limit.
func (t *treeCheck) limitFor(nd *node) int64 { return t.limit(nd.dir, nd.size) }

func (t *treeCheck) limit(dir bool, size uint32) int64 {
	if dir {
		return dirClusterLimit(t.l)
	}
	return clustersFor(size, t.l.ClusterSize)
}

// score counts the chain faults of table tb for the chains the directory
// walk found: every chain that does not end properly and every file whose
// chain length does not match its size. judgeCopies compares FAT copies
// with it. Lost clusters do not count: a crash leaves them in the copy
// written first, which is the newer and sound one.
func (t *treeCheck) score(tb Table) int {
	cl := newClaims(tb.Entries())
	defer cl.free()
	faults := 0
	for i := range t.nodes.len() {
		nd := t.nodes.at(i)
		first0, size0 := t.asFound(i)
		if first0 == 0 || nd.gone {
			continue
		}
		need := t.limit(nd.dir, size0)
		w := walkChain(tb, cl, uint32(i+1), first0, need, nil)
		if w.end != endEOC || !nd.dir && w.n != need {
			faults++
		}
	}
	t.plan.work.chainSteps += cl.steps
	return faults
}
