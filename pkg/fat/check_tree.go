package fat

import (
	"fmt"
	"runtime"
	"strings"
)

// node is a file or directory the walk found.
type node struct {
	path     string
	first    Cluster
	size     uint32
	dir      bool
	entryOff int64 // byte offset of its short entry on the volume, -1 for the root
}

// dirWork is a directory waiting to be read.
type dirWork struct {
	idx    int       // its node
	parent int       // its parent's node, -1 for the root
	chain  []Cluster // its clusters (nil for the fixed root)
	depth  int
}

// treeCheck walks the directory tree and every chain it names.
type treeCheck struct {
	v     *Volume
	rep   *Report
	opts  CheckOptions
	owner []uint32 // per FAT entry: 1 + index into nodes of the chain that holds it
	nodes []node
	stack []dirWork
}

func newTreeCheck(v *Volume, rep *Report, opts CheckOptions) *treeCheck {
	owner, release := bigUint32s(int64(v.table.Entries()))
	t := &treeCheck{v: v, rep: rep, opts: opts, owner: owner}
	runtime.AddCleanup(t, func(r func()) { r() }, release)
	return t
}

// walk checks the root and everything under it, depth first.
func (t *treeCheck) walk() error {
	l := t.v.layout
	root := node{path: "/", dir: true, entryOff: -1}
	if l.Type == FAT32 {
		root.first = l.RootCluster
	}
	t.nodes = append(t.nodes, root)
	t.rep.Dirs = 1
	var chain []Cluster
	if l.Type == FAT32 {
		chain, _, _ = t.claim(0)
		if len(chain) == 0 {
			return nil
		}
	}
	t.stack = append(t.stack, dirWork{idx: 0, parent: -1, chain: chain})
	for len(t.stack) > 0 {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		if err := t.checkDir(w); err != nil {
			return err
		}
	}
	return nil
}

// claim walks node idx's chain, reports its faults, and returns the
// clusters of a directory (up to FAT's size limit for one), the number of
// clusters claimed, and whether the chain ended properly.
func (t *treeCheck) claim(idx int) ([]Cluster, int64, bool) {
	l := t.v.layout
	nd := t.nodes[idx]
	var chain []Cluster
	var visit func(Cluster)
	if nd.dir {
		limit := int(MaxDirEntries * DirEntrySize / l.ClusterSize)
		visit = func(c Cluster) {
			if len(chain) < limit {
				chain = append(chain, c)
			}
		}
	}
	end, at, val, n := walkChain(t.v.table, t.owner, uint32(idx+1), nd.first, visit)
	if nd.dir && int(n) > len(chain) {
		t.rep.addf(KindChain, nd.path, nd.first, nd.entryOff, "directory of %d clusters, more than FAT's limit of %d entries; only the first %d clusters were read", n, MaxDirEntries, len(chain))
	}
	switch end {
	case endEOC:
		return chain, n, true
	case endStart:
		t.rep.addf(KindChain, nd.path, at, nd.entryOff, "first cluster %d is not a data cluster (2..%d)", at, l.MaxCluster())
	case endFree:
		t.rep.addf(KindChain, nd.path, at, fatEntryOffset(l, at), "cluster %d (number %d of the chain) is marked free", at, n)
	case endBad:
		t.rep.addf(KindChain, nd.path, at, fatEntryOffset(l, at), "cluster %d (number %d of the chain) is marked bad", at, n)
	case endRange:
		t.rep.addf(KindChain, nd.path, at, fatEntryOffset(l, at), "cluster %d links to %#x, not a data cluster (2..%d) or end of chain", at, uint32(val), l.MaxCluster())
	case endOwned:
		o := int(t.owner[at]) - 1
		other := t.nodes[o]
		switch {
		case o == idx:
			t.rep.addf(KindLoop, nd.path, at, fatEntryOffset(l, at), "the chain loops back to cluster %d after %d clusters", at, n)
		case nd.dir && other.dir && other.first == at && isAncestor(other.path, nd.path):
			t.rep.add(Problem{Kind: KindLoop, Path: nd.path, Paths: []string{nd.path, other.path}, Cluster: at, Offset: nd.entryOff,
				Message: fmt.Sprintf("directory is its own ancestor %s (cluster %d): the tree loops", other.path, at)})
		default:
			t.rep.add(Problem{Kind: KindCrossLink, Path: nd.path, Paths: []string{nd.path, other.path}, Cluster: at, Offset: l.ClusterOffset(at),
				Message: fmt.Sprintf("cluster %d (number %d of the chain) also belongs to %s", at, n+1, other.path)})
		}
	}
	return chain, n, false
}

func isAncestor(dir, p string) bool {
	return dir == "/" || strings.HasPrefix(p, dir+"/")
}

