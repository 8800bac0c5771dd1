package exfat

import (
	"io"
	"io/fs"
	"math"
	"time"

	"github.com/ftools/ftools/pkg/internal/bounds"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// MaxFileSize is the largest file exFAT can hold: every cluster of the
// largest heap (2^32 - 11 clusters of 32 MiB), about 128 PiB. A volume
// holds at most its own heap.
const MaxFileSize = MaxClusterCount * maxClusterSize

// Writer writes one new file (or replaces one) on a volume. Its clusters
// are allocated up front from the size hint, as one contiguous run where
// the volume has one (the entry then says NoFatChain and the FAT is not
// touched); data goes out through the volume's data stream; the entry set
// appears only when the Writer is closed and the volume commits, so a
// crash never leaves an entry that names unwritten data. The clusters,
// the data and close-once are the shared file writer's
// (fsutil.FileWriter); what is exFAT's own is the bitmap, the chain or
// NoFatChain written at Close, and the entry set.
type Writer struct {
	f      fsutil.FileWriter[Extent, *Record]
	v      *Volume
	parent *dir
}

// pathErr wraps err in a *fs.PathError for the volume path name.
func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: "/" + cleanPath(name), Err: err}
}

// fileStore is how the shared file writer allocates, places and frees
// the volume's clusters: marked in the bitmap as they are taken (a
// request beyond the free clusters fails first, naming both in bytes);
// the chain, if the file needs one, is written at Close (streamFor).
func (v *Volume) fileStore() *fsutil.FileStore[Extent] {
	if v.store == nil {
		v.store = v.newFileStore()
	}
	return v.store
}

func (v *Volume) newFileStore() *fsutil.FileStore[Extent] {
	cs := v.layout.ClusterSize
	return &fsutil.FileStore[Extent]{
		FS:          "exfat",
		ClusterSize: cs,
		Run:         Extent.run,
		Extent:      extentOf,
		Offset:      v.offsetOf,
		Allocate:    v.allocateFree,
		Free:        v.release,
		Write:       v.writeData,
		ReadInto:    v.readInto,
		Request:     int64(v.dev.IOSize()),
		Now:         v.Now,
	}
}

// allocateFree is allocate for a file's data: n clusters after cluster
// after where they are free, a request beyond the free clusters refused
// first, naming both in bytes.
func (v *Volume) allocateFree(n int64, after uint32) ([]Extent, error) {
	if n > int64(v.bitmap.free) {
		cs := v.layout.ClusterSize
		return nil, &NoSpaceError{Need: min(n, math.MaxInt64/cs) * cs, Free: int64(v.bitmap.free) * cs}
	}
	return v.allocate(uint32(n), Cluster(after))
}

// Create starts a file at name (its parent must exist). An existing file
// of that name is replaced once the new one is complete; its clusters are
// freed after the entry stops naming them. sizeHint is the expected size:
// that many bytes are allocated at once, and a size beyond the free space
// fails here, before anything is written. A zero mtime records v.Now(),
// as it does for Mkdir, MkdirSized and MkdirAll (fsutil.Stamp).
func (v *Volume) Create(name string, sizeHint int64, mtime time.Time) (*Writer, error) {
	parent, base, err := v.changes().NewFile("create", name, ErrIsDir)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: fsutil.NewFileWriter[Extent, *Record](v.fileStore(), &parent.node, base, mtime), v: v, parent: parent}
	if r := parent.lookup(base); r != nil {
		if r.IsDir() {
			return nil, pathErr("create", name, ErrIsDir)
		}
		// The replaced file's clusters are freed at Close: a broken
		// chain is refused now, before a byte is written (as on FAT).
		if _, err := v.fileExtents(&r.Set.Stream); err != nil {
			return nil, pathErr("create", name, err)
		}
		w.f.Old = r
	} else if err := checkNewName(base); err != nil {
		return nil, pathErr("create", name, err)
	} else if err := v.roomFor(parent, base, sizeHint); err != nil {
		return nil, pathErr("create", name, err)
	}
	if err := w.f.Reserve(sizeHint); err != nil {
		return nil, pathErr("create", name, err)
	}
	w.f.Hold() // until Close or Abort
	return w, nil
}

