package fat

import (
	"fmt"
	"math"
)

// lost counts free, bad and lost clusters, and finds the lost ones'
// chains: each is reported with its first cluster and length, and planned
// freed or (with Salvage) saved as a file FSCKnnnn.REC in the root. A
// chain that runs into a cluster some file holds, into a free or bad one,
// out of range or into another lost chain ends before it; a loop of lost
// clusters is cut, as fsck.fat does.
func (t *treeCheck) lost() {
	tb := t.tb
	n := tb.Entries()
	if tb == t.v.table && t.plan.volume == len(t.plan.steps) {
		if free := t.fat1Free(); int64(free)+t.claimed == int64(n-2) {
			// Every cluster is free or in a chain the walk found (its
			// claims are all there are when it planned no fix): no bad,
			// none lost.
			t.rep.FreeClusters = free
			return
		}
	}
	lostBits := newBitmap(n)
	defer lostBits.free()
	free, bad, lost := countUnclaimed(tb, t.claims, &lostBits)
	t.plan.work.fatReads += int64(n)
	t.rep.FreeClusters, t.rep.BadClusters, t.rep.LostClusters = free, bad, lost
	if lost == 0 {
		return
	}
	// A lost cluster is one marked in lostBits and not claimed yet: lost
	// chains claim clusters as they are found, and nothing else changes
	// an unclaimed cluster's entry meanwhile.
	isLost := func(c Cluster) bool { return lostBits.has(c) && !t.claims.has(c) }
	// A lost cluster that another lost cluster links to is no chain's head.
	linked := newBitmap(n)
	defer linked.free()
	scanTable(tb, func(first Cluster, vals []uint32) {
		for i, v := range vals {
			if c := first + Cluster(i); c >= FirstCluster && lostBits.has(c) && v >= uint32(FirstCluster) && v < n && lostBits.has(Cluster(v)) {
				linked.set(Cluster(v))
			}
		}
	})
	t.plan.work.fatReads += int64(n)
	// Heads in order, then what could not join their chains, in turn.
	var rest []Cluster
	lostBits.each(func(c Cluster) bool {
		if !linked.has(c) && isLost(c) {
			rest = append(rest, t.lostChain(c)...)
		}
		return true
	})
	for len(rest) > 0 {
		rest = append(rest[1:], t.lostChain(rest[0])...)
	}
	// What is left unclaimed are loops. Each is cut at its lowest cluster,
	// as fsck.fat cuts it, and starts at the cluster after that one: the
	// walk from there comes round to the lowest and ends it.
	lostBits.each(func(c Cluster) bool {
		if isLost(c) {
			for more := []Cluster{tb.Get(c)}; len(more) > 0; {
				more = append(more[1:], t.lostChain(more[0])...)
			}
		}
		return true
	})
}

// fat1Free is FAT 1's free clusters: as the FAT copies' reading counted
// them, else counted now.
func (t *treeCheck) fat1Free() uint32 {
	if t.copies != nil && t.copies.counted {
		return t.copies.free
	}
	return t.v.freeCount()
}

// isLost reports whether cluster c is allocated, not bad, and held by no
// chain (nor yet by a lost chain).
func (t *treeCheck) isLost(c Cluster) bool {
	if t.claims.has(c) {
		return false
	}
	v := t.tb.Get(c)
	return !t.tb.IsFree(v) && !t.tb.IsBad(v)
}

