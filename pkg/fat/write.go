package fat

import (
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/ftools/ftools/pkg/internal/bounds"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// MaxFileSize is the largest file FAT can hold: 4 GiB - 1 byte.
const MaxFileSize = 1<<32 - 1

// ErrFileTooLarge is returned for data past MaxFileSize.
var ErrFileTooLarge = fmt.Errorf("fat: a FAT file holds at most %d bytes (4 GiB - 1)", int64(MaxFileSize))

// Writer writes one new file (or replaces one) on a volume. Its clusters
// are allocated up front from the size hint, as one contiguous run where the
// volume has one; data goes out through the volume's data batch; the
// directory entry appears only when the Writer is closed and the volume
// commits, so a crash never leaves an entry that points at unwritten data.
// The clusters, the data and close-once are the shared file writer's
// (fsutil.FileWriter); what is FAT's own is the chain (ended where Close
// cuts the file) and the entry.
type Writer struct {
	f      fsutil.FileWriter[Extent, *Record]
	v      *Volume
	parent *dir
}

// fileStore is how the shared file writer allocates, places and frees
// the volume's clusters: chained in the FAT as they are taken, the chain
// ended where Close cuts the file.
func (v *Volume) fileStore() *fsutil.FileStore[Extent] {
	if v.store == nil {
		v.store = v.newFileStore()
	}
	return v.store
}

func (v *Volume) newFileStore() *fsutil.FileStore[Extent] {
	return &fsutil.FileStore[Extent]{
		FS:          "fat",
		ClusterSize: v.layout.ClusterSize,
		MaxSize:     MaxFileSize,
		TooLarge:    ErrFileTooLarge,
		Run:         Extent.run,
		Extent:      extentOf,
		Offset:      v.offsetOf,
		Allocate:    func(n int64, after uint32) ([]Extent, error) { return v.allocate(uint32(n), Cluster(after)) },
		Free:        v.freeClusters,
		EndChain:    func(last Extent) { v.table.Set(last.End()-1, v.table.EOC()) },
		Write:       v.writeData,
		ReadInto:    v.readInto,
		Request:     int64(v.dev.IOSize()),
		Now:         v.Now,
	}
}

// Create starts a file at name (its parent must exist). An existing file of
// that name is replaced once the new one is complete; its clusters are freed
// after the entry stops naming them. sizeHint is the expected size: that
// many bytes are allocated at once, and a size beyond the free space fails
// here, before anything is written. A zero mtime records v.Now(), as it
// does for Mkdir, MkdirSized and MkdirAll (fsutil.Stamp).
func (v *Volume) Create(name string, sizeHint int64, mtime time.Time) (*Writer, error) {
	if sizeHint > MaxFileSize {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: ErrFileTooLarge}
	}
	parent, base, err := v.changes().NewFile("create", name, ErrIsDir)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: fsutil.NewFileWriter[Extent, *Record](v.fileStore(), &parent.node, base, mtime), v: v, parent: parent}
	if r := parent.lookup(base); r != nil {
		if r.Entry.IsDir() || r.Entry.IsLabel() {
			return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: ErrIsDir}
		}
		// The replaced file's chain is freed at Close: a broken one is
		// refused now, before a cluster is allocated or a byte written.
		if _, err := chainOrNil(v, r.Entry.Cluster); err != nil {
			return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
		}
		w.f.Old = r
	} else if err := checkNewName(base); err != nil {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
	} else if err := v.roomFor(parent, base, sizeHint); err != nil {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
	}
	if err := w.f.Reserve(sizeHint); err != nil {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
	}
	w.f.Hold()
	return w, nil
}

// putRuns queues p at byte pos of a file whose clusters are exts, through
// the volume's data stream (which reads the rest of a partial block
// before it writes it).
func (v *Volume) putRuns(p []byte, pos int64, exts []Extent) error {
	return fsutil.PutRuns(p, pos, exts, Extent.run, v.layout.ClusterSize, v.offsetOf, v.writeData, ErrCorrupt)
}

