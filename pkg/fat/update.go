package fat

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// phaseOpen holds the link from a file's last cluster on disk to the
// clusters an Updater added, until the Updater records the file (Close):
// a commit in between writes the new clusters' data and their own chain,
// which nothing on disk names yet (lost clusters, at worst), never a chain
// longer than the entry's size.
const phaseOpen = phaseFinal + 1

// Updater is an existing file open for writing in place (OpenFile): at an
// offset (WriteAt, Seek then Write), at its end (O_APPEND), or cut or
// extended (Truncate). What a power cut leaves:
//
//   - bytes written over the file's clusters go straight to them (no copy
//     on write, as the Linux driver does): each sector holds its old or its
//     new bytes. A write that covers part of a sector reads the rest of it
//     first (the one place a writer reads back what it writes over).
//   - clusters the file grows by are written (data, and zeros for a gap),
//     then chained, then linked from the file's old last cluster, then the
//     entry gets its new size: a cut leaves the old size with a longer
//     chain (excess clusters, which a check trims) or lost clusters.
//   - Truncate to a shorter length writes the entry's new size first and
//     frees the clusters past it only after that (it commits at once); a
//     cut in between leaves lost clusters.
//   - the entry (size, first cluster, modification time) is written when
//     the Updater is closed (or synced), by the volume's next commit.
//
// An Updater is used from one goroutine; the file must not be renamed or
// removed while it is open. Its methods (Write, WriteAt, Seek, Truncate,
// Sync, Close, Size, Name) are both file systems' one set: see pkg/vol's
// FileUpdater.
type Updater = fsutil.Updater

// updater is an Updater's state on this file system.
type updater struct {
	fsutil.InPlace[*dir, *Record, Extent]
	v        *Volume
	diskLast Cluster // the last cluster the entry on disk names (0: none)
}

// OpenFile opens the file name for writing in place. flag is os.O_WRONLY
// or os.O_RDWR, with any of os.O_APPEND (every Write goes to the end),
// os.O_CREATE (an empty file is made if there is none; with os.O_EXCL,
// an existing one is refused), os.O_TRUNC (the file is cut to 0 bytes).
// See Updater for what a crash leaves.
func (v *Volume) OpenFile(name string, flag int) (*Updater, error) {
	p := "/" + cleanPath(name)
	if namesDir(name) {
		return nil, &fs.PathError{Op: "open", Path: p + "/", Err: ErrIsDir}
	}
	create := func() (io.Closer, error) { return v.Create(name, 0, v.Now()) }
	parent, r, err := fsutil.OpenUpdate(p, name, flag, v.changes(), create)
	if err != nil {
		return nil, err
	}
	if r.Entry.IsDir() || r.Entry.IsLabel() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: ErrIsDir}
	}
	if r.Entry.Attr&AttrReadOnly != 0 {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w: the file is read-only (clear its R attribute first)", fs.ErrPermission)}
	}
	chain, err := chainOrNil(v, r.Entry.Cluster)
	if err == nil {
		err = v.guardFree(chain)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	size := int64(r.Entry.Size)
	c := fsutil.Chain[Extent]{Runs: chain, Run: Extent.run, Of: extentOf}
	have := c.Clusters()
	if have*v.layout.ClusterSize < size {
		return nil, &fs.PathError{Op: "open", Path: p, Err: damaged(fmt.Errorf("%w: the file's size is %d bytes but its chain holds %d clusters of %d bytes", ErrCorrupt, size, have, v.layout.ClusterSize))}
	}
	c.OnDisk = have
	u := &updater{InPlace: fsutil.InPlace[*dir, *Record, Extent]{Parent: parent, Rec: r, Chain: c}, v: v}
	u.File = fsutil.FileUpdate{C: (*updateOps)(u), V: fsutil.UpdateVolume{Begin: v.begin, Commit: v.Commit, Dev: v.dev, Closed: func() bool { return v.closed }, ClosedErr: ErrClosed, Pin: parent.node.Pin, Unpin: parent.node.Unpin}, Path: p, Size: size, Append: flag&os.O_APPEND != 0, MaxSize: MaxFileSize, TooLarge: ErrFileTooLarge}
	if len(chain) > 0 {
		u.diskLast = chain[len(chain)-1].End() - 1
	}
	return u.File.Start(flag&os.O_TRUNC != 0)
}

// updateOps is an Updater as the shared fsutil.FileUpdate drives it.
type updateOps updater

