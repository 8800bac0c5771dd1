package fat

import (
	"encoding/binary"
	"fmt"
)

func putU16(b []byte, x uint16) { binary.LittleEndian.PutUint16(b, x) }
func putU32(b []byte, x uint32) { binary.LittleEndian.PutUint32(b, x) }

// checkDots checks slots 0 and 1 of a subdirectory, which must hold "."
// (the directory itself) and ".." (its parent, 0 for the root), as
// fsck.fat does: a wrong one is pointed right, a missing one made, and a
// member in its place moved down first. It returns recs with the records
// of the two entries marked taken (Slots 0).
func (t *treeCheck) checkDots(idx int, raw []byte, recs []Record) []Record {
	nd := t.nodes.at(idx)
	up := Cluster(0)
	if p := int(nd.parent); p > 0 {
		up = t.nodes.at(p).first
	}
	if t.l.Type == FAT32 && up == t.l.RootCluster {
		up = 0
	}
	for i, want := range []struct {
		name  ShortName
		kind  string
		first Cluster
	}{{DotName, KindDot, nd.first}, {DotDotName, KindDotDot, up}} {
		if (i+1)*DirEntrySize > len(raw) {
			break
		}
		path, off := t.path(idx), t.slotOff(idx, i)
		b := raw[i*DirEntrySize : (i+1)*DirEntrySize]
		e := DecodeDirEntry(b)
		e.ClusterFor(t.l.Type)
		label := want.name.String()
		switch {
		case ShortName(e.Name) == want.name:
			for k := range recs {
				if recs[k].Slot == i && recs[k].Short == want.name {
					recs[k].Slots = 0
				}
			}
			if e.IsDir() && !e.IsLongName() && e.Cluster == want.first {
				if e.NTRes&ntNoShortName != 0 {
					t.fix(t.problem(want.kind, path, e.Cluster, off+direntNTRes, "the %q entry has the NT flag %#02x that says it is no short name", label, ntNoShortName),
						"clear the flag of the %q entry of %s", label, path)
					t.dirPlan(idx).slot(i)[direntNTRes] &^= ntNoShortName
				}
				continue
			}
			t.fix(t.problem(want.kind, path, e.Cluster, off, "the %q entry has attributes %#02x and cluster %d, want a directory at cluster %d", label, uint8(e.Attr), e.Cluster, want.first),
				"point the %q entry of %s at cluster %d", label, path, want.first)
		case b[0] == SlotEnd || b[0] == SlotDeleted:
			t.fix(t.problem(want.kind, path, 0, off, "the %q entry is missing: slot %d is free", label, i),
				"make the %q entry of %s", label, path)
		default:
			k := recordAt(recs, i)
			if k < 0 {
				// A long name slot no record claims: checkLongNames deletes it.
				t.fix(t.problem(want.kind, path, 0, off, "the %q entry is missing: slot %d holds a stray long name slot", label, i),
					"make the %q entry of %s", label, path)
				break
			}
			to, ok := t.moveRecord(idx, &recs[k])
			if !ok {
				t.rep.add(t.problem(want.kind, path, 0, off, "the %q entry is missing: slot %d holds %q, and there is no room to move it", label, i, recs[k].Name))
				continue
			}
			t.fix(t.problem(want.kind, path, 0, off, "the %q entry is missing: slot %d holds %q", label, i, recs[k].Name),
				"move %q to slot %d of %s and make the %q entry", recs[k].Name, to, path, label)
		}
		pd := t.dirPlan(idx)
		s := pd.slot(i)
		clear(s)
		copy(s, want.name[:])
		s[direntAttr] = byte(AttrDirectory)
		putU16(s[direntClusterLow:], uint16(want.first))
		if t.l.Type == FAT32 {
			putU16(s[direntClusterHigh:], uint16(want.first>>16))
		}
	}
	return recs
}

// recordAt returns the index of the record holding slot i, or -1.
func recordAt(recs []Record, i int) int {
	for k := range recs {
		if r := &recs[k]; r.Slots > 0 && r.Slot <= i && i < r.Slot+r.Slots {
			return k
		}
	}
	return -1
}

