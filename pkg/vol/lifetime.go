package vol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/readahead"
	fio "github.com/ftools/ftools/pkg/io"
)

// Errors of a volume's lifetime, shared by both file systems.
var (
	// ErrClosed is what every call returns once the volume is closed
	// (and the reads of its files, its writers' writes). It is the kind
	// pkg/fat's and pkg/exfat's ErrClosed are: errors.Is matches any of
	// the three.
	ErrClosed error = fserr.ErrClosed.In("vol")
	// ErrWriterOpen is what Close returns, naming the file, when a
	// Writer was still open: the file was dropped (as Writer.Abort
	// drops it; a file it was to replace stays as it was).
	ErrWriterOpen = errors.New("vol: a file was still being written")
	// ErrChanged is what a read of an open file returns once the file
	// was replaced, removed or renamed since it was opened: its old
	// clusters may hold another file's bytes by then, so the read stops
	// rather than mix the two. Opening it again reads it as it is now.
	ErrChanged = errors.New("vol: file changed while open for reading")
)

// IsReadOnly reports whether err refuses a change because the volume or
// its device is read-only (a volume opened on a read-only device, or on
// OpenReaderAt's source): pkg/fat's or pkg/exfat's ErrReadOnly (one
// kind), or pkg/io's.
func IsReadOnly(err error) bool {
	return errors.Is(err, fserr.ErrReadOnly) || errors.Is(err, fio.ErrReadOnly)
}

// locked is the Volume Open and the other Open functions return: every
// call into the file system's volume (and into its files and writers)
// holds one mutex, which makes reads from many goroutines and one writer
// among them safe, and serializes writers; it also keeps the volume's
// lifetime (ErrClosed, open writers at Close, the device held open).
//
// It embeds the unguarded Volume only so that the type keeps compiling if
// the interface grows; every method of Volume is overridden below
// (TestEveryMethodGuarded checks it).
type locked struct {
	Volume // the FAT or ExFAT adapter; used under mu only

	mu      sync.Mutex
	closed  bool
	files   map[*lockedFile]struct{} // files open for reading, checked after each change
	writers map[*lockedWriter]struct{}
	updates map[*lockedUpdater]struct{} // files open for writing in place (OpenFile)
	release func()                      // lets the device close again (fio.Device.Hold)
	owned   *fio.Device                 // closed by Close (OpenFile and the like), or nil
}

// guard wraps a freshly opened adapter; owned, if not nil, is closed
// with the volume. On error v (and owned) are closed.
func guard(v Volume, owned *fio.Device) (Volume, error) {
	release, err := v.Device().Hold("the open " + v.Type() + " volume")
	if err != nil {
		v.Close()
		if owned != nil {
			owned.Close()
		}
		return nil, err
	}
	l := &locked{Volume: v, files: map[*lockedFile]struct{}{}, writers: map[*lockedWriter]struct{}{},
		updates: map[*lockedUpdater]struct{}{}, release: release, owned: owned}
	if f, ok := v.(FAT); ok {
		return &lockedFAT{locked: l, fat: f}, nil
	}
	return l, nil
}

// usable is the error of a call on a closed volume, or on one whose
// device was closed under it (a read-only device can be: nothing is lost).
// mu is held.
func (l *locked) usable(op string) error {
	if l.closed {
		return fmt.Errorf("vol: %s: %w", op, ErrClosed)
	}
	if d := l.Volume.Device(); d.Closed() {
		return fmt.Errorf("vol: %s: the device %s was closed under the open volume: %w", op, d.Path(), fio.ErrClosed)
	}
	return nil
}

// do runs f under the lock once the volume is usable; change says f may
// change the tree.
func (l *locked) do(op string, change bool, f func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(op); err != nil {
		return err
	}
	err := f()
	if change {
		l.recheck()
	}
	return err
}

// recheck marks stale every open file whose name no longer holds the
// file it opened (replaced, removed, renamed, emptied, grown): at once,
// after each change, so that a later change cannot bring back a file
// that looks the same over other clusters. mu is held.
func (l *locked) recheck() {
	for f := range l.files {
		fi, err := l.Volume.Stat(f.name)
		if err != nil || fi.IsDir() || l.Volume.Entry(fi).FirstCluster != f.first || fi.Size() != f.size || !fi.ModTime().Equal(f.mod) {
			f.stale = true
			delete(l.files, f)
		}
	}
}