// clustersFor is how many clusters n bytes take (bounds.ClustersFor).
func (v *Volume) clustersFor(n int64) int64 { return bounds.ClustersFor(n, v.layout.ClusterSize) }

// Write queues p as the file's next bytes.
func (w *Writer) Write(p []byte) (int, error) {
	if !w.f.Done && w.v.closed {
		return 0, errClosedWriter
	}
	return w.f.Write(p)
}

// ReadFrom copies r to the file's next bytes until r ends, reading
// straight into the volume's data buffers (io.Copy uses it): the data is
// copied once, by the read. Clusters beyond the size hint are allocated as
// needed, a request's worth at a time; Close gives back what is not used.
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	if !w.f.Done && w.v.closed {
		return 0, errClosedWriter
	}
	return w.f.ReadFrom(r)
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

// Close gives back the clusters the file did not use and records its
// entry set (or updates the replaced one). Under --sync file the volume
// commits and flushes here.
func (w *Writer) Close() error {
	if !w.f.Done && w.v.closed {
		return errClosedWriter
	}
	if !w.f.Finish() {
		return nil
	}
	defer w.f.Unpin()
	v := w.v
	if err := w.f.Settle(); err != nil {
		return err
	}
	stream, err := v.streamFor(w.f.Exts, w.f.Written)
	if err != nil {
		w.f.Release()
		return err
	}
	now := v.Now()
	if old := w.f.Old; old != nil {
		oldExts, err := v.recordExtents(old)
		if err != nil {
			w.f.Release()
			return pathErr("create", w.f.Name, err)
		}
		old.Set.Stream.Flags, old.Set.Stream.FirstCluster = stream.Flags, stream.FirstCluster
		old.Set.Stream.DataLength, old.Set.Stream.ValidDataLength = stream.DataLength, stream.ValidDataLength
		old.Set.File.Attr |= AttrArchive
		old.Set.File.Modify, old.Set.File.Access = MakeTimestamp(w.f.Mtime), accessStamp(now)
		if err := w.parent.update(old); err != nil {
			return err
		}
		v.pendingFree = append(v.pendingFree, oldExts...)
	} else {
		s := EntrySet{File: FileEntry{Attr: AttrArchive, Create: MakeTimestamp(now), Modify: MakeTimestamp(w.f.Mtime), Access: accessStamp(now)}, Stream: stream}
		if _, err := w.parent.add(w.f.Name, s); err != nil {
			w.f.Release()
			return err
		}
	}
	return fsutil.FileDone(v.dev, v.Commit)
}

// accessStamp is a last-accessed timestamp, which has no 10 ms field.
func accessStamp(t time.Time) Timestamp {
	ts := MakeTimestamp(t)
	ts.Ms10 = 0
	return ts
}

// streamFor makes the stream extension of a file of size bytes on exts:
// NoFatChain when they are one run, else their FAT chain is written. An
// empty file has no cluster and no NoFatChain (fsck.exfat insists).
func (v *Volume) streamFor(exts []Extent, size int64) (StreamEntry, error) {
	s := StreamEntry{Flags: streamAllocOK, DataLength: uint64(size), ValidDataLength: uint64(size)}
	if len(exts) == 0 {
		return s, nil
	}
	s.FirstCluster = exts[0].Start
	if len(exts) == 1 {
		s.Flags |= streamNoFATChain
		return s, nil
	}
	return s, v.fat.setChain(exts)
}

// Abort drops the file: its clusters, which nothing on disk names, are
// free again at once. A replaced file stays as it was.
func (w *Writer) Abort() { w.f.Abort() }

// Mkdir makes a directory; its parent must exist. A new directory has one
// zeroed cluster (exFAT directories hold no "." or ".." entries) and
// NoFatChain.
func (v *Volume) Mkdir(name string, mtime time.Time) error {
	return v.MkdirSized(name, mtime, 0)
}

