package fat

// The tree walk keeps one small node per file and directory, as a later
// chain may run into any earlier one's clusters (a cross-link, an
// interrupted rename) and the fix then names and changes that one. A
// node holds no path: a file's is its directory's path and its name,
// built when a problem or the visitor needs it, and only directories
// (few beside the files) keep theirs with their chain. Nodes and names
// are stored in fixed-size chunks, so that a million files cost some
// 30 MiB and the store never copies itself to grow.

// nodeChunk is how many nodes one chunk of the store holds.
const nodeChunk = 1 << 14

// nodeList is the walk's nodes, indexed from 0 (the root) in the order
// found; a node's address stays put as the list grows.
type nodeList struct {
	chunks [][]node
	n      int
}

func (nl *nodeList) len() int { return nl.n }

func (nl *nodeList) at(i int) *node { return &nl.chunks[i/nodeChunk][i%nodeChunk] }

// add appends nd and returns its index.
func (nl *nodeList) add(nd node) int {
	if nl.n%nodeChunk == 0 {
		nl.chunks = append(nl.chunks, make([]node, nodeChunk))
	}
	i := nl.n
	*nl.at(i) = nd
	nl.n++
	return i
}

// nameChunk is the size of one chunk of the name store: more than the
// longest name (255 UTF-16 units, 765 bytes of UTF-8).
const nameChunk = 64 << 10

// nameRef locates a name in the name store.
type nameRef struct {
	chunk    uint32
	off, len uint16
}

// nameStore holds the names of the nodes, appended in chunks.
type nameStore struct{ chunks [][]byte }

func (ns *nameStore) add(name string) nameRef {
	k := len(ns.chunks) - 1
	if k < 0 || len(ns.chunks[k])+len(name) > nameChunk {
		ns.chunks = append(ns.chunks, make([]byte, 0, nameChunk))
		k++
	}
	off := len(ns.chunks[k])
	ns.chunks[k] = append(ns.chunks[k], name...)
	return nameRef{chunk: uint32(k), off: uint16(off), len: uint16(len(name))}
}

func (ns *nameStore) get(r nameRef) string {
	return string(ns.chunks[r.chunk][r.off : int(r.off)+int(r.len)])
}

// dirInfo is what a directory's node keeps besides the node: its path
// and its clusters, once claimed.
type dirInfo struct {
	path  string
	chain []Cluster
	// Once an interrupted rename makes the node stand for another entry,
	// the nodes below oldBelow found in it keep their paths under old.
	old      string
	oldBelow int
}

// foundAs is a node's first cluster and size as found on the volume,
// kept once the plan changes either (few nodes: the others are as found).
type foundAs struct {
	first Cluster
	size  uint32
}

// keepFound records node idx's first cluster and size as found, before
// the plan changes either.
func (t *treeCheck) keepFound(idx int) {
	if _, ok := t.found[idx]; !ok {
		nd := t.nodes.at(idx)
		t.found[idx] = foundAs{nd.first, nd.size}
	}
}

// asFound is node idx's first cluster and size as found on the volume.
func (t *treeCheck) asFound(idx int) (Cluster, uint32) {
	if f, ok := t.found[idx]; ok {
		return f.first, f.size
	}
	nd := t.nodes.at(idx)
	return nd.first, nd.size
}

// sizeRef is the size problem reported for a file (index+1 in the
// report and in the plan), so that a second size fix rewrites the first.
type sizeRef struct{ prob, step int }

// addNode appends a node named name (a directory gets its path) and
// returns its index.
func (t *treeCheck) addNode(nd node, name string) int {
	nd.name = t.names.add(name)
	idx := t.nodes.add(nd)
	if nd.dir {
		t.dirs[idx] = &dirInfo{path: t.joinedPath(idx)}
	}
	return idx
}

// path is node idx's path.
func (t *treeCheck) path(idx int) string {
	if d := t.dirs[idx]; d != nil {
		return d.path
	}
	return t.joinedPath(idx)
}

// joinedPath is node idx's path made from its directory's and its name.
func (t *treeCheck) joinedPath(idx int) string {
	nd := t.nodes.at(idx)
	if nd.parent < 0 {
		return "/"
	}
	dir := t.path(int(nd.parent))
	if d := t.dirs[int(nd.parent)]; d != nil && idx < d.oldBelow {
		dir = d.old
	}
	return joinPath(dir, t.names.get(nd.name))
}

// rename gives node idx the name name (a directory its new path).
func (t *treeCheck) rename(idx int, name string) {
	nd := t.nodes.at(idx)
	nd.name = t.names.add(name)
	if d := t.dirs[idx]; d != nil {
		d.path = t.joinedPath(idx)
	}
}

// setDir makes node idx a directory or a file: its attributes changed.
func (t *treeCheck) setDir(idx int, dir bool) {
	nd := t.nodes.at(idx)
	switch {
	case dir && t.dirs[idx] == nil:
		p := t.joinedPath(idx)
		nd.dir = true
		t.dirs[idx] = &dirInfo{path: p}
	case !dir && t.dirs[idx] != nil:
		nd.dir = false
		delete(t.dirs, idx)
	}
}

// chain is directory idx's clusters as claimed (nil for a file).
func (t *treeCheck) chain(idx int) []Cluster {
	if d := t.dirs[idx]; d != nil {
		return d.chain
	}
	return nil
}

// entryOff is the byte offset on the volume of node idx's short entry,
// -1 for the root.
func (t *treeCheck) entryOff(idx int) int64 {
	nd := t.nodes.at(idx)
	if nd.parent < 0 {
		return -1
	}
	return t.slotOff(int(nd.parent), int(nd.slot)+int(nd.slots)-1)
}
