package fsutil

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// DamageHint ends the message of a writer that stops on damage it found
// on its way: it says how to see and repair it.
const DamageHint = "(the volume is damaged: fverify shows the damage, fverify --repair repairs it)"

// Run is a run of consecutive clusters.
type Run struct{ Start, Len uint32 }

// Tree says how CheckTree walks one file system's directory tree, whose
// files and directories are N (pkg/fat's and pkg/exfat's records).
type Tree[N any] struct {
	// Name is n's name, for the paths of messages; it is never asked of
	// the top of the walk (which may be the root), named by its path.
	Name func(n N) string
	// Dir reports whether n is a directory, and its first cluster.
	Dir func(n N) (first uint32, ok bool)
	// Runs lists the clusters n holds, or says why its chain cannot be
	// followed (a link to a free, bad or missing cluster, a loop).
	Runs func(n N) ([]Run, error)
	// List returns the members of directory n (without "." and "..").
	List func(n N) ([]N, error)
	// Leave, if set, is called once the members of directory n have
	// been walked, leaves first: the walk needs n's directory no more,
	// so a codec may let it go (a tree of many directories is then
	// walked in the memory of one path, not of the whole tree).
	Leave func(n N)
	// Root is the root directory's first cluster: no directory of a tree
	// may name it, unless IsRoot says it is the root (the top of a walk of
	// the whole volume).
	Root   uint32
	IsRoot func(n N) bool
	// MaxDepth bounds the nesting followed.
	MaxDepth int
	// Corrupt is what the problems the walk finds itself wrap (the
	// package's ErrCorrupt).
	Corrupt error
}

// TreeItem is one file or directory of a tree CheckTree walked.
type TreeItem[N any] struct {
	Node   N
	Parent int   // the index of its directory's item; -1 for the top
	Runs   []Run // the clusters it holds
}

// TreeError is the first problem CheckTree found: Path names the file or
// directory where it lies, Err what it is.
type TreeError struct {
	Path string
	Err  error
}

func (e *TreeError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *TreeError) Unwrap() error { return e.Err }

// CheckTree walks the tree at top (top's own path is path) before a
// writer changes it all (a recursive removal or attribute change): it
// lists every directory, follows every chain, and returns every file and
// directory in the order walked (a directory before its members), or the
// first problem that would make the change go wrong part way: a
// directory reached twice or naming the root's clusters (a loop, or
// directories sharing clusters), nesting deeper than MaxDepth, a chain
// that cannot be followed, a directory that cannot be read, or a cluster
// two members of the tree share. A writer that checks first changes
// nothing when it must refuse; walking its items backwards, it meets
// every member before its directory.
//
// Memory grows with the tree's files and fragments, and with the
// directories Leave does not let go; the chains are followed once.
func CheckTree[N any](t Tree[N], top N, path string) ([]TreeItem[N], error) {
	w := &treeWalk[N]{t: t, seen: map[uint32]int{}}
	if err := w.walk(top, -1, path, 0); err != nil {
		return nil, err
	}
	if err := w.crossLinks(); err != nil {
		return nil, err
	}
	return w.items, nil
}

type treeWalk[N any] struct {
	t       Tree[N]
	topPath string
	items   []TreeItem[N]
	seen    map[uint32]int // directories entered, by first cluster: their items
	runs    []ownedRun
}

// ownedRun is a run and the item that holds it.
type ownedRun struct {
	Run
	item int
}

func (w *treeWalk[N]) corrupt(path, format string, a ...any) error {
	return &TreeError{Path: path, Err: fmt.Errorf("%w: %s", w.t.Corrupt, fmt.Sprintf(format, a...))}
}

// path rebuilds the path of item i from its directories' names.
func (w *treeWalk[N]) path(i int) string {
	var names []string
	for ; i >= 0 && w.items[i].Parent >= 0; i = w.items[i].Parent {
		names = append(names, w.t.Name(w.items[i].Node))
	}
	slices.Reverse(names)
	p := w.topPath
	for _, n := range names {
		p = joinPath(p, n)
	}
	return p
}

// joinPath is dir/name, for messages.
func joinPath(dir, name string) string {
	if dir == "" || dir[len(dir)-1] == '/' {
		return dir + name
	}
	return dir + "/" + name
}

func (w *treeWalk[N]) walk(n N, parent int, path string, depth int) error {
	if parent < 0 {
		w.topPath = path
	}
	first, isDir := w.t.Dir(n)
	if isDir {
		switch {
		case first == w.t.Root && (w.t.IsRoot == nil || !w.t.IsRoot(n)):
			return w.corrupt(path, "the directory names the root directory's cluster %d", first)
		case depth > w.t.MaxDepth:
			return w.corrupt(path, "directories nested more than %d deep (a loop?)", w.t.MaxDepth)
		}
		if i, ok := w.seen[first]; ok {
			return w.corrupt(path, "the directory at cluster %d is reached a second time (first as %s): a directory loop, or directories sharing clusters", first, w.path(i))
		}
	}
	runs, err := w.t.Runs(n)
	if err != nil {
		return &TreeError{Path: path, Err: err}
	}
	i := len(w.items)
	w.items = append(w.items, TreeItem[N]{Node: n, Parent: parent, Runs: runs})
	for _, r := range runs {
		w.runs = append(w.runs, ownedRun{r, i})
	}
	if !isDir {
		return nil
	}
	w.seen[first] = i
	members, err := w.t.List(n)
	if err != nil {
		return &TreeError{Path: path, Err: err}
	}
	for _, m := range members {
		if err := w.walk(m, i, joinPath(path, w.t.Name(m)), depth+1); err != nil {
			return err
		}
	}
	if w.t.Leave != nil {
		w.t.Leave(n)
	}
	return nil
}