// moveRecord plans record r of directory idx moved to the first free run
// of slots from slot 2 on, growing the directory if it must, and updates
// r to its new place.
func (t *treeCheck) moveRecord(idx int, r *Record) (int, bool) {
	pd := t.dirPlan(idx)
	to := freeRun(pd.raw, r.Slots, 2)
	if to < 0 && !t.growDir(idx) {
		return 0, false
	}
	if to < 0 {
		pd = t.dirPlan(idx)
		if to = freeRun(pd.raw, r.Slots, 2); to < 0 {
			return 0, false
		}
	}
	pd.put(to, append([]byte(nil), pd.raw[r.Slot*DirEntrySize:(r.Slot+r.Slots)*DirEntrySize]...))
	pd.remove(r.Slot, r.Slots)
	r.Slot = to
	return to, true
}

// freeRun finds n free slots in a row from slot from on: deleted slots
// that hold no long name attributes, or slots at or after the end marker.
// -1 if there are none.
func freeRun(raw []byte, n, from int) int {
	end := DirEnd(raw)
	run := 0
	for i := from; i < len(raw)/DirEntrySize; i++ {
		b := raw[i*DirEntrySize:]
		if i >= end || b[0] == SlotDeleted && Attr(b[direntAttr])&attrLongNameMask != AttrLongName {
			if run++; run == n {
				return i - n + 1
			}
		} else {
			run = 0
		}
	}
	return -1
}

// put writes slots (whole 32-byte slots) from slot to on. When they take
// slots from beyond the end marker, the slot after them is made the end
// marker again, so that no stale bytes there read as entries.
func (pd *planDir) put(to int, slots []byte) { pd.putEnd(to, slots, DirEnd(pd.raw)) }

// putEnd is put in a directory whose end marker is known to be at slot
// end.
func (pd *planDir) putEnd(to int, slots []byte, end int) {
	n := len(slots) / DirEntrySize
	for k := 0; k < n; k++ {
		copy(pd.slot(to+k), slots[k*DirEntrySize:])
	}
	if next := to + n; next > end && next < len(pd.raw)/DirEntrySize && pd.raw[next*DirEntrySize] != SlotEnd {
		clear(pd.slot(next))
	}
}

// growDir plans one zeroed cluster added to chained directory idx.
func (t *treeCheck) growDir(idx int) bool {
	nd, d := t.nodes.at(idx), t.dirs[idx]
	if nd.first == 0 || int64(len(d.chain)) >= dirClusterLimit(t.l) || len(d.chain) == 0 {
		return false
	}
	c, ok := t.plan.alloc()
	if !ok {
		return false
	}
	t.plan.fillData(c, 0)
	t.plan.linkTo(d.chain[len(d.chain)-1], c)
	t.claims.mark(c, uint32(idx+1), true)
	pd := t.dirPlan(idx)
	d.chain = append(d.chain, c)
	pd.chain = d.chain
	pd.raw = append(pd.raw, make([]byte, t.l.ClusterSize)...)
	if idx == t.cur {
		t.curRaw = pd.raw
	}
	return true
}

// checkMember checks a file or directory entry's size and first cluster
// and claims its chain. It returns false when the plan deletes the entry.
func (t *treeCheck) checkMember(idx int) bool {
	nd := t.nodes.at(idx)
	l := t.l
	if nd.dir {
		t.rep.Dirs++
		if nd.size != 0 {
			t.fix(t.problem(KindDirSize, t.path(idx), nd.first, t.entryOff(idx)+direntSize, "directory has size %d, not 0", nd.size),
				"set the size of directory %s to 0", t.path(idx))
			t.setSize(idx, 0)
		}
		if t.dirLink(idx) {
			return false
		}
	} else {
		t.rep.Files++
		if nd.first == 0 {
			if nd.size != 0 {
				t.fix(t.problem(KindSize, t.path(idx), 0, t.entryOff(idx)+direntSize, "file of %d bytes has no cluster", nd.size),
					"set the size of %s to 0", t.path(idx))
				t.setSize(idx, 0)
			}
			return true
		}
	}
	if nd.first == 1 || nd.first > l.MaxCluster() {
		t.badStart(idx, "is not a data cluster (2..%d)", l.MaxCluster())
		return !nd.gone
	}
	w := t.walkNode(idx)
	if w.end == endEOC && (nd.dir || w.n == t.limitFor(nd)) {
		return true
	}
	t.chainFault(idx, w)
	return !nd.gone
}

