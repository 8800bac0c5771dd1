package fat

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// node is a file or directory the walk found (see nodeList).
type node struct {
	first  Cluster
	size   uint32
	parent int32   // the node of the directory holding its entry, -1 for the root
	slot   int32   // the first slot of its record there (a long name's first slot)
	name   nameRef // its name, as its path shows it
	slots  uint8   // slots in its record
	dir    bool
	gone   bool // the plan deletes its entry
}

// dirWork is a directory waiting to be read.
type dirWork struct {
	idx   int // its node
	depth int
}

// treeCheck is one pass over the directory tree and every chain it names:
// it reports what it finds into rep and plans the fix of each problem.
type treeCheck struct {
	im      *image
	v       *Volume
	l       *Layout
	tb      Table
	rep     *Report
	plan    *plan
	opts    CheckOptions
	claims  *claims // the clusters the walks hold, by 1 + index into nodes
	free    func()
	nodes   nodeList
	names   nameStore
	dirs    map[int]*dirInfo // the directories' paths and chains, by node
	sizes   map[int]sizeRef  // the files whose size problem is reported, by node
	found   map[int]foundAs  // the nodes whose first cluster or size the plan changed, by node
	stack   []dirWork
	label   *rootLabel // the root directory's label entry, nil if none
	cur     int        // the directory being checked
	curRaw  []byte     // and its contents
	claimed int64      // clusters the chain walks claimed
	copies  *fatCopies // the FAT copies as read, with FAT 1's counts (Check's walk only)
	saves   lostSaves  // where saveLost goes on
}

// rootLabel is the root directory's (first) volume label entry.
type rootLabel struct {
	name ShortName
	slot int
	off  int64
}

