package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"time"

	"github.com/ftools/ftools/pkg/internal/bounds"
	"github.com/ftools/ftools/pkg/internal/dircache"
	"github.com/ftools/ftools/pkg/internal/fserr"
)

// FileStore is how a volume holds the clusters of a file being written,
// for the shared FileWriter: E is the codec's extent (a run of clusters).
// What differs between the codecs lies here: how clusters are allocated
// (FAT chains them at once; exFAT marks its bitmap and writes a chain, or
// none, at Close), how they are freed, and whether a cut file's chain
// must end at once.
type FileStore[E any] struct {
	FS          string // "fat", "exfat": starts the writer's own errors
	ClusterSize int64
	// MaxSize is the largest file the file system holds (0: no limit
	// this side of int64), TooLarge the error for data past it.
	MaxSize  int64
	TooLarge error
	Run      func(E) Run                // an extent as its first cluster and length
	Extent   func(Run) E                // and back
	Offset   func(cluster uint32) int64 // where a cluster lies on the device
	// Allocate takes n more clusters, placed after cluster after where it
	// can (0: the file has none yet), as runs in file order.
	Allocate func(n int64, after uint32) ([]E, error)
	// Free gives back clusters that nothing on disk names: they are free
	// again at once.
	Free func([]E)
	// EndChain, when set, ends the file's chain at the last cluster of
	// last, the file's last kept run, when Close cuts the file short.
	EndChain func(last E)
	// Write queues file data at a device offset (the volume's data
	// stream).
	Write func(off int64, p []byte) error
	// ReadInto reads at most n bytes of r straight into the data stream
	// at a device offset (DataStream.ReadFrom), for ReadFrom; Request is
	// the device's request size in bytes, the most ReadFrom allocates at
	// once when the size hint was short.
	ReadInto func(off int64, r io.Reader, n int64) (int64, error)
	Request  int64
	// Now is the volume's clock: a zero mtime given to NewFileWriter
	// records it (Stamp).
	Now func() time.Time
}

// FileWriter is the state and the steps both codecs' file writers share:
// the clusters allocated for the file (up front from the size hint, more
// as the data outgrows them), the bytes written and the position among
// the clusters, the directory that will hold the entry (pinned in the
// cache until Close or Abort), the record it replaces (R, the codec's),
// close-once, and the refusal of a write after Close. The codec's Writer
// keeps it in a field and adds what differs: how the entry is recorded
// at Close.
type FileWriter[E, R any] struct {
	Name    string    // the new entry's name (the last element of its path)
	Mtime   time.Time // the modification time to record
	Old     R         // the file being replaced, if any
	Exts    []E       // the clusters allocated, as runs in file order
	Alloc   int64     // clusters allocated
	Written int64     // bytes written
	Done    bool      // closed or aborted
	failed  error     // the first Write or ReadFrom that failed: Close then drops the file
	at      Cursor    // the write position among Exts
	s       *FileStore[E]
	parent  *dircache.Node
}

// NewFileWriter starts the writer of the file name in the directory whose
// cache node is parent, to be modified at mtime (the zero time: s.Now, see
// Stamp); Hold pins that directory once the writer is sure to be returned.
func NewFileWriter[E, R any](s *FileStore[E], parent *dircache.Node, name string, mtime time.Time) FileWriter[E, R] {
	return FileWriter[E, R]{Name: name, Mtime: Stamp(mtime, s.Now), s: s, parent: parent}
}

// Hold keeps the parent directory in memory until the entry is added
// (Close) or the file dropped (Abort), and keeps its own copy of the name
// (not a slice of the caller's path).
func (w *FileWriter[E, R]) Hold() {
	w.parent.Pin()
	w.Name = strings.Clone(w.Name)
}

// Unpin lets the parent directory go (see Hold).
func (w *FileWriter[E, R]) Unpin() { w.parent.Unpin() }