// crossLinks finds a cluster two items hold.
func (w *treeWalk[N]) crossLinks() error {
	slices.SortFunc(w.runs, func(a, b ownedRun) int { return cmp.Compare(a.Start, b.Start) })
	var end uint64
	owner := -1
	for _, r := range w.runs {
		if owner >= 0 && uint64(r.Start) < end {
			if owner == r.item {
				return w.corrupt(w.path(r.item), "cluster %d comes twice in its chain (a loop)", r.Start)
			}
			return w.corrupt(w.path(r.item), "cluster %d is also held by %s (cross-linked)", r.Start, w.path(owner))
		}
		if e := uint64(r.Start) + uint64(r.Len); e > end {
			end, owner = e, r.item
		}
	}
	return nil
}

// RunsOf is a file's extents as Runs; run converts one.
func RunsOf[E any](exts []E, run func(E) Run) []Run {
	runs := make([]Run, len(exts))
	for i, e := range exts {
		runs[i] = run(e)
	}
	return runs
}

// Dismantle takes apart a tree CheckTree returned, as RemoveAll does on
// both codecs: members before their directories, so that a directory's
// own clusters are freed with it and its members' entries need only be
// forgotten. free gets every run of every item (to free them at the next
// Commit); remove takes each item out of
// its directory, given its directory's node (the zero N and top true for
// the tree's head, which the caller's lookup found).
func Dismantle[N any](items []TreeItem[N], free func(Run), remove func(n, parent N, top bool)) {
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		for _, r := range it.Runs {
			free(r)
		}
		var parent N
		if it.Parent >= 0 {
			parent = items[it.Parent].Node
		}
		remove(it.Node, parent, it.Parent < 0)
	}
}

// TakeTree removes a checked tree whose head is a member of its
// directory, as RemoveAll does on both codecs (Dismantle): every run of
// every member joins pending (as the codec's extent, ext), to be freed
// once the volume commits; forget drops the member's own directory where
// the walk loaded it, with its changes (its clusters are freed, so the
// entries in it need not change); removeTop removes the head's entry, the
// only one written.
func TakeTree[N, E any](items []TreeItem[N], pending *[]E, ext func(Run) E, forget, removeTop func(n N)) {
	free := func(r Run) { *pending = append(*pending, ext(r)) }
	Dismantle(items, free, func(n, _ N, top bool) {
		forget(n)
		if top {
			removeTop(n)
		}
	})
}

// MaxTreeDepth bounds the directory nesting a tree walk follows on both
// codecs: a path of 260 characters (Windows) cannot hold more than 130
// levels, and none that Linux can name holds 1024, so anything deeper is
// a loop of directory entries or other damage.
const MaxTreeDepth = 1024

// RemoveAll is RemoveAll for both codecs: change starts the change and
// finds name (ChangeEntry: the root is refused), a name that does not
// exist being no error, as with os.RemoveAll; check walks and checks the
// whole tree name heads (CheckTree, and whatever the codec refuses of a
// lone file) before anything changes, so that a damaged tree is refused,
// naming where, and the volume stays as it was; take then removes the
// checked tree (Dismantle), which reads nothing more and cannot fail.
func RemoveAll[D, R comparable, N any](name string, change func(op, name string) (D, R, error), check func(parent D, r R, path string) ([]TreeItem[N], error), take func(parent D, items []TreeItem[N])) error {
	parent, r, err := change("remove", name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	path := "/" + CleanPath(name)
	items, err := check(parent, r, path)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	take(parent, items)
	return nil
}

// CheckTreeAt is a volume's CheckTree for both codecs: start refuses a
// closed volume (and settles what the codec must), lookup finds name, and
// check walks the tree it heads (the whole volume for the root) as
// RemoveAll does before it changes anything. The first damage that would
// make a change of every file in the tree go wrong part way is returned,
// naming where: a directory loop, a directory naming the root's clusters,
// a chain into a free or bad cluster or a loop, a directory that cannot
// be read, clusters two members of the tree share. Writers of a whole
// tree (fattrib -/) call it first, so that a refusal changes nothing.
func CheckTreeAt[D, R comparable, N any](name string, start func() error, lookup func(op, name string) (D, R, error), check func(parent D, r R, path string) ([]TreeItem[N], error)) error {
	if err := start(); err != nil {
		return err
	}
	parent, r, err := lookup("check", name)
	if err != nil {
		return err
	}
	var root R
	path := "/" + CleanPath(name)
	if r == root {
		path = "/"
	}
	if _, err := check(parent, r, path); err != nil {
		return &fs.PathError{Op: "check", Path: path, Err: err}
	}
	return nil
}
