package fat

import (
	"errors"
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
// removed while it is open.
type Updater struct {
	f      fsutil.FileUpdate
	v      *Volume
	parent *dir
	rec    *Record

	chain    []Extent // the file's clusters now
	onDisk   int64    // how many of them the entry on disk names
	diskLast Cluster  // the last of those (0: none)
}

// OpenFile opens the file name for writing in place. flag is os.O_WRONLY
// or os.O_RDWR, with any of os.O_APPEND (every Write goes to the end),
// os.O_CREATE (an empty file is made if there is none; with os.O_EXCL,
// an existing one is refused), os.O_TRUNC (the file is cut to 0 bytes).
// See Updater for what a crash leaves.
func (v *Volume) OpenFile(name string, flag int) (*Updater, error) {
	p := "/" + cleanPath(name)
	if err := fsutil.CheckUpdateFlags(flag, p); err != nil {
		return nil, err
	}
	if namesDir(name) {
		return nil, &fs.PathError{Op: "open", Path: p + "/", Err: ErrIsDir}
	}
	if err := v.begin(); err != nil {
		return nil, err
	}
	if err := v.settleWrite(); err != nil {
		return nil, err
	}
	_, r, err := v.lookup("open", name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
		w, err := v.Create(name, 0, v.Now())
		if err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case r != nil && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrExist}
	}
	parent, r, err := v.changes().Entry("open", name)
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
	have := extentClusters(chain)
	if have*v.layout.ClusterSize < size {
		return nil, &fs.PathError{Op: "open", Path: p, Err: damaged(fmt.Errorf("%w: the file's size is %d bytes but its chain holds %d clusters of %d bytes", ErrCorrupt, size, have, v.layout.ClusterSize))}
	}
	u := &Updater{v: v, parent: parent, rec: r, chain: chain, onDisk: have}
	u.f = fsutil.FileUpdate{Path: p, Size: size, Append: flag&os.O_APPEND != 0, MaxSize: MaxFileSize, TooLarge: ErrFileTooLarge}
	if len(chain) > 0 {
		u.diskLast = chain[len(chain)-1].End() - 1
	}
	parent.node.Pin() // until Close
	if flag&os.O_TRUNC != 0 && size > 0 {
		if err := u.Truncate(0); err != nil {
			u.f.Done = true
			parent.node.Unpin()
			return nil, err
		}
	}
	return u, nil
}

// extentClusters counts the clusters of exts.
func extentClusters(exts []Extent) int64 {
	var n int64
	for _, e := range exts {
		n += int64(e.Len)
	}
	return n
}

// usable refuses a call on a closed Updater or volume.
func (u *Updater) usable(op string) error {
	if err := u.f.Closed(op); err != nil {
		return err
	}
	if u.v.closed {
		return ErrClosed
	}
	return u.v.begin()
}

// Name is the file's volume path.
func (u *Updater) Name() string { return u.f.Path }

// Size is the file's size as written so far.
func (u *Updater) Size() int64 { return u.f.Size }

// Write writes p at the current offset (at the end under O_APPEND) and
// moves the offset past it.
func (u *Updater) Write(p []byte) (int, error) { return u.f.Write(p, u.writeAt) }

// WriteAt writes p at byte off of the file, making it longer if it ends
// past the end (a gap between the old end and off reads as zeros). It
// is refused under O_APPEND, as os.File refuses it.
func (u *Updater) WriteAt(p []byte, off int64) (int, error) {
	if err := u.f.CheckWriteAt(); err != nil {
		return 0, err
	}
	return u.writeAt("writeat", p, off)
}

func (u *Updater) writeAt(op string, p []byte, off int64) (int, error) {
	if err := u.usable(op); err != nil {
		return 0, err
	}
	if err := u.f.CheckRange(op, off, int64(len(p))); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	end := off + int64(len(p))
	if end > u.f.Size {
		if err := u.extend(off, end); err != nil {
			return 0, err
		}
	}
	if err := u.put(p, off); err != nil {
		return 0, &fs.PathError{Op: op, Path: u.f.Path, Err: err}
	}
	u.f.Size = max(u.f.Size, end)
	u.f.Changed = true
	return len(p), nil
}

// extend makes room for the file to end at end, with a write from off:
// clusters past the chain are allocated, and the bytes between the old
// end and off (the old last cluster's slack, new clusters' old contents)
// are zeroed.
func (u *Updater) extend(off, end int64) error {
	if err := u.grow(end); err != nil {
		return &fs.PathError{Op: "write", Path: u.f.Path, Err: err}
	}
	if off > u.f.Size {
		if err := fsutil.ZeroRange(u.put, u.f.Size, off); err != nil {
			return &fs.PathError{Op: "write", Path: u.f.Path, Err: err}
		}
	}
	return nil
}

// grow allocates the clusters a file of n bytes needs beyond its chain,
// after its last cluster where they are free. The link from the last
// cluster the entry on disk names is held until Close (phaseOpen).
func (u *Updater) grow(n int64) error {
	v := u.v
	need := v.clustersFor(n) - extentClusters(u.chain)
	if need <= 0 {
		return nil
	}
	var last Cluster
	if k := len(u.chain); k > 0 {
		last = u.chain[k-1].End() - 1
	}
	held := false
	if last != 0 && last == u.diskLast {
		if _, ok := v.held[last]; !ok {
			v.holdLink(last, phaseOpen)
			held = true
		}
	}
	exts, err := v.allocate(uint32(need), last)
	if err != nil {
		if held {
			delete(v.held, last)
		}
		return err
	}
	for _, e := range exts {
		if k := len(u.chain); k > 0 && u.chain[k-1].End() == e.Start {
			u.chain[k-1].Len += e.Len
			continue
		}
		u.chain = append(u.chain, e)
	}
	return nil
}