// get is do for a call that returns a value too.
func get[T any](l *locked, op string, change bool, f func() (T, error)) (T, error) {
	var out T
	err := l.do(op, change, func() error {
		var err error
		out, err = f()
		return err
	})
	return out, err
}

// fact runs f under the lock: the facts that return no error stay
// answerable after Close, from what the volume last knew.
func fact[T any](l *locked, f func() T) T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return f()
}

func (l *locked) Type() string                { return fact(l, l.Volume.Type) }
func (l *locked) FoldName(name string) string { return l.Volume.FoldName(name) } // pure
func (l *locked) Serial() uint32              { return fact(l, l.Volume.Serial) }
func (l *locked) ClusterSize() int64          { return fact(l, l.Volume.ClusterSize) }
func (l *locked) Clusters() uint32            { return fact(l, l.Volume.Clusters) }
func (l *locked) FreeClusters() uint32        { return fact(l, l.Volume.FreeClusters) }
func (l *locked) MaxFileSize() int64          { return fact(l, l.Volume.MaxFileSize) }
func (l *locked) Device() *fio.Device         { return fact(l, l.Volume.Device) }
func (l *locked) Warnings() []string          { return fact(l, l.Volume.Warnings) }
func (l *locked) WasDirty() bool              { return fact(l, l.Volume.WasDirty) }
func (l *locked) Now() time.Time              { return fact(l, l.Volume.Now) }

func (l *locked) ClusterOffset(c uint32) int64 {
	return fact(l, func() int64 { return l.Volume.ClusterOffset(c) })
}

func (l *locked) Entry(fi fs.FileInfo) Entry {
	return fact(l, func() Entry { return l.Volume.Entry(fi) })
}

func (l *locked) SetClock(now func() time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Volume.SetClock(now)
}

func (l *locked) Label() (string, error) {
	return get(l, "label", false, l.Volume.Label)
}

func (l *locked) RootLabel() (string, bool, error) {
	var s string
	var ok bool
	err := l.do("label", false, func() error {
		var err error
		s, ok, err = l.Volume.RootLabel()
		return err
	})
	return s, ok, err
}

func (l *locked) Stat(name string) (fs.FileInfo, error) {
	return get(l, "stat", false, func() (fs.FileInfo, error) {
		fi, err := l.Volume.Stat(name)
		return snapInfo(fi), err
	})
}

func (l *locked) ReadDir(name string) ([]fs.DirEntry, error) {
	return get(l, "readdir", false, func() ([]fs.DirEntry, error) {
		ents, err := l.Volume.ReadDir(name)
		return snapDir(ents), err
	})
}

func (l *locked) Runs(fi fs.FileInfo) (int, error) {
	return get(l, "runs", false, func() (int, error) { return l.Volume.Runs(fi) })
}

func (l *locked) FileClusters(fi fs.FileInfo) (int64, error) {
	return get(l, "clusters", false, func() (int64, error) { return l.Volume.FileClusters(fi) })
}

func (l *locked) CheckTree(name string) error {
	return l.do("check", false, func() error { return l.Volume.CheckTree(name) })
}

func (l *locked) Mkdir(name string, mtime time.Time) error {
	return l.do("mkdir", true, func() error { return l.Volume.Mkdir(name, mtime) })
}

func (l *locked) MkdirSized(name string, mtime time.Time, slots int) error {
	return l.do("mkdir", true, func() error { return l.Volume.MkdirSized(name, mtime, slots) })
}

func (l *locked) MkdirAll(name string, mtime time.Time) error {
	return l.do("mkdir", true, func() error { return l.Volume.MkdirAll(name, mtime) })
}

func (l *locked) Remove(name string) error {
	return l.do("remove", true, func() error { return l.Volume.Remove(name) })
}

func (l *locked) Empty(name string) error {
	return l.do("empty", true, func() error { return l.Volume.Empty(name) })
}

func (l *locked) RemoveAll(name string) error {
	return l.do("remove", true, func() error { return l.Volume.RemoveAll(name) })
}

func (l *locked) Rename(oldName, newName string) error {
	return l.do("rename", true, func() error { return l.Volume.Rename(oldName, newName) })
}