// offsetOf is where cluster c lies on the device.
func (v *Volume) offsetOf(c uint32) int64 { return v.layout.ClusterOffset(Cluster(c)) }

// readInto reads at most n bytes of r into the data stream at off.
func (v *Volume) readInto(off int64, r io.Reader, n int64) (int64, error) {
	return v.data.ReadFrom(v.dev, v.marker(), off, r, n)
}

// clustersFor is how many clusters n bytes take (bounds.ClustersFor).
func (v *Volume) clustersFor(n int64) int64 { return bounds.ClustersFor(n, v.layout.ClusterSize) }

// Write queues p as the file's next bytes.
func (w *Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

// ReadFrom copies r to the file's next bytes until r ends, reading
// straight into the volume's data buffers (io.Copy uses it): the data is
// copied once, by the read. Clusters beyond the size hint are allocated as
// needed, a request's worth at a time; Close gives back what is not used.
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	if !w.f.Done && w.v.closed {
		return 0, ErrClosed
	}
	return w.f.ReadFrom(r)
}

// Close gives back the clusters the file did not use and records its entry
// (or updates the replaced one). Under --sync file the volume commits and
// flushes here.
func (w *Writer) Close() error {
	if !w.f.Finish() {
		return nil
	}
	defer w.f.Unpin()
	v := w.v
	if v.closed {
		return ErrClosed
	}
	if err := w.f.Settle(); err != nil {
		return err
	}
	var first Cluster
	if len(w.f.Exts) > 0 {
		first = w.f.Exts[0].Start
	}
	size := uint32(w.f.Written)
	now := v.Now()
	if old := w.f.Old; old != nil {
		oldChain, err := chainOrNil(v, old.Entry.Cluster)
		if err == nil {
			err = v.guardFree(oldChain)
		}
		if err != nil {
			// Nothing names the new clusters yet: give them back.
			w.f.Release()
			return err
		}
		old.Entry.Cluster, old.Entry.Size = first, size
		old.Entry.Attr |= AttrArchive
		old.Entry.SetTimes(old.Entry.CreateTimeValue(), w.f.Mtime, now)
		w.parent.update(old)
		v.pendingFree = append(v.pendingFree, oldChain...)
	} else {
		e := DirEntry{Attr: AttrArchive, Cluster: first, Size: size}
		e.SetTimes(now, w.f.Mtime, now)
		if _, err := w.parent.add(w.f.Name, e); err != nil {
			w.f.Release()
			return err
		}
	}
	return fsutil.FileDone(v.dev, v.Commit)
}

// Abort drops the file: its clusters, which nothing on disk names, are
// free again at once. A replaced file stays as it was.
func (w *Writer) Abort() { w.f.Abort() }

// trimExtents keeps the first keep clusters of exts (ending the chain
// there) and frees the rest.
func (v *Volume) trimExtents(exts *[]Extent, keep int64) {
	kept, freed := fsutil.SplitExtents(*exts, keep, Extent.size, Extent.split)
	if len(kept) > 0 {
		v.table.Set(kept[len(kept)-1].End()-1, v.table.EOC())
	}
	v.freeClusters(freed)
	*exts = kept
}

// size is the extent's length in clusters; split cuts it after n of them
// (see fsutil.SplitExtents).
func (e Extent) size() uint32 { return e.Len }
func (e Extent) split(n uint32) (Extent, Extent) {
	return Extent{e.Start, n}, Extent{e.Start + Cluster(n), e.Len - n}
}

// chainOrNil walks the chain a writer is about to free or extend, as
// runs; a broken one is a DamageError.
func chainOrNil(v *Volume, c Cluster) ([]Extent, error) {
	if c == 0 {
		return nil, nil
	}
	chain, err := ChainExtents(v.table, c)
	return chain, damaged(err)
}

// Mkdir makes a directory; its parent must exist.
func (v *Volume) Mkdir(name string, mtime time.Time) error {
	return v.MkdirSized(name, mtime, 0)
}