// clustersFor is how many clusters n bytes take.
func (w *FileWriter[E, R]) clustersFor(n int64) int64 { return bounds.ClustersFor(n, w.s.ClusterSize) }

// Reserve allocates the clusters of sizeHint bytes, as Create does before
// a byte is written, so that a size beyond the free space fails at once.
func (w *FileWriter[E, R]) Reserve(sizeHint int64) error {
	if sizeHint <= 0 {
		return nil
	}
	return w.Grow(w.clustersFor(sizeHint))
}

// Grow allocates n more clusters at the end of the file, merging a run
// that continues the last one.
func (w *FileWriter[E, R]) Grow(n int64) error {
	var after uint32
	if k := len(w.Exts); k > 0 {
		last := w.s.Run(w.Exts[k-1])
		after = last.Start + last.Len - 1
	}
	exts, err := w.s.Allocate(n, after)
	if err != nil {
		return err
	}
	for _, e := range exts {
		r := w.s.Run(e)
		if k := len(w.Exts); k > 0 {
			if last := w.s.Run(w.Exts[k-1]); last.Start+last.Len == r.Start {
				w.Exts[k-1] = w.s.Extent(Run{Start: last.Start, Len: last.Len + r.Len})
				continue
			}
		}
		w.Exts = append(w.Exts, e)
	}
	w.Alloc += n
	return nil
}

// Write queues p as the file's next bytes, allocating the clusters the
// size hint did not cover.
func (w *FileWriter[E, R]) Write(p []byte) (int, error) {
	if w.Done {
		return 0, w.ClosedErr()
	}
	if w.failed != nil {
		// The file is already lost (Close drops it): say so again.
		return 0, w.failed
	}
	if w.s.MaxSize > 0 && w.Written+int64(len(p)) > w.s.MaxSize {
		return 0, w.s.TooLarge
	}
	if need := w.clustersFor(w.Written+int64(len(p))) - w.Alloc; need > 0 {
		if err := w.Grow(need); err != nil {
			return 0, w.fail(err)
		}
	}
	done, err := w.Put(p, w.Written)
	w.Written += int64(done)
	return done, w.fail(err)
}

// fail remembers the first error a Write or ReadFrom returned, so that
// Close drops the file instead of recording it short (an io.Writer's
// caller may well call Close after a failed Write, never Abort).
func (w *FileWriter[E, R]) fail(err error) error {
	if err != nil && w.failed == nil {
		w.failed = err
	}
	return err
}

// ReadFrom copies r to the file's next bytes until r ends, reading
// straight into the volume's data buffers (io.Copy uses it): the data is
// copied once, by the read. Clusters beyond the size hint are allocated
// as needed, as many as the file has up to a request's worth at a time
// (one when that many are not free); Close gives back what is not used.
func (w *FileWriter[E, R]) ReadFrom(r io.Reader) (int64, error) {
	if w.Done {
		return 0, w.ClosedErr()
	}
	if w.failed != nil {
		return 0, w.failed
	}
	n, err := w.readFrom(r)
	return n, w.fail(err)
}

func (w *FileWriter[E, R]) readFrom(r io.Reader) (int64, error) {
	limit := w.s.MaxSize
	if limit <= 0 {
		limit = math.MaxInt64
	}
	cs := w.s.ClusterSize
	maxClusters := (limit-1)/cs + 1
	var total int64
	var b [1]byte
	for {
		if w.Written >= limit {
			// One byte more is too many.
			if n, _ := io.ReadFull(r, b[:]); n > 0 {
				return total, w.s.TooLarge
			}
			return total, nil
		}
		if w.Written == w.Alloc*cs {
			// The clusters allocated are full: only if r holds more (the
			// size hint was short) are more taken.
			if n, err := io.ReadFull(r, b[:]); n == 0 {
				if err == io.EOF {
					err = nil
				}
				return total, err
			}
			more := min(max(w.Alloc, 1), max(w.s.Request/cs, 1), maxClusters-w.Alloc)
			err := w.Grow(more)
			if errors.Is(err, fserr.ErrNoSpace) && more > 1 {
				err = w.Grow(1)
			}
			if err != nil {
				return total, err
			}
			if _, err := w.Put(b[:], w.Written); err != nil {
				return total, err
			}
			w.Written++
			total++
			continue
		}
		off, n := w.Span(w.Written)
		n = min(n, limit-w.Written)
		k, err := w.s.ReadInto(off, r, n)
		w.Written += k
		total += k
		if err != nil {
			return total, err
		}
		if k < n {
			return total, nil
		}
	}
}

