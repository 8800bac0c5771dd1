package fat

import (
	"errors"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// RemoveAll removes name and, if it is a directory, everything below it.
// The clusters of every removed file and directory become free once the
// volume commits (the volume's free count comes back). A name that does not
// exist is no error, as with os.RemoveAll. The whole tree is walked and
// checked first (checkTree): a damaged tree (a directory loop, a chain
// into a free cluster or a loop, clusters two of its members share) is
// refused, naming where, and nothing is changed; otherwise the removal
// itself reads nothing more, so it cannot fail part way. Memory grows with
// the tree's directories and fragments, not with its clusters.
func (v *Volume) RemoveAll(name string) error {
	return fsutil.RemoveAll(name, v.changes().Entry, v.checkTreeFreeing, v.takeTree)
}

// checkTreeFreeing is checkTreeIn for a removal: the FAT copies must also
// agree where freeing the tree's clusters will write (guardFree).
func (v *Volume) checkTreeFreeing(parent *dir, r *Record, path string) ([]fsutil.TreeItem[*treeNode], error) {
	items, err := v.checkTreeIn(parent, r, path)
	for i := 0; err == nil && i < len(items); i++ {
		for _, run := range items[i].Runs {
			if err = v.guardFree([]Extent{{Cluster(run.Start), run.Len}}); err != nil {
				break
			}
		}
	}
	return items, err
}

// takeTree removes a checked tree whose head is a member of parent. The
// top's entry is removed; the members' entries lie in directories whose
// clusters are freed, so they need not change, and those directories are
// only forgotten (the walk let the clean ones go already).
func (v *Volume) takeTree(parent *dir, items []fsutil.TreeItem[*treeNode]) {
	forget := func(n *treeNode) {
		if n.listed {
			c := n.rec.Entry.Cluster
			v.forgetDir(c)
			delete(v.dirtyDirs, c)
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
		v.settle()
		return nil
	}
	return fsutil.CheckTreeAt(name, start, v.lookup, v.checkTreeIn)
}

// checkTreeIn is checkTree for the tree r heads in its directory.
func (v *Volume) checkTreeIn(_ *dir, r *Record, path string) ([]fsutil.TreeItem[*treeNode], error) {
	return v.checkTree(r, path)
}

// treeNode is a file or directory checkTree walks: its record (nil for
// the root), and whether it is a directory the walk listed.
type treeNode struct {
	rec    *Record
	listed bool
}

// checkTree walks the tree r heads (at path) and returns its files and
// directories, a directory before its members, each with the clusters it
// holds; or, naming where, a loop, a directory naming the root's
// clusters, a chain that cannot be followed, a directory that cannot be
// read, or clusters two of its members share (fsutil.CheckTree). Each
// directory is let go once walked, unless it has changes not yet written
// or something holds it, so the walk keeps the directories of one path.
func (v *Volume) checkTree(r *Record, path string) ([]fsutil.TreeItem[*treeNode], error) {
	l := v.layout
	root := uint32(0)
	if l.Type == FAT32 {
		root = uint32(l.RootCluster)
	}
	first := func(n *treeNode) Cluster {
		if n.rec == nil {
			return Cluster(root)
		}
		return n.rec.Entry.Cluster
	}
	t := fsutil.Tree[*treeNode]{
		Name: func(n *treeNode) string { return n.rec.Name },
		Dir: func(n *treeNode) (uint32, bool) {
			return uint32(first(n)), n.rec == nil || n.rec.Entry.IsDir()
		},
		IsRoot: func(n *treeNode) bool { return n.rec == nil },
		Runs: func(n *treeNode) ([]fsutil.Run, error) {
			c := first(n)
			if c == 0 {
				return nil, nil
			}
			exts, err := ChainExtents(v.table, c)
			if err != nil {
				return nil, damaged(err)
			}
			return fsutil.RunsOf(exts, Extent.run), nil
		},
		List: func(n *treeNode) ([]*treeNode, error) {
			d, err := v.loadDir(first(n))
			if err != nil {
				return nil, err
			}
			n.listed = true
			recs := d.list()
			out := make([]*treeNode, len(recs))
			for i, m := range recs {
				out[i] = &treeNode{rec: m}
			}
			return out, nil
		},
		Leave: func(n *treeNode) {
			// Clean and held by nothing: read again if it is needed.
			c := first(n)
			if d := v.dirs[c]; d != nil && n.rec != nil && !d.node.Pinned() && v.dirtyDirs[c] == nil {
				v.forgetDir(c)
			}
		},
		Root:     root,
		MaxDepth: fsutil.MaxTreeDepth,
		Corrupt:  ErrCorrupt,
	}
	items, err := fsutil.CheckTree(t, &treeNode{rec: r}, path)
	if errors.Is(err, ErrCorrupt) {
		return nil, damaged(err)
	}
	return items, err
}

// run is the extent as the shared tree walk counts it (fsutil.Run).
func (e Extent) run() fsutil.Run { return fsutil.Run{Start: uint32(e.Start), Len: e.Len} }

// extentOf is the extent a shared run (fsutil.Run) stands for.
func extentOf(r fsutil.Run) Extent { return Extent{Cluster(r.Start), r.Len} }
