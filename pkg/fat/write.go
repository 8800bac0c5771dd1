package fat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
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
type Writer struct {
	v       *Volume
	parent  *dir
	name    string
	old     *Record // the file being replaced, if any
	mtime   time.Time
	exts    []Extent
	alloc   int64 // clusters allocated
	written int64
	at      fsutil.Cursor // the write position among exts
	done    bool
}

// Create starts a file at name (its parent must exist). An existing file of
// that name is replaced once the new one is complete; its clusters are freed
// after the entry stops naming them. sizeHint is the expected size: that
// many bytes are allocated at once, and a size beyond the free space fails
// here, before anything is written.
func (v *Volume) Create(name string, sizeHint int64, mtime time.Time) (*Writer, error) {
	if sizeHint > MaxFileSize {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: ErrFileTooLarge}
	}
	parent, base, err := v.changes().New("create", name)
	if err != nil {
		return nil, err
	}
	if namesDir(name) {
		// "new/" names a directory, not a file to create.
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name) + "/", Err: ErrIsDir}
	}
	w := &Writer{v: v, parent: parent, name: base, mtime: mtime}
	if r := parent.lookup(base); r != nil {
		if r.Entry.IsDir() || r.Entry.IsLabel() {
			return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: ErrIsDir}
		}
		// The replaced file's chain is freed at Close: a broken one is
		// refused now, before a cluster is allocated or a byte written.
		if _, err := chainOrNil(v, r.Entry.Cluster); err != nil {
			return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
		}
		w.old = r
	} else if err := checkNewName(base); err != nil {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
	} else if err := v.roomFor(parent, base, sizeHint); err != nil {
		return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
	}
	if sizeHint > 0 {
		if err := w.grow(v.clustersFor(sizeHint)); err != nil {
			return nil, &fs.PathError{Op: "create", Path: "/" + cleanPath(name), Err: err}
		}
	}
	// The parent stays in memory until the entry is added (Close).
	parent.node.Pin()
	w.name = strings.Clone(base)
	return w, nil
}

// clustersFor is how many clusters n bytes take (bounds.ClustersFor).
func (v *Volume) clustersFor(n int64) int64 { return bounds.ClustersFor(n, v.layout.ClusterSize) }

// grow allocates n more clusters at the end of the file's chain.
func (w *Writer) grow(n int64) error {
	var after Cluster
	if len(w.exts) > 0 {
		after = w.exts[len(w.exts)-1].End() - 1
	}
	exts, err := w.v.allocate(uint32(n), after)
	if err != nil {
		return err
	}
	for _, e := range exts {
		if k := len(w.exts); k > 0 && w.exts[k-1].End() == e.Start {
			w.exts[k-1].Len += e.Len
			continue
		}
		w.exts = append(w.exts, e)
	}
	w.alloc += n
	return nil
}

// Write queues p as the file's next bytes.
func (w *Writer) Write(p []byte) (int, error) {
	v := w.v
	if w.done {
		return 0, w.closedErr()
	}
	if w.written+int64(len(p)) > MaxFileSize {
		return 0, ErrFileTooLarge
	}
	if need := v.clustersFor(w.written+int64(len(p))) - w.alloc; need > 0 {
		if err := w.grow(need); err != nil {
			return 0, err
		}
	}
	done, err := w.put(p, w.written)
	w.written += int64(done)
	return done, err
}

// ReadFrom copies r to the file's next bytes until r ends, reading
// straight into the volume's data buffers (io.Copy uses it): the data is
// copied once, by the read. Clusters beyond the size hint are allocated as
// needed, a request's worth at a time; Close gives back what is not used.
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	v := w.v
	if w.done {
		return 0, w.closedErr()
	}
	if v.closed {
		return 0, ErrClosed
	}
	cs := v.layout.ClusterSize
	var total int64
	for {
		if w.written >= MaxFileSize {
			// One byte more is too many.
			var b [1]byte
			if n, _ := io.ReadFull(r, b[:]); n > 0 {
				return total, ErrFileTooLarge
			}
			return total, nil
		}
		if w.written == w.alloc*cs {
			// The clusters allocated are full: only if r holds more (the
			// size hint was short) are more taken, as many as the file
			// has (up to a request's worth), or one if they are not free.
			var b [1]byte
			if n, err := io.ReadFull(r, b[:]); n == 0 {
				if err == io.EOF {
					err = nil
				}
				return total, err
			}
			more := min(max(w.alloc, 1), max(int64(v.dev.IOSize())/cs, 1), v.clustersFor(MaxFileSize)-w.alloc)
			err := w.grow(more)
			if errors.Is(err, ErrNoSpace) && more > 1 {
				err = w.grow(1)
			}
			if err != nil {
				return total, err
			}
			if _, err := w.put(b[:], w.written); err != nil {
				return total, err
			}
			w.written++
			total++
			continue
		}
		off, n := w.span(w.written)
		n = min(n, MaxFileSize-w.written)
		k, err := v.data.ReadFrom(v.dev, v.markDirty, off, r, n)
		w.written += k
		total += k
		if err != nil {
			return total, err
		}
		if k < n {
			return total, nil
		}
	}
}