// run is extent i of the file: its device offset and length in bytes.
func (w *FileWriter[E, R]) run(i int) (int64, int64) {
	r := w.s.Run(w.Exts[i])
	return w.s.Offset(r.Start), int64(r.Len) * w.s.ClusterSize
}

// Span is where byte pos of the file lies on the device, and how many
// bytes of its run follow from there (see Cursor.Span).
func (w *FileWriter[E, R]) Span(pos int64) (int64, int64) { return w.at.Span(pos, w.run) }

// Put queues p at byte pos of the file, walking its runs.
func (w *FileWriter[E, R]) Put(p []byte, pos int64) (int, error) {
	return w.at.Put(p, pos, w.run, w.s.Write)
}

// ClosedErr is a write to a writer after its own Close: refused before a
// cluster is allocated (nothing would ever name it).
func (w *FileWriter[E, R]) ClosedErr() error {
	return fmt.Errorf("%s: write to %q after its Close: %w", w.s.FS, w.Name, fs.ErrClosed)
}

// Finish starts a Close: false when the writer was closed or aborted
// already (Close then does nothing); otherwise the writer is done from
// here on, and the codec's Close unpins the parent (deferred Unpin) when
// it returns.
func (w *FileWriter[E, R]) Finish() bool {
	if w.Done {
		return false
	}
	w.Done = true
	return true
}

// Settle ends the file's data at Close: the rest of its last cluster is
// zeroed (PadSlack) and the clusters past its data are given back. On an
// error every cluster is given back (nothing names them yet). A writer
// whose Write or ReadFrom failed is not recorded: Settle gives back its
// clusters and returns that error, and a replaced file stays as it was.
func (w *FileWriter[E, R]) Settle() error {
	if w.failed != nil {
		w.Release()
		return fmt.Errorf("%s: %q was not recorded, as a write to it failed: %w", w.s.FS, w.Name, w.failed)
	}
	if err := PadSlack(w.Put, w.Written, w.s.ClusterSize); err != nil {
		w.Release()
		return err
	}
	if used := w.clustersFor(w.Written); used < w.Alloc {
		w.trim(used)
	}
	return nil
}

// trim keeps the first keep clusters of the file (ending its chain there,
// where the codec asks) and frees the rest.
func (w *FileWriter[E, R]) trim(keep int64) {
	size := func(e E) uint32 { return w.s.Run(e).Len }
	split := func(e E, n uint32) (E, E) {
		r := w.s.Run(e)
		return w.s.Extent(Run{Start: r.Start, Len: n}), w.s.Extent(Run{Start: r.Start + n, Len: r.Len - n})
	}
	kept, cut := SplitExtents(w.Exts, keep, size, split)
	if len(kept) > 0 && w.s.EndChain != nil {
		w.s.EndChain(kept[len(kept)-1])
	}
	w.s.Free(cut)
	w.Exts, w.Alloc = kept, keep
}

// Release gives back every cluster of the file: nothing on disk names
// them.
func (w *FileWriter[E, R]) Release() {
	w.s.Free(w.Exts)
	w.Exts, w.Alloc = nil, 0
}

// Abort drops the file: its clusters, which nothing on disk names, are
// free again at once, and its parent is let go. A replaced file stays as
// it was.
func (w *FileWriter[E, R]) Abort() {
	if !w.Finish() {
		return
	}
	w.Unpin()
	w.Release()
}