// lostChain claims the lost chain from head, reports it and plans its
// fix. It returns the head of a rest that could not join it (a chain too
// long for one file's size).
func (t *treeCheck) lostChain(head Cluster) []Cluster {
	tb, l := t.tb, t.l
	maxN := int64(math.MaxUint32) / l.ClusterSize
	// The chain is counted, not held (a lost chain may be millions of
	// clusters): freeing it follows it again.
	n := int64(0)
	var rest []Cluster
	for c := head; ; {
		t.claims.set(c)
		n++
		t.plan.work.chainSteps++
		v := tb.Get(c)
		if tb.IsEOC(v) {
			break
		}
		linked := v >= FirstCluster && uint32(v) < tb.Entries()
		if linked && n == maxN && t.isLost(v) {
			rest = append(rest, v)
		} else if linked && t.isLost(v) {
			c = v
			continue
		}
		t.plan.set(c, tb.EOC()) // the chain links where it should not: it ends here
		break
	}
	t.rep.LostChains++
	p := t.problem(KindLost, "", head, fatEntryOffset(l, head), "%d clusters from cluster %d (%d bytes) are allocated but no entry reaches them", n, head, n*l.ClusterSize)
	if t.plan.salvage {
		if name, ok := t.saveLost(head, uint32(n*l.ClusterSize)); ok {
			t.fix(p, "save the %d lost clusters from cluster %d as /%s", n, head, name)
			return rest
		}
		p.Message += "; the root directory has no room to save them"
		t.rep.add(p)
		return rest
	}
	t.fix(p, "free the %d lost clusters from cluster %d", n, head)
	t.plan.work.chainSteps += n
	for c, i := head, int64(0); i < n; i++ {
		next := tb.Get(c) // the chain's link, unless c is its last
		t.plan.set(c, 0)
		c = next
	}
	return rest
}

// lostSaves is where saveLost goes on in the root directory: while lost
// chains are saved nothing else changes the root, so the slots before at
// are taken, the names before name too, and once the root is full it
// stays full. Each slot and name is thus looked at once per pass, however
// many chains there are.
type lostSaves struct {
	started bool
	at      int  // the next slot to look at
	end     int  // the root's end marker (DirEnd)
	name    int  // the next FSCKnnnn.REC to try
	full    bool // no slot or name is left
}

// saveLost plans an entry FSCKnnnn.REC in the root directory for the lost
// chain from head, size bytes long, as fsck.fat -f names them.
func (t *treeCheck) saveLost(head Cluster, size uint32) (string, bool) {
	s, w := &t.saves, &t.plan.work
	if s.full {
		return "", false
	}
	pd := t.dirPlan(0)
	if !s.started {
		s.started, s.end = true, DirEnd(pd.raw)
		w.dirSlots += int64(s.end)
	}
	at := s.freeSlot(pd.raw, w)
	if at < 0 && t.growDir(0) {
		pd = t.dirPlan(0)
		at = s.freeSlot(pd.raw, w)
	}
	if at < 0 {
		s.full = true
		return "", false
	}
	var name ShortName
	used := pd.usedNames()
	for ; ; s.name++ {
		if s.name == 10000 || w.spent() {
			s.full = true
			return "", false
		}
		w.nameTries++
		copy(name[:], fmt.Sprintf("FSCK%04dREC", s.name))
		if !used.Has(name) {
			used.Add(name)
			s.name++
			break
		}
	}
	e := DirEntry{Name: name, Attr: AttrArchive, Cluster: head, Size: size}
	now := t.v.Now()
	e.SetTimes(now, now, now)
	var b [DirEntrySize]byte
	e.Encode(b[:])
	pd.putEnd(at, b[:], s.end)
	s.end = max(s.end, at+1)
	s.at = at + 1
	return name.String(), true
}

// freeSlot is the first free slot of the root (raw) from s.at on, as
// freeRun finds one; -1 if there is none, and then s.at is past the last
// slot, where the slots of a cluster added to the root begin.
func (s *lostSaves) freeSlot(raw []byte, w *checkWork) int {
	for ; s.at < len(raw)/DirEntrySize && !w.spent(); s.at++ {
		w.dirSlots++
		b := raw[s.at*DirEntrySize:]
		if s.at >= s.end || b[0] == SlotDeleted && Attr(b[direntAttr])&attrLongNameMask != AttrLongName {
			return s.at
		}
	}
	return -1
}