// dirLink reports and plans deleted a directory entry that points at the
// root, its own directory or that directory's parent: a link, not a
// directory of its own (fsck.fat deletes these too).
func (t *treeCheck) dirLink(idx int) bool {
	nd := t.nodes.at(idx)
	container := t.nodes.at(int(nd.parent))
	what := ""
	switch {
	case nd.first == 0:
		what = "the root directory (cluster 0)"
	case t.l.Type == FAT32 && nd.first == t.l.RootCluster:
		what = "the root directory"
	case nd.first == container.first:
		what = "its own directory " + t.path(int(nd.parent))
	case container.parent >= 0 && nd.first == t.nodes.at(int(container.parent)).first:
		what = "the parent " + t.path(int(container.parent)) + " of its directory"
	default:
		return false
	}
	t.fix(t.problem(KindDirLink, t.path(idx), nd.first, t.entryOff(idx)+direntClusterLow, "directory entry points at %s", what),
		"delete the directory entry %s", t.path(idx))
	t.deleteEntry(idx)
	return true
}

// badStart plans a first cluster that cannot be used away: a file keeps
// its entry, empty (as fsck.fat does); a directory's entry is deleted.
func (t *treeCheck) badStart(idx int, format string, args ...any) {
	nd := t.nodes.at(idx)
	p := t.problem(KindStart, t.path(idx), nd.first, t.entryOff(idx)+direntClusterLow, "first cluster %d "+format, append([]any{nd.first}, args...)...)
	if nd.dir {
		t.fix(p, "delete the directory entry %s", t.path(idx))
		t.deleteEntry(idx)
		return
	}
	t.fix(p, "make %s an empty file (it has no data to keep)", t.path(idx))
	t.setStart(idx, 0)
	if nd.size != 0 {
		t.setSize(idx, 0)
	}
}

// chainFault reports and plans the fix of a chain walk that did not end
// where node idx needs it to.
func (t *treeCheck) chainFault(idx int, w chainWalk) {
	nd := t.nodes.at(idx)
	l := t.l
	switch w.end {
	case endEOC:
		t.sizeFix(idx, w.n, "")
		return
	case endLimit:
		if t.holder(w.at) == idx {
			t.fix(t.problem(KindLoop, t.path(idx), w.at, fatEntryOffset(l, w.last), "the chain loops back to cluster %d after %d clusters", w.at, w.n),
				"end the chain of %s at cluster %d", t.path(idx), w.last)
		} else if nd.dir {
			t.fix(t.problem(KindChain, t.path(idx), w.at, fatEntryOffset(l, w.last), "directory chain goes on past %d clusters, FAT's limit of %d entries", w.n, MaxDirEntries),
				"end the chain of %s after %d clusters", t.path(idx), w.n)
		} else {
			t.fix(t.problem(KindSize, t.path(idx), w.at, fatEntryOffset(l, max(w.last, nd.first)), "file of %d bytes needs %d clusters but its chain goes on", nd.size, w.n),
				"end the chain of %s after %d clusters, as its size says", t.path(idx), w.n)
		}
		t.cut(idx, w.last)
		return
	case endRange:
		t.fix(t.problem(KindChain, t.path(idx), w.at, fatEntryOffset(l, w.at), "cluster %d links to %#x, not a data cluster (2..%d) or end of chain", w.at, uint32(w.val), l.MaxCluster()),
			"end the chain of %s at cluster %d", t.path(idx), w.at)
		t.plan.set(w.at, t.tb.EOC())
		t.sizeFix(idx, w.n, "")
		return
	case endFree, endBad:
		what := "free"
		if w.end == endBad {
			what = "bad"
		}
		if w.n == 0 {
			if idx == 0 {
				return // the FAT32 root: claimRoot reports it
			}
			t.badStart(idx, "is marked %s", what)
			return
		}
		t.fix(t.problem(KindChain, t.path(idx), w.at, fatEntryOffset(l, w.last), "cluster %d (number %d of the chain) is marked %s", w.at, w.n+1, what),
			"end the chain of %s at cluster %d", t.path(idx), w.last)
		t.cut(idx, w.last)
		t.sizeFix(idx, w.n, "")
		return
	}
	// endOwned
	o := t.holder(w.at)
	if o < 0 {
		// Every cluster a walk claims has a holder (claims.holder); were
		// one missing, end the chain before the cluster rather than fail.
		t.fix(t.problem(KindCrossLink, t.path(idx), w.at, l.ClusterOffset(w.at), "cluster %d (number %d of the chain) also belongs to another chain", w.at, w.n+1),
			"end the chain of %s before cluster %d", t.path(idx), w.at)
		t.cut(idx, w.last)
		t.sizeFix(idx, w.n, "")
		return
	}
	if o == idx {
		t.fix(t.problem(KindLoop, t.path(idx), w.at, fatEntryOffset(l, w.last), "the chain loops back to cluster %d after %d clusters", w.at, w.n),
			"end the chain of %s at cluster %d", t.path(idx), w.last)
		t.cut(idx, w.last)
		t.sizeFix(idx, w.n, "")
		return
	}
	t.shared(idx, o, w)
}