func (l *locked) SetAttr(name string, set, clear Attr) error {
	return l.do("set attributes", true, func() error { return l.Volume.SetAttr(name, set, clear) })
}

func (l *locked) Fallocate(name string, length int64, o FallocateOptions) (*FallocateResult, error) {
	return get(l, "fallocate", true, func() (*FallocateResult, error) { return l.Volume.Fallocate(name, length, o) })
}

func (l *locked) SetLabel(label string) error {
	return l.do("set label", true, func() error { return l.Volume.SetLabel(label) })
}

func (l *locked) SetSerial(serial uint32) error {
	return l.do("set serial", true, func() error { return l.Volume.SetSerial(serial) })
}

func (l *locked) Commit() error {
	return l.do("commit", true, l.Volume.Commit)
}

// Close drops the files still being written (naming them in an error
// wrapping ErrWriterOpen), writes every other change, lets the device
// close, and closes it when the volume owns it. Later calls return
// ErrClosed.
func (l *locked) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("vol: close: %w", ErrClosed)
	}
	var errs []error
	open := make([]*lockedWriter, 0, len(l.writers))
	for w := range l.writers {
		open = append(open, w)
	}
	slices.SortFunc(open, func(a, b *lockedWriter) int { return strings.Compare(a.name, b.name) })
	for _, w := range open {
		w.w.Abort()
		errs = append(errs, fmt.Errorf("vol: close: %q was still being written: dropped it (close each Writer before the volume): %w", w.name, ErrWriterOpen))
	}
	clear(l.writers)
	errs = append(errs, l.closeUpdates()...)
	clear(l.files)
	// A writable device cannot have been closed (Hold); a read-only one
	// can, and the volume's Close then only lets its memory go.
	errs = append(errs, l.usable("close"), l.Volume.Close())
	l.closed = true
	l.release()
	if l.owned != nil {
		errs = append(errs, l.owned.Close())
	}
	return errors.Join(errs...)
}

// Open opens a file or directory for reading; its reads hold the volume's
// lock, one call at a time.
func (l *locked) Open(name string) (fs.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable("open"); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := l.Volume.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	lf := &lockedFile{l: l, f: f, name: name, first: l.Volume.Entry(fi).FirstCluster, size: fi.Size(), mod: fi.ModTime()}
	if !fi.IsDir() {
		l.files[lf] = struct{}{}
	}
	return lf, nil
}

// Create starts a file; its writes hold the volume's lock.
func (l *locked) Create(name string, sizeHint int64, mtime time.Time) (Writer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable("create"); err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	w, err := l.Volume.Create(name, sizeHint, mtime)
	if err != nil {
		return nil, err
	}
	lw := &lockedWriter{l: l, w: w, name: name}
	l.writers[lw] = struct{}{}
	return lw, nil
}

func (l *locked) ReadAhead(names []string, o ReadAheadOptions) *ReadAhead {
	return l.ReadAheadFunc(len(names), nameAt(names), o)
}

// ReadAheadFunc resolves each file under the volume's lock (its workers
// read the device only, which is safe without it).
func (l *locked) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	src := aheadSourceOf(l.Volume)
	dev := l.Device()
	return readahead.NewFunc(dev, n, func(i int) readahead.Source {
		nm := name(i)
		var s readahead.Source
		if err := l.do("read", false, func() error {
			s = src(nm)
			return nil
		}); err != nil {
			return readahead.Source{Err: err}
		}
		return s
	}, o)
}

// aheadSourceOf is the file system's AheadSource.
func aheadSourceOf(v Volume) func(string) readahead.Source {
	switch a := v.(type) {
	case FAT:
		return a.Volume.AheadSource
	case ExFAT:
		return a.Volume.AheadSource
	}
	return func(string) readahead.Source {
		return readahead.Source{Err: fmt.Errorf("vol: no read-ahead for %T", v)}
	}
}

// lockedFile is a file opened through a locked volume. Once a change
// leaves its name holding another file (or none), its reads fail with
// ErrChanged (see recheck).
type lockedFile struct {
	l     *locked
	f     fs.File
	name  string
	first uint32 // the file as it was opened
	size  int64
	mod   time.Time
	stale bool
}

