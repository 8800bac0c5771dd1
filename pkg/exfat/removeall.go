package exfat

import (
	"errors"
	"fmt"
	"io/fs"
)

// maxTreeDepth bounds the directory nesting followed: deeper than any path
// Windows or Linux can name, so anything deeper is damage.
const maxTreeDepth = 1024

// RemoveAll removes name and, if it is a directory, everything below it.
// The clusters of every removed file and directory become free once the
// volume commits. A name that does not exist is no error, as with
// os.RemoveAll. A directory reached twice (clusters shared in a damaged
// image) is not entered again, and a cluster is never freed twice.
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
		return pathErr("remove", name, fs.ErrPermission)
	}
	if err := v.checkSize(r); err != nil {
		// A file named on its own is refused whole, as Remove does; one
		// met below a directory loses its entry and keeps its clusters.
		return pathErr("remove", name, err)
	}
	t := &treeRemover{v: v, seen: map[Cluster]bool{}}
	t.remove(parent, r, 0)
	v.pendingFree = append(v.pendingFree, t.free...)
	if len(t.errs) > 0 {
		return pathErr("remove", name, errors.Join(t.errs...))
	}
	return nil
}

// treeRemover collects the clusters of a tree as it removes its entries.
type treeRemover struct {
	v    *Volume
	seen map[Cluster]bool // first clusters of directories entered
	free []Extent
	errs []error
}

func (t *treeRemover) remove(parent *dir, r *Record, depth int) {
	v := t.v
	if r.IsDir() {
		c := r.Set.Stream.FirstCluster
		switch {
		case t.seen[c] || c == v.layout.RootCluster:
			t.errs = append(t.errs, fmt.Errorf("%w: directory %q at cluster %d is reached twice (shared clusters)", ErrCorrupt, r.Name, c))
			parent.remove(r)
			return
		case depth >= maxTreeDepth:
			t.errs = append(t.errs, fmt.Errorf("%w: directories nested more than %d deep below %q", ErrCorrupt, maxTreeDepth, r.Name))
			return
		}
		t.seen[c] = true
		d, err := v.loadDir(parent, r)
		if err != nil {
			// Its clusters are left for fsck: freeing them could free
			// clusters another file holds.
			t.errs = append(t.errs, fmt.Errorf("%q: %w", r.Name, err))
			parent.remove(r)
			return
		}
		for _, m := range d.list() {
			t.remove(d, m, depth+1)
		}
		v.dropDir(d)
	}
	exts, err := v.recordExtents(r)
	if err != nil {
		t.errs = append(t.errs, fmt.Errorf("%q: %w", r.Name, err))
		exts = nil
	}
	t.free = append(t.free, exts...)
	parent.remove(r)
}