// cut plans node idx's chain to end at cluster last (0: no clusters).
func (t *treeCheck) cut(idx int, last Cluster) {
	if last == 0 {
		t.setStart(idx, 0)
		return
	}
	t.plan.set(last, t.tb.EOC())
}

// sizeFix plans a file's size down to what its n clusters hold, as
// fsck.fat does, when the chain is shorter than the size says. A second
// size fix of the same file (a cross-link found later cuts it shorter)
// rewrites the first.
func (t *treeCheck) sizeFix(idx int, n int64, why string) {
	nd := t.nodes.at(idx)
	cs := t.l.ClusterSize
	if nd.dir || clustersFor(nd.size, cs) <= n {
		return
	}
	have := uint32(min(n*cs, 0xFFFFFFFF))
	first0, size0 := t.asFound(idx)
	msg := fmt.Sprintf("size %d bytes needs %d clusters but the chain has %d%s", size0, clustersFor(size0, cs), n, why)
	fix := fmt.Sprintf("set the size of %s to %d bytes, what its clusters hold", t.path(idx), have)
	if k, s := t.sizes[idx].prob-1, t.sizes[idx].step-1; k >= 0 && s >= 0 {
		t.rep.Problems[k].Message, t.rep.Problems[k].Fix = msg, fix
		t.plan.steps[s] = fix
	} else {
		probs, steps := len(t.rep.Problems), len(t.plan.steps)
		t.fix(Problem{Kind: KindSize, Path: t.path(idx), Cluster: first0, Offset: t.entryOff(idx) + direntSize, Message: msg}, "%s", fix)
		if len(t.rep.Problems) > probs && len(t.plan.steps) > steps {
			t.sizes[idx] = sizeRef{prob: len(t.rep.Problems), step: len(t.plan.steps)}
		}
	}
	t.setSize(idx, have)
}