// runTree walks the tree of the image and returns the walk (its report
// is t.rep; its claims stay until release, for lost).
func runTree(im *image, p *plan, opts CheckOptions) (*treeCheck, error) {
	cl := newClaims(im.tb.Entries())
	// The bits are given back once: from t.release, or from the cleanup
	// if t is dropped first. A second munmap could hit a later mapping at
	// the same address.
	release := sync.OnceFunc(cl.free)
	rep := &Report{Type: im.v.layout.Type, Clusters: im.v.layout.Clusters, maxProblems: opts.MaxProblems}
	t := &treeCheck{im: im, v: im.v, l: im.v.layout, tb: im.tb, rep: rep, plan: p, opts: opts, claims: cl, free: release, cur: -1, dirs: map[int]*dirInfo{}, sizes: map[int]sizeRef{}, found: map[int]foundAs{}}
	runtime.AddCleanup(t, func(r func()) { r() }, release)
	if err := t.walk(); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

// release gives back the claims.
func (t *treeCheck) release() {
	if t.free != nil {
		t.plan.work.chainSteps += t.claims.steps
		t.free()
		t.free, t.claims = nil, nil
	}
}

// holder is the node whose walk claimed cluster c, -1 if none did.
func (t *treeCheck) holder(c Cluster) int { return int(t.claims.holder(t.tb, c)) - 1 }

// fix reports a problem and records its fix in the plan.
func (t *treeCheck) fix(p Problem, format string, args ...any) {
	p.Fix = t.plan.step(format, args...)
	t.rep.add(p)
}

// problem builds a Problem; fix or t.rep.add reports it.
func (t *treeCheck) problem(kind, path string, c Cluster, off int64, format string, args ...any) Problem {
	return Problem{Kind: kind, Path: path, Cluster: c, Offset: off, Message: fmt.Sprintf(format, args...)}
}

// walk checks the root and everything under it, depth first and in slot
// order, as fsck.fat does (so that of two files sharing clusters, the
// same one is the second).
func (t *treeCheck) walk() error {
	l := t.l
	root := node{dir: true, parent: -1}
	if l.Type == FAT32 {
		root.first = l.RootCluster
	}
	t.addNode(root, "")
	t.rep.Dirs = 1
	t.visit("/")
	if l.Type == FAT32 && !t.claimRoot() {
		return nil
	}
	t.stack = append(t.stack, dirWork{idx: 0})
	for len(t.stack) > 0 {
		// Each directory is a cancellation point: the walk changes
		// nothing, so it may stop anywhere.
		if err := fsutil.Cancelled(t.opts.Context); err != nil {
			return err
		}
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		if err := t.checkDir(w); err != nil {
			return err
		}
	}
	return nil
}

func (t *treeCheck) visit(path string) {
	if t.opts.Visit != nil {
		t.opts.Visit(path)
	}
}

// claimRoot claims the FAT32 root directory's chain; false if the root
// has no usable cluster.
func (t *treeCheck) claimRoot() bool {
	nd := t.nodes.at(0)
	w := t.walkNode(0)
	switch {
	case w.n == 0:
		what := "is marked free"
		if w.end == endBad {
			what = "is marked bad"
		}
		t.rep.add(t.problem(KindStart, "/", nd.first, fatEntryOffset(t.l, nd.first), "the root directory's first cluster %d %s: the root cannot be read", nd.first, what))
		return false
	case w.end != endEOC:
		t.chainFault(0, w)
	}
	return true
}

// walkNode walks node idx's chain, collecting a directory's clusters.
func (t *treeCheck) walkNode(idx int) chainWalk {
	nd := t.nodes.at(idx)
	var visit func(Cluster)
	if d := t.dirs[idx]; d != nil {
		d.chain = d.chain[:0]
		visit = func(c Cluster) { d.chain = append(d.chain, c) }
	}
	w := walkChain(t.tb, t.claims, uint32(idx+1), nd.first, t.limitFor(nd), visit)
	t.claimed += w.n
	return w
}

// slotOff maps slot i of directory idx to its byte offset on the volume.
func (t *treeCheck) slotOff(idx, i int) int64 {
	nd := t.nodes.at(idx)
	off := int64(i) * DirEntrySize
	if nd.first == 0 {
		return t.l.RootDirOffset + off
	}
	chain := t.chain(idx)
	k := off / t.l.ClusterSize
	if k >= int64(len(chain)) {
		return -1
	}
	return t.l.ClusterOffset(chain[k]) + off%t.l.ClusterSize
}

// dirPlan returns the plan of directory idx, reading it again if it is
// not the one being checked.
func (t *treeCheck) dirPlan(idx int) *planDir {
	nd := t.nodes.at(idx)
	if pd := t.plan.dirs[nd.first]; pd != nil {
		return pd
	}
	chain := t.chain(idx)
	raw := t.curRaw
	if idx != t.cur {
		var err error
		t.plan.work.dirSlots += int64(len(chain)) * t.l.ClusterSize / DirEntrySize
		if raw, err = t.im.readDir(nd.first, chain); err != nil {
			// It was read a moment ago; a device that fails now fails the
			// repair's writes too, where the error is reported.
			raw = make([]byte, int64(len(chain))*t.l.ClusterSize)
		}
	}
	return t.plan.dir(nd.first, chain, raw)
}

// entry returns node idx's short entry for writing.
func (t *treeCheck) entry(idx int) []byte {
	nd := t.nodes.at(idx)
	return t.dirPlan(int(nd.parent)).slot(int(nd.slot) + int(nd.slots) - 1)
}

// deleteEntry plans node idx's record (long name slots and short entry)
// deleted.
func (t *treeCheck) deleteEntry(idx int) {
	nd := t.nodes.at(idx)
	t.dirPlan(int(nd.parent)).remove(int(nd.slot), int(nd.slots))
	nd.gone = true
}

// setStart plans node idx's first cluster to be c.
func (t *treeCheck) setStart(idx int, c Cluster) {
	b := t.entry(idx)
	putU16(b[direntClusterLow:], uint16(c))
	if t.l.Type == FAT32 {
		putU16(b[direntClusterHigh:], uint16(c>>16))
	}
	t.keepFound(idx)
	t.nodes.at(idx).first = c
}

// setSize plans node idx's size to be n bytes.
func (t *treeCheck) setSize(idx int, n uint32) {
	putU32(t.entry(idx)[direntSize:], n)
	t.keepFound(idx)
	t.nodes.at(idx).size = n
}

// checkDir reads directory w, checks its entries and queues its subdirectories.
func (t *treeCheck) checkDir(w dirWork) error {
	nd := t.nodes.at(w.idx)
	d := t.dirs[w.idx]
	if nd.first != 0 && len(d.chain) == 0 {
		return nil
	}
	for i, c := range d.chain {
		if t.l.ClusterOffset(c)+t.l.ClusterSize > t.v.dev.Size() {
			t.rep.add(t.problem(KindChain, d.path, c, t.l.ClusterOffset(c), "cluster %d lies past the end of the device", c))
			d.chain = d.chain[:i]
			break
		}
	}
	if nd.first == 0 && t.l.RootDirOffset+t.l.RootDirSize > t.v.dev.Size() {
		t.rep.add(t.problem(KindBootSector, d.path, 0, t.l.RootDirOffset, "the root directory lies past the end of the device"))
		return nil
	}
	raw, err := t.im.readDir(nd.first, d.chain)
	if err != nil {
		return fmt.Errorf("fat: reading directory %s: %w", d.path, err)
	}
	t.cur, t.curRaw = w.idx, raw
	t.plan.work.dirSlots += int64(len(raw) / DirEntrySize)
	isRoot := w.idx == 0
	t.checkAfterEnd(w.idx, raw)
	recs, _ := ParseDir(raw, t.l.Type)
	t.checkLongNames(w.idx, raw, recs)
	if !isRoot {
		recs = t.checkDots(w.idx, raw, recs)
	}
	names := newDirNames()
	var subdirs []int
	for i := range recs {
		r := &recs[i]
		if r.Slots == 0 {
			continue // taken by "." or ".."
		}
		idx := t.addNode(node{first: r.Entry.Cluster, size: r.Entry.Size, dir: r.Entry.IsDir(),
			parent: int32(w.idx), slot: int32(r.Slot), slots: uint8(r.Slots),
		}, r.Name)
		if t.checkEntry(idx, r, isRoot) {
			continue
		}
		t.visit(t.path(idx))
		if t.checkMember(idx) {
			t.checkName(idx, r)
			names.check(t, idx, r)
			if sub := t.nodes.at(idx); sub.dir && !sub.gone {
				subdirs = append(subdirs, idx)
			}
		}
	}
	for i := len(subdirs) - 1; i >= 0; i-- {
		sub := subdirs[i]
		if w.depth+1 > t.opts.MaxDepth {
			t.rep.add(t.problem(KindDirEntry, t.path(sub), t.nodes.at(sub).first, t.entryOff(sub), "nested deeper than %d directories: not checked", t.opts.MaxDepth))
			continue
		}
		t.stack = append(t.stack, dirWork{idx: sub, depth: w.depth + 1})
	}
	return nil
}

// checkAfterEnd finds slots in use after a slot that marks the end of the
// directory (first byte 0). Windows and mtools stop reading at the mark;
// Linux and fsck.fat read on, so that what they see differs. The plan
// marks such an end marker deleted instead, as it does not end the
// directory: then every system sees the entries after it, and this pass
// checks them (which fsck.fat does too), so that their clusters are not
// taken for lost ones.
func (t *treeCheck) checkAfterEnd(idx int, raw []byte) {
	slots := len(raw) / DirEntrySize
	last := -1 // the last slot in use
	for i := slots - 1; i >= 0; i-- {
		if b := raw[i*DirEntrySize]; b != SlotEnd && b != SlotDeleted {
			last = i
			break
		}
	}
	end := DirEnd(raw)
	if end >= last {
		return
	}
	var marks []int
	for i := end; i < last; i++ {
		if raw[i*DirEntrySize] == SlotEnd {
			marks = append(marks, i)
		}
	}
	dirPath := t.path(idx)
	t.fix(t.problem(KindAfterEnd, dirPath, 0, t.slotOff(idx, end),
		"slot %d marks the end of the directory, but slots up to %d are in use (Linux and fsck.fat read them, Windows does not)", end, last),
		"mark the %d end markers before slot %d of %s deleted, so that every system reads the slots after them", len(marks), last, dirPath)
	pd := t.dirPlan(idx)
	for _, i := range marks {
		pd.slot(i)[0] = SlotDeleted
	}
}

// checkEntry checks what an entry is: its attributes, a volume label or a
// stray "." or "..". It returns true when the entry is not a file or
// directory to check further.
func (t *treeCheck) checkEntry(idx int, r *Record, isRoot bool) bool {
	nd := t.nodes.at(idx)
	e := &r.Entry
	if e.Attr&^0x3F != 0 {
		t.fix(t.problem(KindAttr, t.path(idx), 0, t.entryOff(idx)+direntAttr, "attributes %#02x have the reserved bits 6-7 set", uint8(e.Attr)),
			"clear the reserved attribute bits of %s", t.path(idx))
		e.Attr &= 0x3F
		t.entry(idx)[direntAttr] = byte(e.Attr)
	}
	if e.Attr&AttrDirectory != 0 && e.Attr&AttrVolumeID != 0 {
		drop, keep := AttrVolumeID, "a directory"
		if e.Cluster == 0 {
			drop, keep = AttrDirectory, "a volume label"
		}
		t.fix(t.problem(KindAttr, t.path(idx), e.Cluster, t.entryOff(idx)+direntAttr, "attributes %#02x mark both a directory and a volume label", uint8(e.Attr)),
			"make %s %s", t.path(idx), keep)
		e.Attr &^= drop
		t.entry(idx)[direntAttr] = byte(e.Attr)
		t.setDir(idx, e.IsDir())
	}
	switch {
	case e.IsLabel():
		nd.gone = true // not a member: its node only locates the entry
		t.checkLabelEntry(idx, r, isRoot)
		return true
	case r.Short == DotName || r.Short == DotDotName:
		kind := KindDot
		if r.Short == DotDotName {
			kind = KindDotDot
		}
		t.fix(t.problem(kind, t.path(int(nd.parent)), e.Cluster, t.entryOff(idx), "a %q entry at slot %d, where it does not belong", r.Short.String(), r.Slot+r.Slots-1),
			"delete the stray %q entry in %s", r.Short.String(), t.path(int(nd.parent)))
		t.deleteEntry(idx)
		return true
	}
	return false
}

// checkLabelEntry checks a volume label entry: the root's first is the
// volume's label; others are deleted, as no system reads them.
func (t *treeCheck) checkLabelEntry(idx int, r *Record, isRoot bool) {
	dirPath := t.path(int(t.nodes.at(idx).parent))
	entryOff := t.entryOff(idx)
	switch {
	case !isRoot:
		t.fix(t.problem(KindLabel, dirPath, 0, entryOff, "volume label entry %q in a subdirectory", r.Short.Label()),
			"delete the label entry %q in %s", r.Short.Label(), dirPath)
		t.deleteEntry(idx)
	case t.label != nil:
		t.fix(t.problem(KindLabel, dirPath, 0, entryOff, "a second volume label entry %q (the first is %q)", r.Short.Label(), t.label.name.Label()),
			"delete the second label entry %q", r.Short.Label())
		t.deleteEntry(idx)
	default:
		t.label = &rootLabel{name: r.Short, slot: r.Slot + r.Slots - 1, off: entryOff}
		if r.Entry.Cluster != 0 || r.Entry.Size != 0 {
			t.fix(t.problem(KindLabel, dirPath, r.Entry.Cluster, entryOff, "volume label entry %q has cluster %d and size %d, not 0", r.Short.Label(), r.Entry.Cluster, r.Entry.Size),
				"clear the cluster and size of the label entry")
			t.setStart(idx, 0)
			t.setSize(idx, 0)
		}
	}
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func isAncestor(dir, p string) bool {
	return dir == "/" || strings.HasPrefix(p, dir+"/")
}