// span is where byte pos of the file lies on the device, and how many
// bytes of its extent follow from there.
func (w *Writer) span(pos int64) (int64, int64) { return w.at.Span(pos, w.run) }

// run is extent i of the file: its device offset and length in bytes.
func (w *Writer) run(i int) (int64, int64) {
	e := w.exts[i]
	return w.v.layout.ClusterOffset(e.Start), int64(e.Len) * w.v.layout.ClusterSize
}

// put queues p at byte pos of the file, walking its extents.
func (w *Writer) put(p []byte, pos int64) (int, error) { return w.at.Put(p, pos, w.run, w.v.writeData) }

// padSlack zeroes the rest of the file's last cluster (fsutil.PadSlack,
// shared with exFAT).
func (w *Writer) padSlack() error { return fsutil.PadSlack(w.put, w.written, w.v.layout.ClusterSize) }

// closedErr is a write to a Writer after its own Close: refused before a
// cluster is allocated (nothing would ever name it).
func (w *Writer) closedErr() error {
	return fmt.Errorf("fat: write to %q after its Close: %w", w.name, fs.ErrClosed)
}

// Close gives back the clusters the file did not use and records its entry
// (or updates the replaced one). Under --sync file the volume commits and
// flushes here.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	defer func() { w.parent.node.Unpin() }()
	v := w.v
	if v.closed {
		return ErrClosed
	}
	if err := w.padSlack(); err != nil {
		w.release()
		return err
	}
	used := v.clustersFor(w.written)
	if used < w.alloc {
		v.trimExtents(&w.exts, used)
		w.alloc = used
	}
	var first Cluster
	if len(w.exts) > 0 {
		first = w.exts[0].Start
	}
	now := v.Now()
	if w.old != nil {
		old := w.old
		oldChain, err := chainOrNil(v, old.Entry.Cluster)
		if err == nil {
			err = v.guardFree(oldChain)
		}
		if err != nil {
			// Nothing names the new clusters yet: give them back.
			w.release()
			return err
		}
		old.Entry.Cluster, old.Entry.Size = first, uint32(w.written)
		old.Entry.Attr |= AttrArchive
		old.Entry.SetTimes(old.Entry.CreateTimeValue(), w.mtime, now)
		w.parent.update(old)
		v.pendingFree = append(v.pendingFree, oldChain...)
	} else {
		e := DirEntry{Attr: AttrArchive, Cluster: first, Size: uint32(w.written)}
		e.SetTimes(now, w.mtime, now)
		if _, err := w.parent.add(w.name, e); err != nil {
			w.release()
			return err
		}
	}
	return fsutil.FileDone(v.dev, v.Commit)
}

// Abort drops the file: its clusters, which nothing on disk names, are
// free again at once. A replaced file stays as it was.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.parent.node.Unpin()
	w.release()
}

func (w *Writer) release() {
	w.v.trimExtents(&w.exts, 0)
	w.alloc = 0
}

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
	parent, base, err := v.changes().New("mkdir", name)
	if err != nil {
		return err
	}
	if parent.lookup(base) != nil {
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: fs.ErrExist}
	}
	if err := checkNewName(base); err != nil {
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: err}
	}
	if err := v.roomFor(parent, base, v.layout.ClusterSize); err != nil {
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: err}
	}
	exts, err := v.allocate(1, 0)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: err}
	}
	c := exts[0].Start
	now := v.Now()
	l := v.layout
	raw := make([]byte, l.ClusterSize)
	dot := DirEntry{Name: DotName, Attr: AttrDirectory, Cluster: c}
	dot.SetTimes(now, mtime, now)
	dot.Encode(raw[0:])
	dotdot := dot
	dotdot.Name = DotDotName
	dotdot.Cluster = parent.first
	if parent.isRoot() {
		dotdot.Cluster = 0
	}
	dotdot.Encode(raw[DirEntrySize:])
	if err := v.writeData(l.ClusterOffset(c), raw); err != nil {
		v.freeClusters(exts) // nothing names it yet
		return err
	}
	e := DirEntry{Attr: AttrDirectory, Cluster: c}
	e.SetTimes(now, mtime, now)
	if _, err := parent.add(base, e); err != nil {
		v.freeClusters([]Extent{{c, 1}})
		return &fs.PathError{Op: "mkdir", Path: "/" + cleanPath(name), Err: err}
	}
	d := &dir{v: v, first: c, chain: []Cluster{c}, raw: raw, dirty: map[int]struct{}{}, shorts: NewShortNameSet(), end: 2, hint: 2}
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