// shared handles node idx's walk reaching cluster w.at, which node o
// holds: an interrupted rename (two entries, one file), a directory entry
// linking to an ancestor, or a cross-link. Of two files sharing clusters,
// the second gets copies of the shared clusters so that both keep their
// bytes; where a directory is involved, or no free cluster is left, the
// second is cut before the shared cluster (as fsck.fat does).
func (t *treeCheck) shared(idx, o int, w chainWalk) {
	nd, other := t.nodes.at(idx), t.nodes.at(o)
	l := t.l
	switch {
	case w.n == 0 && other.first == nd.first && other.size == nd.size && other.dir == nd.dir:
		t.interruptedRename(idx, o)
		return
	case w.n == 0 && nd.dir && other.dir && other.first == w.at && isAncestor(t.path(o), t.path(idx)):
		t.fix(Problem{Kind: KindDirLink, Path: t.path(idx), Paths: []string{t.path(idx), t.path(o)}, Cluster: w.at, Offset: t.entryOff(idx) + direntClusterLow,
			Message: "directory entry points at its ancestor " + t.path(o)},
			"delete the directory entry %s", t.path(idx))
		t.deleteEntry(idx)
		return
	}
	p := Problem{Kind: KindCrossLink, Path: t.path(idx), Paths: []string{t.path(idx), t.path(o)}, Cluster: w.at, Offset: l.ClusterOffset(w.at)}
	p.Message = fmt.Sprintf("cluster %d (number %d of the chain) also belongs to %s", w.at, w.n+1, t.path(o))
	if nd.dir && !other.dir && t.onDiskChain(o, w.at) {
		// A file's chain that runs into a directory's clusters ran off its
		// end: the directory keeps them, the file ends before them. (Not so
		// a cluster the file holds only as a planned copy, free on disk:
		// there the directory gives way, below.)
		t.fix(p, "end the chain of %s before cluster %d, which belongs to directory %s", t.path(o), w.at, t.path(idx))
		t.yield(o, w.at)
		if t.holder(w.at) != o {
			for _, c := range t.chain(idx) {
				t.claims.unclaim(c)
			}
			if w := t.walkNode(idx); w.end != endEOC {
				t.chainFault(idx, w)
			}
			return
		}
		// Were the claim to stay (a damaged chain that leads to w.at on
		// disk but not the way the claims do), walking the directory again
		// would meet it again, without end: the directory gives way, below.
		p.Message = fmt.Sprintf("cluster %d (number %d of the chain) still belongs to %s once its chain is cut", w.at, w.n+1, t.path(o))
	}
	if !nd.dir && !other.dir {
		if k, ok := t.copyTail(idx, w); ok {
			t.fix(p, "give %s copies of the %d clusters it shares with %s, from cluster %d on", t.path(idx), k, t.path(o), w.at)
			t.sizeFix(idx, w.n+k, " once the shared clusters are copied")
			return
		}
	}
	if w.n == 0 && nd.dir {
		t.fix(p, "delete the directory entry %s, whose clusters are %s's", t.path(idx), t.path(o))
		t.deleteEntry(idx)
		return
	}
	t.fix(p, "end the chain of %s before cluster %d", t.path(idx), w.at)
	t.cut(idx, w.last)
	t.sizeFix(idx, w.n, "")
}

// onDiskChain reports whether node o's chain in the FAT the check follows
// reaches cluster at within the clusters its walk could claim (its size's
// worth, the size as found).
func (t *treeCheck) onDiskChain(o int, at Cluster) bool {
	nd := t.nodes.at(o)
	_, size0 := t.asFound(o)
	c, limit := nd.first, t.limit(nd.dir, max(nd.size, size0))
	for n := int64(0); n < limit && c >= FirstCluster && uint32(c) < t.tb.Entries(); n++ {
		if c == at {
			return true
		}
		t.plan.work.chainSteps++
		c = t.tb.Get(c)
	}
	return false
}

// yield plans file o's chain cut before cluster at, and gives up its
// claim on the clusters from at on.
func (t *treeCheck) yield(o int, at Cluster) {
	nd := t.nodes.at(o)
	var prev Cluster
	n := int64(0)
	// c is o's while the cluster before it was o's and not its last:
	// holder is asked only where that does not tell.
	for c, mine := nd.first, t.holder(nd.first) == o; c != at && mine && n < t.limitFor(nd); n++ {
		mine = t.claims.has(c) && !t.claims.isEnd(c)
		t.plan.work.chainSteps++
		prev, c = c, t.tb.Get(c)
		if c < FirstCluster || uint32(c) >= t.tb.Entries() {
			return // at is not in o's chain: nothing to give up
		}
		if !mine {
			mine = t.holder(c) == o
		}
	}
	t.cut(o, prev)
	if prev != 0 {
		t.claims.mark(prev, uint32(o+1), true)
	}
	for c, mine := at, t.holder(at) == o; c >= FirstCluster && uint32(c) < t.tb.Entries() && mine; {
		end := t.claims.isEnd(c)
		t.claims.unclaim(c)
		t.plan.work.chainSteps++
		if c = t.tb.Get(c); end && c >= FirstCluster && uint32(c) < t.tb.Entries() {
			mine = t.holder(c) == o
		}
	}
	t.sizeFix(o, n, " once it ends where the directory begins")
}