// checkDir reads directory w, checks its entries and queues its subdirectories.
func (t *treeCheck) checkDir(w dirWork) error {
	v, l := t.v, t.v.layout
	nd := t.nodes[w.idx]
	isRoot := w.idx == 0
	var raw []byte
	if nd.first == 0 {
		if l.RootDirOffset+l.RootDirSize > v.dev.Size() {
			t.rep.addf(KindBootSector, nd.path, 0, l.RootDirOffset, "the root directory lies past the end of the device")
			return nil
		}
		raw = make([]byte, l.RootDirSize)
		if _, err := v.dev.ReadAt(raw, l.RootDirOffset); err != nil {
			return fmt.Errorf("fat: reading the root directory at byte %d: %w", l.RootDirOffset, err)
		}
	} else {
		chain := w.chain
		for i, c := range chain {
			if l.ClusterOffset(c)+l.ClusterSize > v.dev.Size() {
				t.rep.addf(KindChain, nd.path, c, l.ClusterOffset(c), "cluster %d lies past the end of the device", c)
				chain = chain[:i]
				break
			}
		}
		raw = make([]byte, int64(len(chain))*l.ClusterSize)
		if err := v.readClusters(raw, chain); err != nil {
			return fmt.Errorf("fat: reading directory %s: %w", nd.path, err)
		}
		w.chain = chain
		if len(chain) == 0 {
			return nil
		}
	}
	slotOff := func(slot int) int64 {
		off := int64(slot) * DirEntrySize
		if nd.first == 0 {
			return l.RootDirOffset + off
		}
		return l.ClusterOffset(w.chain[off/l.ClusterSize]) + off%l.ClusterSize
	}
	recs, probs := ParseDir(raw, l.Type)
	for _, p := range probs {
		t.rep.addf(KindLFN, nd.path, 0, slotOff(p.Slot), "%s: %s", p.Kind, p.Msg)
	}
	seen := map[string]int{}
	hasDot, hasDotDot, labels := false, false, 0
	for i := range recs {
		r := &recs[i]
		e := &r.Entry
		short := r.Slot + r.Slots - 1
		off := slotOff(short)
		switch {
		case r.Short == DotName || r.Short == DotDotName:
			if r.Short == DotName {
				hasDot = true
			} else {
				hasDotDot = true
			}
			t.checkDots(w, r, off, isRoot)
			continue
		case e.IsLabel():
			switch {
			case !isRoot:
				t.rep.addf(KindLabel, nd.path, 0, off, "volume label %q in a subdirectory", r.Short.Label())
			case labels > 0:
				t.rep.addf(KindLabel, nd.path, 0, off, "a second volume label %q", r.Short.Label())
			case e.Cluster != 0 || e.Size != 0:
				t.rep.addf(KindLabel, nd.path, 0, off, "volume label %q has cluster %d and size %d, not 0", r.Short.Label(), e.Cluster, e.Size)
			}
			labels++
			continue
		}
		path := joinPath(nd.path, r.Name)
		if msg := badShortName(r.Short); msg != "" {
			t.rep.addf(KindDirEntry, path, 0, off, "short name %q %s", r.Short.String(), msg)
		}
		if e.Attr&^0x3F != 0 {
			t.rep.addf(KindDirEntry, path, 0, off+direntAttr, "attributes %#02x have reserved bits 6-7 set", uint8(e.Attr))
		}
		if e.Attr&AttrDirectory != 0 && e.Attr&AttrVolumeID != 0 {
			t.rep.addf(KindDirEntry, path, 0, off+direntAttr, "attributes %#02x mark both a directory and a volume label", uint8(e.Attr))
		}
		t.checkDuplicate(seen, nd.path, path, r, off)
		t.checkMember(w, path, e, off)
	}
	if !isRoot {
		if !hasDot {
			t.rep.addf(KindDot, nd.path, nd.first, slotOff(0), "the \".\" entry is missing")
		}
		if !hasDotDot {
			t.rep.addf(KindDotDot, nd.path, nd.first, slotOff(min(1, len(raw)/DirEntrySize-1)), "the \"..\" entry is missing")
		}
	}
	return nil
}

