package fat

import (
	"errors"
	"fmt"
	"io/fs"
)

// maxTreeDepth bounds the directory nesting RemoveAll follows: a path of
// 260 characters cannot hold more than 130 levels, so anything deeper is a
// loop of directory entries.
const maxTreeDepth = 1024

// RemoveAll removes name and, if it is a directory, everything below it.
// The clusters of every removed file and directory become free once the
// volume commits (the volume's free count comes back). A name that does not
// exist is no error, as with os.RemoveAll. Chains are walked with a bound,
// and a cluster two chains share is freed once (the free count follows
// the FAT), so a corrupt tree (loops, shared clusters) is removed as far
// as it can be and the problem reported. Memory grows with the tree's
// directories and fragments, not with its clusters.
func (v *Volume) RemoveAll(name string) error {
	if err := v.begin(); err != nil {
		return err
	}
	if err := v.settleWrite(); err != nil {
		return err
	}
	parent, r, err := v.lookup("remove", name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if r == nil {
		return &fs.PathError{Op: "remove", Path: "/", Err: fs.ErrPermission}
	}
	t := &treeRemover{v: v, dirs: map[Cluster]bool{}}
	t.remove(parent, r, 0)
	v.pendingFree = append(v.pendingFree, t.free...)
	if len(t.errs) > 0 {
		return &fs.PathError{Op: "remove", Path: "/" + cleanPath(name), Err: errors.Join(t.errs...)}
	}
	return nil
}

// treeRemover collects the clusters of a tree as it removes its entries.
type treeRemover struct {
	v    *Volume
	dirs map[Cluster]bool // directories entered
	free []Extent
	errs []error
}

// remove deletes r from parent, after its members if it is a directory.
func (t *treeRemover) remove(parent *dir, r *Record, depth int) {
	v := t.v
	c := r.Entry.Cluster
	if r.Entry.IsDir() {
		switch {
		case c == 0 || (v.layout.Type == FAT32 && c == v.layout.RootCluster):
			t.errs = append(t.errs, fmt.Errorf("%w: directory %q names the root directory's cluster %d", ErrCorrupt, r.Name, c))
			parent.remove(r)
			return
		case t.dirs[c]:
			t.errs = append(t.errs, fmt.Errorf("%w: directory %q at cluster %d is reached twice (a loop or shared clusters)", ErrCorrupt, r.Name, c))
			parent.remove(r)
			return
		case depth >= maxTreeDepth:
			t.errs = append(t.errs, fmt.Errorf("%w: directories nested more than %d deep below %q", ErrCorrupt, maxTreeDepth, r.Name))
			return
		}
		t.dirs[c] = true
		d, err := v.loadDir(c)
		if err != nil {
			t.errs = append(t.errs, err)
			return
		}
		for _, m := range d.list() {
			t.remove(d, m, depth+1)
		}
		// The directory's own clusters are freed: its slots need not be
		// written back.
		v.forgetDir(c)
		delete(v.dirtyDirs, c)
	}
	if c != 0 {
		chain, err := ChainExtents(v.table, c)
		if err != nil {
			// A broken chain is left for fsck to reclaim: freeing part of
			// it could free clusters another file holds.
			t.errs = append(t.errs, fmt.Errorf("%q: %w", r.Name, damaged(err)))
			chain = nil
		}
		t.free = append(t.free, chain...)
	}
	if depth > 0 {
		// parent goes too: its slots need not be marked.
		parent.detach(r)
		return
	}
	parent.remove(r)
}