// copyTail plans node idx, a file whose walk stopped at cluster w.at held
// by another file, to go on through copies of the clusters from w.at on,
// as many as its size needs (fewer if the chain ends first). It returns
// how many it planned; false if not one free cluster was left.
func (t *treeCheck) copyTail(idx int, w chainWalk) (int64, bool) {
	nd := t.nodes.at(idx)
	need := t.limitFor(nd) - w.n
	top := Cluster(t.tb.Entries() - 1)
	prev, k := w.last, int64(0)
	seen := map[Cluster]bool{}
	for src := w.at; k < need && src >= FirstCluster && src <= top && !seen[src]; k++ {
		seen[src] = true
		dst, ok := t.plan.alloc()
		if !ok {
			break
		}
		t.plan.fillData(dst, src)
		t.claims.mark(dst, uint32(idx+1), true)
		switch {
		case prev == 0:
			t.setStart(idx, dst)
		case k == 0:
			t.plan.linkTo(prev, dst) // prev is in the file's chain on disk
		default:
			t.plan.set(prev, dst) // between copies: in no chain on disk yet
		}
		prev = dst
		t.plan.work.chainSteps++
		v := t.tb.Get(src)
		if t.tb.IsEOC(v) || t.tb.IsFree(v) || t.tb.IsBad(v) {
			k++
			break
		}
		src = v
	}
	return k, k > 0
}

// interruptedRename handles two entries that name the same file (same
// first cluster and size): what a move between directories leaves when
// the power fails after the new entry is written and before the old one
// is deleted. One entry is kept: for a directory, the one in the directory
// its ".." names (the move rewrites ".." with the new entry); otherwise
// the first found.
func (t *treeCheck) interruptedRename(idx, o int) {
	nd, other := t.nodes.at(idx), t.nodes.at(o)
	p := Problem{Kind: KindRename, Path: t.path(idx), Paths: []string{t.path(o), t.path(idx)}, Cluster: nd.first, Offset: t.entryOff(idx) + direntClusterLow,
		Message: fmt.Sprintf("%s and %s name the same %s (cluster %d, %d bytes): a move cut short", t.path(o), t.path(idx), kindOfNode(nd), nd.first, nd.size)}
	keepNew := false
	if nd.dir {
		dotdot := t.dotDotOf(nd.first)
		keepNew = dotdot == t.upCluster(int(nd.parent)) && dotdot != t.upCluster(int(other.parent))
	}
	if !keepNew {
		t.fix(p, "delete the entry %s and keep %s", t.path(idx), t.path(o))
		t.deleteEntry(idx)
		return
	}
	t.fix(p, "delete the entry %s and keep %s, which its \"..\" names", t.path(o), t.path(idx))
	t.deleteEntry(o)
	// The clusters stay claimed under o's index: o now stands for the
	// entry kept, and a directory queued under o is walked under its path.
	*other = *nd
	if d := t.dirs[o]; d != nil {
		// The members found in it so far keep the paths they were
		// reported by; those found from now on are under the kept entry.
		d.old, d.oldBelow, d.path = d.path, t.nodes.len(), t.path(idx)
	}
	if s, ok := t.sizes[idx]; ok {
		t.sizes[o] = s
	} else {
		delete(t.sizes, o)
	}
	if f, ok := t.found[idx]; ok {
		t.found[o] = f
	} else {
		delete(t.found, o)
	}
	nd.gone = true
}

// dotDotOf reads the ".." entry's cluster of the directory at cluster c
// (0 if it cannot be read).
func (t *treeCheck) dotDotOf(c Cluster) Cluster {
	if c < FirstCluster || c > t.l.MaxCluster() {
		return 0
	}
	var b [2 * DirEntrySize]byte
	if pd := t.planned(c); pd != nil && len(pd.raw) >= len(b) {
		copy(b[:], pd.raw)
	} else if _, err := t.v.dev.ReadAt(b[:], t.l.ClusterOffset(c)); err != nil {
		return 0
	}
	e := DecodeDirEntry(b[DirEntrySize:])
	if ShortName(e.Name) != DotDotName {
		return 0
	}
	e.ClusterFor(t.l.Type)
	return e.Cluster
}

// planned returns the plan of the directory at cluster c when the pass
// sees the planned volume, else nil.
func (t *treeCheck) planned(c Cluster) *planDir {
	if t.im.plan == nil {
		return nil
	}
	return t.im.plan.dirs[c]
}

// upCluster is what ".." holds in a subdirectory of directory idx.
func (t *treeCheck) upCluster(idx int) Cluster {
	if idx <= 0 {
		return 0
	}
	return t.nodes.at(idx).first
}

func kindOfNode(nd *node) string {
	if nd.dir {
		return "directory"
	}
	return "file"
}