// checkMember checks a file or subdirectory entry and claims its chain.
func (t *treeCheck) checkMember(w dirWork, path string, e *DirEntry, off int64) {
	l := t.v.layout
	nd := node{path: path, first: e.Cluster, size: e.Size, dir: e.IsDir(), entryOff: off}
	if nd.dir {
		t.rep.Dirs++
		if e.Size != 0 {
			t.rep.addf(KindDirEntry, path, e.Cluster, off+direntSize, "directory has size %d, not 0", e.Size)
		}
		if e.Cluster == 0 {
			t.rep.addf(KindDirEntry, path, 0, off+direntClusterLow, "directory has no cluster")
			return
		}
		idx := len(t.nodes)
		t.nodes = append(t.nodes, nd)
		chain, _, _ := t.claim(idx)
		if len(chain) == 0 {
			return
		}
		if w.depth+1 > t.opts.MaxDepth {
			t.rep.addf(KindDirEntry, path, e.Cluster, off, "nested deeper than %d directories: not checked", t.opts.MaxDepth)
			return
		}
		t.stack = append(t.stack, dirWork{idx: idx, parent: w.idx, chain: chain, depth: w.depth + 1})
		return
	}
	t.rep.Files++
	if e.Cluster == 0 {
		if e.Size != 0 {
			t.rep.addf(KindSize, path, 0, off+direntSize, "file of %d bytes has no cluster", e.Size)
		}
		return
	}
	idx := len(t.nodes)
	t.nodes = append(t.nodes, nd)
	_, n, ok := t.claim(idx)
	if need := clustersFor(e.Size, l.ClusterSize); ok && n != need {
		t.rep.addf(KindSize, path, e.Cluster, off+direntSize, "size %d bytes needs %d clusters but the chain has %d", e.Size, need, n)
	}
}

// checkDots checks a "." or ".." entry: only in subdirectories, in slot 0
// or 1, a directory, pointing at the directory itself or at its parent (0
// for the root).
func (t *treeCheck) checkDots(w dirWork, r *Record, off int64, isRoot bool) {
	nd := t.nodes[w.idx]
	kind, name, slot, want := KindDot, ".", 0, nd.first
	if r.Short == DotDotName {
		kind, name, slot, want = KindDotDot, "..", 1, 0
		if w.parent > 0 {
			want = t.nodes[w.parent].first
		}
	}
	switch {
	case isRoot:
		t.rep.addf(kind, nd.path, 0, off, "the root directory has a %q entry", name)
	case r.Slot != slot || r.Slots != 1:
		t.rep.addf(kind, nd.path, 0, off, "%q entry at slot %d, not %d", name, r.Slot+r.Slots-1, slot)
	case !r.Entry.IsDir():
		t.rep.addf(kind, nd.path, 0, off+direntAttr, "%q entry is not marked as a directory", name)
	case r.Entry.Cluster != want:
		t.rep.addf(kind, nd.path, r.Entry.Cluster, off+direntClusterLow, "%q entry points to cluster %d, want %d", name, r.Entry.Cluster, want)
	}
}

// checkDuplicate reports a member whose long or short name another member
// of the directory already has (FAT names match case-insensitively).
func (t *treeCheck) checkDuplicate(seen map[string]int, dirPath, path string, r *Record, off int64) {
	keys := []string{FoldName(r.Name)}
	if s := FoldName(r.Short.String()); s != keys[0] {
		keys = append(keys, s)
	}
	for _, k := range keys {
		if prev, ok := seen[k]; ok {
			t.rep.add(Problem{Kind: KindDuplicate, Path: path, Paths: []string{path, joinPath(dirPath, k)}, Offset: off,
				Message: fmt.Sprintf("name %q is already used by the entry at slot %d", k, prev)})
			return
		}
	}
	for _, k := range keys {
		seen[k] = r.Slot + r.Slots - 1
	}
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// badShortName says what is wrong with an on-disk short name, or "".
func badShortName(n ShortName) string {
	if n[0] == ' ' {
		return "starts with a space"
	}
	for i, c := range n {
		switch {
		case i == 0 && c == SlotKanjiE5:
		case c < 0x20:
			return fmt.Sprintf("holds control character %#02x at byte %d", c, i)
		case c < 0x80 && strings.IndexByte(shortInvalid, c) >= 0:
			return fmt.Sprintf("holds %q at byte %d, not allowed in short names", rune(c), i)
		}
	}
	return ""
}

// lost counts free, bad and lost clusters and reports the lost ones as
// ranges of consecutive cluster numbers.
func (t *treeCheck) lost() {
	tb, l := t.v.table, t.v.layout
	var start, prev Cluster
	flush := func() {
		if start == 0 {
			return
		}
		n := prev - start + 1
		what := fmt.Sprintf("cluster %d is", start)
		if n > 1 {
			what = fmt.Sprintf("%d clusters %d-%d are", n, start, prev)
		}
		t.rep.addf(KindLost, "", start, fatEntryOffset(l, start), "%s allocated but in no chain", what)
		start = 0
	}
	for c := FirstCluster; uint32(c) < tb.Entries(); c++ {
		v := tb.Get(c)
		switch {
		case tb.IsFree(v):
			t.rep.FreeClusters++
			continue
		case tb.IsBad(v):
			t.rep.BadClusters++
			continue
		case t.owner[c] != 0:
			continue
		}
		t.rep.LostClusters++
		if start != 0 && c == prev+1 {
			prev = c
			continue
		}
		flush()
		start, prev = c, c
	}
	flush()
}