// use runs f under the lock once the volume is usable and the file the
// same.
func (f *lockedFile) use(op string, g func() error) error {
	l := f.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(op); err != nil {
		return &fs.PathError{Op: op, Path: f.name, Err: err}
	}
	if f.stale {
		return &fs.PathError{Op: op, Path: f.name, Err: ErrChanged}
	}
	return g()
}

// fileCall is use for a call that returns a value too.
func fileCall[T any](f *lockedFile, op string, g func() (T, error)) (T, error) {
	var out T
	err := f.use(op, func() error {
		var err error
		out, err = g()
		return err
	})
	return out, err
}

// unsupported is the error of a call the file system's File lacks.
func (f *lockedFile) unsupported(op string) error {
	return &fs.PathError{Op: op, Path: f.name, Err: errors.ErrUnsupported}
}

func (f *lockedFile) Stat() (fs.FileInfo, error) {
	return fileCall(f, "stat", func() (fs.FileInfo, error) {
		fi, err := f.f.Stat()
		return snapInfo(fi), err
	})
}

func (f *lockedFile) Read(p []byte) (int, error) {
	return fileCall(f, "read", func() (int, error) { return f.f.Read(p) })
}

// ReadAt reads at an offset, as the file system's File does.
func (f *lockedFile) ReadAt(p []byte, off int64) (int, error) {
	return fileCall(f, "read", func() (int, error) {
		if ra, ok := f.f.(io.ReaderAt); ok {
			return ra.ReadAt(p, off)
		}
		return 0, f.unsupported("read")
	})
}

// Seek moves the read offset, where the file system's File can.
func (f *lockedFile) Seek(offset int64, whence int) (int64, error) {
	return fileCall(f, "seek", func() (int64, error) {
		if s, ok := f.f.(io.Seeker); ok {
			return s.Seek(offset, whence)
		}
		return 0, f.unsupported("seek")
	})
}

func (f *lockedFile) ReadDir(n int) ([]fs.DirEntry, error) {
	return fileCall(f, "readdir", func() ([]fs.DirEntry, error) {
		if d, ok := f.f.(fs.ReadDirFile); ok {
			out, err := d.ReadDir(n)
			return snapDir(out), err
		}
		return nil, f.unsupported("readdir")
	})
}

// Close releases the file; it never fails, even after the volume's Close.
func (f *lockedFile) Close() error {
	f.l.mu.Lock()
	defer f.l.mu.Unlock()
	delete(f.l.files, f)
	return f.f.Close()
}

// lockedWriter is a Writer of a locked volume: its calls hold the
// volume's lock, and the volume knows it is open until Close or Abort.
type lockedWriter struct {
	l    *locked
	w    Writer
	name string
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := w.usable("write"); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

// usable is the error of a write to a writer the volume's Close dropped,
// or whose volume is unusable. mu is held.
func (w *lockedWriter) usable(op string) error {
	if w.l.closed {
		return &fs.PathError{Op: op, Path: w.name, Err: ErrClosed}
	}
	return w.l.usable(op)
}

// ReadFrom copies r into the file. The volume's lock is held for the
// whole copy (the file system reads r straight into its write buffers),
// so r must not read this volume: a file of a volume (or a ReadAhead's
// file), bare or behind an io.LimitedReader, is copied through a buffer
// instead, in Write calls.
func (w *lockedWriter) ReadFrom(r io.Reader) (int64, error) {
	if readsVolume(r) {
		return io.CopyBuffer(writerOnly{w}, r, make([]byte, 1<<20))
	}
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := w.usable("write"); err != nil {
		return 0, err
	}
	if rf, ok := w.w.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(w.w, r)
}

// readsVolume reports whether reading r may call into a locked volume.
func readsVolume(r io.Reader) bool {
	switch r := r.(type) {
	case *lockedFile, *readahead.File:
		return true
	case *io.LimitedReader:
		return readsVolume(r.R)
	case *ctxReader:
		return readsVolume(r.r)
	}
	return false
}

// writerOnly hides ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

func (w *lockedWriter) Close() error {
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := w.usable("close"); err != nil {
		return err
	}
	delete(l.writers, w)
	err := w.w.Close()
	l.recheck()
	return err
}

func (w *lockedWriter) Abort() {
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.l.closed {
		return // the volume's Close dropped it already
	}
	delete(l.writers, w)
	w.w.Abort()
}