// MkdirSized is Mkdir for a directory that will hold slots entries of
// EntrySize bytes: it is made with clusters for all of them, zeroed and
// written with the data, one run with NoFatChain when the free space has
// one (else a FAT chain), so that it does not grow one piece at a time
// between its files' data (it still grows past them). Slots of 0 make
// one cluster, as Mkdir.
func (v *Volume) MkdirSized(name string, mtime time.Time, slots int) error {
	l := v.layout
	nd, err := fsutil.MkdirStart(v.changes(), name, mtime, slots, l.ClusterSize, maxDirBytes,
		func() int64 { return int64(v.bitmap.free) }, func(n uint32) ([]Extent, error) { return v.allocate(n, 0) })
	if err != nil {
		return err
	}
	parent, base, exts := nd.Parent, nd.Base, nd.Exts
	c := exts[0].Start
	zero := make([]byte, nd.Clusters*l.ClusterSize)
	at := int64(0)
	for _, e := range exts {
		size := int64(e.Len) * l.ClusterSize
		if err := v.writeData(l.ClusterOffset(e.Start), zero[at:at+size]); err != nil {
			v.release(exts) // nothing names it yet
			return err
		}
		at += size
	}
	noFAT := len(exts) == 1
	if !noFAT {
		if err := v.fat.setChain(exts); err != nil {
			v.release(exts)
			return pathErr("mkdir", name, err)
		}
	}
	now := v.Now()
	size := uint64(len(zero))
	s := EntrySet{
		File:   FileEntry{Attr: AttrDirectory, Create: MakeTimestamp(now), Modify: MakeTimestamp(nd.Mtime), Access: accessStamp(now)},
		Stream: StreamEntry{Flags: streamAllocOK, FirstCluster: c, DataLength: size, ValidDataLength: size},
	}
	if noFAT {
		s.Stream.Flags |= streamNoFATChain
	}
	r, err := parent.add(base, s)
	if err != nil {
		v.release(exts)
		return pathErr("mkdir", name, err)
	}
	d := &dir{v: v, first: c, parent: parent, rec: r, exts: exts, noFAT: noFAT, raw: zero, dirty: map[int]struct{}{}}
	v.cacheDir(d)
	// Written whole again at the commit (as pkg/fat's writeNewDirs does):
	// new directories made one after another then go out as one run, not
	// one write per directory around the sectors never used; and a dirty
	// directory stays cached until then, not dropped and read back.
	d.markDirty(0, len(zero)/EntrySize)
	return nil
}

// MkdirAll makes a directory and any missing parents.
func (v *Volume) MkdirAll(name string, mtime time.Time) error {
	mkdir := func(name string) error { return v.Mkdir(name, mtime) }
	return fsutil.MkdirAll(cleanPath(name), v.lookup, (*Record).IsDir, ErrNotDir, mkdir)
}

// Remove deletes a file or an empty directory. Its clusters become free
// once the volume commits the deleted entry set.
func (v *Volume) Remove(name string) error {
	parent, r, err := v.changes().Entry("remove", name)
	if err != nil {
		return err
	}
	if r.IsDir() {
		d, err := v.loadDir(parent, r)
		if err != nil {
			return pathErr("remove", name, err)
		}
		if len(d.list()) > 0 {
			return pathErr("remove", name, ErrNotEmpty)
		}
		v.dropDir(d)
	}
	exts, err := v.recordExtents(r)
	if err != nil {
		return pathErr("remove", name, err)
	}
	parent.remove(r)
	v.pendingFree = append(v.pendingFree, exts...)
	return nil
}

// dropDir forgets a directory that is being removed: its entries need not
// be written back.
func (v *Volume) dropDir(d *dir) {
	if v.dirs[d.first] == d {
		delete(v.dirs, d.first)
	}
	v.uncacheDir(d)
	delete(v.dirtyDirs, d)
}
