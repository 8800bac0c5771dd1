package fat

// chainEnd says how a chain walk ended.
type chainEnd int

const (
	endEOC   chainEnd = iota // an end-of-chain mark: the chain is sound
	endStart                 // the first cluster is not a data cluster
	endOwned                 // the walk reached a cluster already claimed (a loop or a cross-link)
	endFree                  // a cluster in the chain is marked free
	endBad                   // a cluster in the chain is marked bad
	endRange                 // a cluster links outside the data clusters (or to a reserved value)
)

// walkChain follows the chain from first in tb, claiming every cluster for
// id in owner (which has tb.Entries() elements; 0 means unclaimed). It stops
// at the end mark or at the first fault, so it takes at most Entries()
// steps whatever the table holds. visit, if not nil, sees each claimed
// cluster in order. It returns how the walk ended, the cluster where it
// ended (the faulty one; for endOwned the cluster already claimed), that
// cluster's FAT value, and the number of clusters claimed.
func walkChain(tb Table, owner []uint32, id uint32, first Cluster, visit func(Cluster)) (end chainEnd, at, val Cluster, n int64) {
	last := Cluster(tb.Entries() - 1)
	if first < FirstCluster || first > last {
		return endStart, first, 0, 0
	}
	for c := first; ; {
		if owner[c] != 0 {
			return endOwned, c, 0, n
		}
		owner[c] = id
		n++
		if visit != nil {
			visit(c)
		}
		v := tb.Get(c)
		switch {
		case tb.IsEOC(v):
			return endEOC, c, v, n
		case tb.IsFree(v):
			return endFree, c, v, n
		case tb.IsBad(v):
			return endBad, c, v, n
		case v < FirstCluster || v > last:
			return endRange, c, v, n
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
func clustersFor(size uint32, cs int64) int64 { return (int64(size) + cs - 1) / cs }

// score counts the chain faults of table tb for the chains the directory
// walk found: every chain that does not end properly, every file whose
// chain length does not match its size, and every lost cluster. judgeCopies
// compares FAT copies with it.
func (t *treeCheck) score(tb Table) int {
	owner := make([]uint32, tb.Entries())
	faults := 0
	cs := t.v.layout.ClusterSize
	for i := range t.nodes {
		nd := &t.nodes[i]
		if nd.first == 0 {
			continue
		}
		end, _, _, n := walkChain(tb, owner, uint32(i+1), nd.first, nil)
		switch {
		case end != endEOC:
			faults++
		case !nd.dir && n != clustersFor(nd.size, cs):
			faults++
		}
	}
	for c := FirstCluster; uint32(c) < tb.Entries(); c++ {
		if v := tb.Get(c); owner[c] == 0 && !tb.IsFree(v) && !tb.IsBad(v) {
			faults++
		}
	}
	return faults
}