// MkdirSized is Mkdir for a directory that will hold slots slots of
// DirEntrySize bytes ("." and ".." included, as pkg/vol's DirSlots counts them): it is made
// with clusters for all of them, zeroed and written with the data, so
// that it does not grow one piece at a time between its files' data (it
// still grows past them). Slots of 0 or 2 make one cluster, as Mkdir.
func (v *Volume) MkdirSized(name string, mtime time.Time, slots int) error {
	l := v.layout
	nd, err := fsutil.MkdirStart(v.changes(), name, mtime, slots, l.ClusterSize, MaxDirEntries*DirEntrySize,
		func() int64 { return int64(v.allocatable()) }, func(n uint32) ([]Extent, error) { return v.allocate(n, 0) })
	if err != nil {
		return err
	}
	parent, base, exts := nd.Parent, nd.Base, nd.Exts
	c := exts[0].Start
	now := v.Now()
	raw := make([]byte, nd.Clusters*l.ClusterSize)
	dot := DirEntry{Name: DotName, Attr: AttrDirectory, Cluster: c}
	dot.SetTimes(now, nd.Mtime, now)
	dot.Encode(raw[0:])
	dotdot := dot
	dotdot.Name = DotDotName
	dotdot.Cluster = parent.first
	if parent.isRoot() {
		dotdot.Cluster = 0
	}
	dotdot.Encode(raw[DirEntrySize:])
	var chain []Cluster
	for _, e := range exts {
		if err := v.writeData(l.ClusterOffset(e.Start), raw[int64(len(chain))*l.ClusterSize:][:int64(e.Len)*l.ClusterSize]); err != nil {
			v.freeClusters(exts) // nothing names it yet
			return err
		}
		for k := e.Start; k < e.End(); k++ {
			chain = append(chain, k)
		}
	}
	e := DirEntry{Attr: AttrDirectory, Cluster: c}
	e.SetTimes(now, nd.Mtime, now)
	if _, err := parent.add(base, e); err != nil {
		v.freeClusters(exts)
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: err}
	}
	d := &dir{v: v, first: c, chain: chain, raw: raw, dirty: map[int]struct{}{}, shorts: NewShortNameSet(), end: 2, hint: 2}
	d.shorts.Add(DotName)
	d.shorts.Add(DotDotName)
	d.recs = []*Record{{Name: ".", Short: DotName, Entry: dot, Slot: 0, Slots: 1}, {Name: "..", Short: DotDotName, Entry: dotdot, Slot: 1, Slots: 1}}
	v.cacheDir(d)
	v.noteNewDir(d)
	return nil
}

// MkdirAll makes a directory and any missing parents.
func (v *Volume) MkdirAll(name string, mtime time.Time) error {
	isDir := func(r *Record) bool { return r.Entry.IsDir() }
	mkdir := func(name string) error { return v.Mkdir(name, mtime) }
	return fsutil.MkdirAll(cleanPath(name), v.lookup, isDir, ErrNotDir, mkdir)
}

// Remove deletes a file or an empty directory. Its clusters become free
// once the volume commits the deleted entry.
func (v *Volume) Remove(name string) error {
	parent, r, err := v.changes().Entry("remove", name)
	if err != nil {
		return err
	}
	if r.Entry.IsDir() {
		d, err := v.dirOf(r)
		if err != nil {
			return &fs.PathError{Op: "remove", Path: "/" + cleanPath(name), Err: err}
		}
		if len(d.list()) > 0 {
			return &fs.PathError{Op: "remove", Path: "/" + cleanPath(name), Err: ErrNotEmpty}
		}
		v.forgetDir(r.Entry.Cluster)
		delete(v.dirtyDirs, r.Entry.Cluster)
	}
	chain, err := chainOrNil(v, r.Entry.Cluster)
	if err == nil {
		err = v.guardFree(chain)
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: "/" + cleanPath(name), Err: err}
	}
	parent.remove(r)
	v.pendingFree = append(v.pendingFree, chain...)
	return nil
}