// put queues p at byte pos of the file, which its chain covers, through
// the volume's data stream (which reads the rest of a partial block
// before it writes it).
func (u *Updater) put(p []byte, pos int64) error {
	v := u.v
	offset := func(c uint32) int64 { return v.layout.ClusterOffset(Cluster(c)) }
	covered, err := fsutil.PutRuns(p, pos, u.chain, Extent.run, v.layout.ClusterSize, offset, v.writeData)
	if err == nil && !covered {
		err = fmt.Errorf("%w: write past the file's chain", ErrCorrupt)
	}
	return err
}

// Seek sets the offset of the next Write (io.Seeker); an offset past the
// end is allowed, and a Write there leaves zeros in between.
func (u *Updater) Seek(offset int64, whence int) (int64, error) { return u.f.Seek(offset, whence) }

// Truncate changes the file's size to n. A longer file gets zeros (and
// the clusters to hold them); a shorter one keeps the clusters its size
// needs: those it had on disk are freed after its entry says the new
// size (this commits the volume), those Updater added are freed at once.
func (u *Updater) Truncate(n int64) error {
	if err := u.usable("truncate"); err != nil {
		return err
	}
	if err := u.f.CheckRange("truncate", n, 0); err != nil {
		return err
	}
	if n == u.f.Size {
		return nil
	}
	u.f.Changed = true
	if n > u.f.Size {
		if err := u.extend(n, n); err != nil {
			return err
		}
		u.f.Size = n
		return nil
	}
	return u.shrink(n)
}

// shrink cuts the file to n bytes.
func (u *Updater) shrink(n int64) error {
	v := u.v
	keep := v.clustersFor(n)
	u.f.Size = n
	// Clusters added since the entry was written: nothing on disk names
	// them (the link to them is held), so they are free at once.
	if added := extentClusters(u.chain) - u.onDisk; added > 0 {
		cut := max(keep, u.onDisk)
		kept, freed := fsutil.SplitExtents(u.chain, cut, Extent.size, Extent.split)
		if cut == u.onDisk && u.diskLast != 0 {
			v.table.Set(u.diskLast, v.table.EOC())
			if h, ok := v.held[u.diskLast]; ok && h.phase == phaseOpen {
				delete(v.held, u.diskLast)
			}
		} else if len(kept) > 0 {
			v.table.Set(kept[len(kept)-1].End()-1, v.table.EOC())
		}
		v.freeClusters(freed)
		u.chain = kept
	}
	if keep >= u.onDisk {
		return nil
	}
	// Clusters the entry on disk names: the entry first, then the free.
	kept, freed := fsutil.SplitExtents(u.chain, keep, Extent.size, Extent.split)
	if err := v.guardFree(freed); err != nil {
		return &fs.PathError{Op: "truncate", Path: u.f.Path, Err: err}
	}
	if len(kept) > 0 {
		last := kept[len(kept)-1].End() - 1
		v.holdLink(last, phaseLast)
		v.table.Set(last, v.table.EOC())
		u.diskLast = last
	} else {
		u.diskLast = 0
	}
	u.chain, u.onDisk = kept, keep
	v.pendingFree = append(v.pendingFree, freed...)
	u.record()
	u.f.Changed = false
	return v.Commit()
}

// record puts the file's new entry (first cluster, size, times) in its
// directory: in phaseEntries, or in phaseAfterEntries when the chain on
// disk grew (its link, held until now, goes out in phaseEntries).
func (u *Updater) record() {
	v, r := u.v, u.rec
	first := Cluster(0)
	if len(u.chain) > 0 {
		first = u.chain[0].Start
	}
	now := v.Now()
	r.Entry.Cluster, r.Entry.Size = first, uint32(u.f.Size)
	r.Entry.Attr |= AttrArchive
	r.Entry.SetTimes(r.Entry.CreateTimeValue(), now, now)
	grown := false
	if u.diskLast != 0 {
		if h, ok := v.held[u.diskLast]; ok && h.phase == phaseOpen {
			h.phase = phaseEntries
			v.held[u.diskLast] = h
			grown = true
		}
	}
	if grown {
		v.updateExtended(u.parent, r)
	} else {
		u.parent.update(r)
	}
	u.onDisk = extentClusters(u.chain)
	if len(u.chain) > 0 {
		u.diskLast = u.chain[len(u.chain)-1].End() - 1
	} else {
		u.diskLast = 0
	}
}

// Sync records the file's entry as it is now and commits the volume.
func (u *Updater) Sync() error {
	if err := u.usable("sync"); err != nil {
		return err
	}
	if u.f.Changed {
		u.record()
		u.f.Changed = false
	}
	return u.v.Commit()
}

// Close records the file's entry (size, clusters, modification time)
// for the volume's next commit; under --sync file the volume commits and
// flushes here. A second Close does nothing.
func (u *Updater) Close() error {
	if u.f.Done {
		return nil
	}
	if u.v.closed {
		u.f.Done = true
		u.parent.node.Unpin()
		return ErrClosed
	}
	u.f.Done = true
	defer u.parent.node.Unpin()
	if !u.f.Changed {
		return nil
	}
	u.record()
	u.f.Changed = false
	return fsutil.FileDone(u.v.dev, u.v.Commit)
}

var (
	_ io.WriterAt    = (*Updater)(nil)
	_ io.WriteSeeker = (*Updater)(nil)
	_ io.Closer      = (*Updater)(nil)
)