func (o *updateOps) Reach(off, end int64) error    { return (*updater)(o).extend(off, end) }
func (o *updateOps) Put(p []byte, pos int64) error { return o.v.putRuns(p, pos, o.Chain.Runs) }
func (o *updateOps) Wrote(off, end int64)          {}
func (o *updateOps) Shrink(n int64) error          { return (*updater)(o).shrink(n) }
func (o *updateOps) Record() error                 { (*updater)(o).record(); return nil }

// extend makes room for the file to end at end, with a write from off:
// clusters past the chain are allocated, and the bytes between the old
// end and off (the old last cluster's slack, new clusters' old contents)
// are zeroed.
func (u *updater) extend(off, end int64) error {
	if end <= u.File.Size {
		return nil
	}
	if err := u.grow(end); err != nil {
		return err
	}
	if off > u.File.Size {
		return fsutil.ZeroRange((*updateOps)(u).Put, u.File.Size, off)
	}
	return nil
}

// grow allocates the clusters a file of n bytes needs beyond its chain,
// after its last cluster where they are free. The link from the last
// cluster the entry on disk names is held until Close (phaseOpen).
func (u *updater) grow(n int64) error {
	v := u.v
	return u.Chain.Grow(n, v.layout.ClusterSize, func(need int64, after uint32) ([]Extent, error) {
		last := Cluster(after)
		held := false
		if last != 0 && last == u.diskLast {
			if _, ok := v.held[last]; !ok {
				v.holdLink(last, phaseOpen)
				held = true
			}
		}
		exts, err := v.allocate(uint32(need), last)
		if err != nil && held {
			delete(v.held, last)
		}
		return exts, err
	})
}

// shrink cuts the file to n bytes.
func (u *updater) shrink(n int64) error {
	v := u.v
	keep := v.clustersFor(n)
	// Clusters added since the entry was written: nothing on disk names
	// them (the link to them is held), so they are free at once.
	if u.Chain.Grown() {
		cut := max(keep, u.Chain.OnDisk)
		kept, freed := u.Chain.Split(cut)
		if cut == u.Chain.OnDisk && u.diskLast != 0 {
			v.table.Set(u.diskLast, v.table.EOC())
			if h, ok := v.held[u.diskLast]; ok && h.phase == phaseOpen {
				delete(v.held, u.diskLast)
			}
		} else if len(kept) > 0 {
			v.table.Set(kept[len(kept)-1].End()-1, v.table.EOC())
		}
		v.freeClusters(freed)
		u.Chain.Runs = kept
	}
	if keep >= u.Chain.OnDisk {
		return nil
	}
	// Clusters the entry on disk names: the entry first, then the free.
	kept, freed := u.Chain.Split(keep)
	if err := v.guardFree(freed); err != nil {
		return err
	}
	if len(kept) > 0 {
		last := kept[len(kept)-1].End() - 1
		v.holdLink(last, phaseLast)
		v.table.Set(last, v.table.EOC())
		u.diskLast = last
	} else {
		u.diskLast = 0
	}
	u.Chain.Runs, u.Chain.OnDisk = kept, keep
	v.pendingFree = append(v.pendingFree, freed...)
	u.record()
	u.File.Changed = false
	return v.Commit()
}

// record puts the file's new entry (first cluster, size, times) in its
// directory: in phaseEntries, or in phaseAfterEntries when the chain on
// disk grew (its link, held until now, goes out in phaseEntries).
func (u *updater) record() {
	v, r := u.v, u.Rec
	first := Cluster(0)
	if len(u.Chain.Runs) > 0 {
		first = u.Chain.Runs[0].Start
	}
	now := v.Now()
	r.Entry.Cluster, r.Entry.Size = first, uint32(u.File.Size)
	r.Entry.Attr |= AttrArchive
	r.Entry.SetTimes(r.Entry.CreateTimeValue(), now, now)
	// A chain on disk that grew: its link goes out in phaseEntries (or
	// where another change held it), the size after it.
	grown := u.diskLast != 0 && u.Chain.Grown()
	if h, ok := v.held[u.diskLast]; grown && ok && h.phase == phaseOpen {
		h.phase = phaseEntries
		v.held[u.diskLast] = h
	}
	if grown {
		v.updateExtended(u.Parent, r)
	} else {
		u.Parent.update(r)
	}
	u.Chain.Recorded()
	u.diskLast = Cluster(u.Chain.Last())
}
