package exfat

import (
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// RemoveAll removes name and, if it is a directory, everything below it.
// The clusters of every removed file and directory become free once the
// volume commits. A name that does not exist is no error, as with
// os.RemoveAll. The whole tree is walked and checked first (checkTree): a
// damaged tree (a directory loop, a chain into a free cluster or a loop,
// clusters two of its members share) is refused, naming where, and nothing
// is changed; otherwise the removal itself reads nothing more, so it
// cannot fail part way.
func (v *Volume) RemoveAll(name string) error {
	check := func(parent *dir, r *Record, path string) ([]fsutil.TreeItem[*treeNode], error) {
		if err := v.checkSize(r); err != nil {
			// A file named on its own is refused whole, as Remove does.
			return nil, err
		}
		return v.checkTree(parent, r, path)
	}
	return fsutil.RemoveAll(name, v.changes().Entry, check, v.takeTree)
}

// takeTree removes a checked tree whose head is a member of parent. The
// top's entry set is removed; the members' lie in directories whose
// clusters are freed, so they need not change, and those directories are
// dropped with their changes (the walk let the clean ones go already).
func (v *Volume) takeTree(parent *dir, items []fsutil.TreeItem[*treeNode]) {
	forget := func(n *treeNode) {
		if n.dir != nil {
			v.dropDir(n.dir)
		}
	}
	fsutil.TakeTree(items, &v.pendingFree, extentOf, forget, func(n *treeNode) { parent.remove(n.rec) })
}

// CheckTree walks the tree at name (the whole volume for the root) as
// RemoveAll does before it changes anything, and returns the first damage
// found, naming where (fsutil.CheckTreeAt says which). Writers of a whole
// tree (fattrib -/) call it first, so that a refusal changes nothing.
func (v *Volume) CheckTree(name string) error {
	start := func() error {
		if v.closed {
			return ErrClosed
		}
		return nil
	}
	return fsutil.CheckTreeAt(name, start, v.lookup, v.checkTree)
}

// treeNode is a file or directory checkTree walks: its record (nil for
// the root), the node of the directory that holds it (nil for the top),
// and, while listed and walked (or kept after, see Leave), its own loaded
// directory.
type treeNode struct {
	rec *Record
	up  *treeNode
	dir *dir
}

// checkTree walks the tree r (a member of parent, at path) heads and
// returns its files and directories, a directory before its members, each
// with the clusters it holds; or, naming where, a loop, a directory naming
// the root's clusters, a chain that cannot be followed, a directory that
// cannot be read, or clusters two of its members share
// (fsutil.CheckTree). Each directory is let go once walked, unless it has
// changes not yet written or something holds it, so the walk keeps the
// directories of one path; a removal that follows reads nothing.
func (v *Volume) checkTree(parent *dir, r *Record, path string) ([]fsutil.TreeItem[*treeNode], error) {
	t := fsutil.Tree[*treeNode]{
		Name: func(n *treeNode) string { return n.rec.Name },
		Dir: func(n *treeNode) (uint32, bool) {
			if n.rec == nil {
				return uint32(v.layout.RootCluster), true
			}
			return uint32(n.rec.Set.Stream.FirstCluster), n.rec.IsDir()
		},
		IsRoot: func(n *treeNode) bool { return n.rec == nil },
		Runs: func(n *treeNode) ([]fsutil.Run, error) {
			var exts []Extent
			var err error
			if n.rec == nil {
				exts = v.root().exts
			} else if exts, err = v.recordExtents(n.rec); err != nil {
				return nil, err
			}
			return fsutil.RunsOf(exts, Extent.run), nil
		},
		List: func(n *treeNode) ([]*treeNode, error) {
			d := v.root()
			if n.rec != nil {
				holder := parent
				if n.up != nil {
					holder = n.up.dir
				}
				var err error
				if d, err = v.loadDir(holder, n.rec); err != nil {
					return nil, err
				}
			}
			n.dir = d
			recs := d.list()
			out := make([]*treeNode, len(recs))
			for i, m := range recs {
				out[i] = &treeNode{rec: m, up: n}
			}
			return out, nil
		},
		Leave: func(n *treeNode) {
			// Clean and held by nothing (its walked subdirectories let
			// go of it): read again if it is needed.
			d := n.dir
			if _, dirty := v.dirtyDirs[d]; n.rec == nil || dirty || d.node.Pinned() {
				return
			}
			if v.dirs[d.first] == d {
				delete(v.dirs, d.first)
			}
			v.uncacheDir(d)
			n.dir = nil
		},
		Root:     uint32(v.layout.RootCluster),
		MaxDepth: fsutil.MaxTreeDepth,
		Corrupt:  ErrCorrupt,
	}
	items, err := fsutil.CheckTree(t, &treeNode{rec: r}, path)
	if errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("%w %s", err, fsutil.DamageHint)
	}
	return items, err
}

// run is the extent as the shared tree walk counts it (fsutil.Run).
func (e Extent) run() fsutil.Run { return fsutil.Run{Start: uint32(e.Start), Len: e.Len} }

// extentOf is the extent a shared run (fsutil.Run) stands for.
func extentOf(r fsutil.Run) Extent { return Extent{Cluster(r.Start), r.Len} }
