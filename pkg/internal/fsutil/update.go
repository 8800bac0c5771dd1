package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	fio "github.com/ftools/ftools/pkg/io"
)

// UpdateFlags are the flags an in-place update (the codecs' OpenFile)
// takes.
const UpdateFlags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_EXCL | os.O_TRUNC

// CheckUpdateFlags refuses flags OpenFile does not take, or that do not
// open the file for writing.
func CheckUpdateFlags(flag int, path string) error {
	if flag&^UpdateFlags != 0 || flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: flags %#x: OpenFile opens a file for writing (os.O_WRONLY or os.O_RDWR, with O_APPEND, O_CREATE, O_EXCL, O_TRUNC); read with Open", fs.ErrInvalid, flag)}
	}
	return nil
}

// UpdateCodec is what a codec's in-place updater does its own way, for
// the shared FileUpdate.
type UpdateCodec interface {
	// Reach makes the file ready for a write of [off, end): clusters for
	// end bytes, zeros where the bytes before off are not the file's
	// (FAT: from its size; exFAT: from its valid data length).
	Reach(off, end int64) error
	// Put queues p at byte pos of the file, which its clusters cover.
	Put(p []byte, pos int64) error
	// Wrote says that [off, end) holds data now (exFAT raises its valid
	// data length).
	Wrote(off, end int64)
	// Shrink cuts the file (whose Size is already n) to n bytes.
	Shrink(n int64) error
	// Record puts the file's entry as it is now in its directory.
	Record() error
}

// UpdateVolume is what an updater asks of its volume, the same on both
// codecs.
type UpdateVolume struct {
	// Begin refuses a change on a closed or read-only volume and starts
	// one (the dirty flag armed).
	Begin func() error
	// Commit commits the volume.
	Commit func() error
	// Dev is the volume's device: Close ends a file as its sync policy
	// asks (see FileDone).
	Dev *fio.Device
	// Closed reports whether the volume is closed; ClosedErr is the
	// error for a call after that.
	Closed    func() bool
	ClosedErr error
	// Pin keeps the file's directory in the cache until Unpin.
	Pin, Unpin func()
}

// Start pins the file's directory until Close, cuts the file to 0 bytes
// when trunc (O_TRUNC), and returns the Updater over f.
func (f *FileUpdate) Start(trunc bool) (*Updater, error) {
	f.V.Pin()
	if trunc && f.Size > 0 {
		if err := f.Truncate(0); err != nil {
			f.Done = true
			f.V.Unpin()
			return nil, err
		}
	}
	return NewUpdater(f), nil
}

// closedErr is the error for a call after the volume's Close, or nil.
func (v UpdateVolume) closedErr() error {
	if v.Closed() {
		return v.ClosedErr
	}
	return nil
}

// FileUpdate is the state and the steps both codecs' in-place file
// updaters share: the file's path (for errors), its size as written so
// far, the offset of the next Write, O_APPEND, whether its entry must be
// written, and close-once. The codec's Updater keeps it in a field and
// gives C, what differs: how clusters are added and freed and how the
// entry is recorded.
type FileUpdate struct {
	C        UpdateCodec
	V        UpdateVolume
	Path     string
	Size     int64
	Pos      int64
	Append   bool
	Changed  bool // the entry must be written (size, clusters, times)
	Done     bool
	MaxSize  int64 // the largest file (0: no limit this side of int64)
	TooLarge error
}

// usable refuses op after Close, or on a closed volume, and begins the
// change.
func (f *FileUpdate) usable(op string) error {
	if f.Done {
		return &fs.PathError{Op: op, Path: f.Path, Err: fs.ErrClosed}
	}
	if err := f.V.closedErr(); err != nil {
		return err
	}
	return f.V.Begin()
}

// Write writes p at the current offset (at the end under O_APPEND) and
// moves the offset past it.
func (f *FileUpdate) Write(p []byte) (int, error) {
	if f.Append {
		f.Pos = f.Size
	}
	n, err := f.writeAt("write", p, f.Pos)
	f.Pos += int64(n)
	return n, err
}

// WriteAt writes p at byte off of the file, making it longer if it ends
// past the end (a gap reads as zeros). It is refused under O_APPEND, as
// os.File refuses it.
func (f *FileUpdate) WriteAt(p []byte, off int64) (int, error) {
	if f.Append {
		return 0, &fs.PathError{Op: "writeat", Path: f.Path, Err: fmt.Errorf("%w: WriteAt on a file opened with O_APPEND", fs.ErrInvalid)}
	}
	return f.writeAt("writeat", p, off)
}

func (f *FileUpdate) writeAt(op string, p []byte, off int64) (int, error) {
	if err := f.usable(op); err != nil {
		return 0, err
	}
	if err := f.checkRange(op, off, int64(len(p))); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	end := off + int64(len(p))
	if err := f.C.Reach(off, end); err != nil {
		return 0, &fs.PathError{Op: op, Path: f.Path, Err: err}
	}
	if err := f.C.Put(p, off); err != nil {
		return 0, &fs.PathError{Op: op, Path: f.Path, Err: err}
	}
	f.C.Wrote(off, end)
	f.Size = max(f.Size, end)
	f.Changed = true
	return len(p), nil
}

// checkRange refuses a write of n bytes at off (op names it) that starts
// before the file or ends past the largest file.
func (f *FileUpdate) checkRange(op string, off, n int64) error {
	if off < 0 {
		return &fs.PathError{Op: op, Path: f.Path, Err: fmt.Errorf("%w: negative offset %d", fs.ErrInvalid, off)}
	}
	if f.MaxSize > 0 && (off > f.MaxSize || n > f.MaxSize-off) {
		return &fs.PathError{Op: op, Path: f.Path, Err: f.TooLarge}
	}
	return nil
}

// Seek sets the offset of the next Write (io.Seeker); one past the end is
// allowed, and a Write there leaves zeros in between.
func (f *FileUpdate) Seek(offset int64, whence int) (int64, error) {
	if f.Done {
		return 0, &fs.PathError{Op: "seek", Path: f.Path, Err: fs.ErrClosed}
	}
	return Seek(&f.Pos, offset, whence, f.Size, f.Path)
}

// Truncate changes the file's size to n: a longer file reads as zeros
// past its old end (Reach), a shorter one is cut (Shrink).
func (f *FileUpdate) Truncate(n int64) error {
	if err := f.usable("truncate"); err != nil {
		return err
	}
	if err := f.checkRange("truncate", n, 0); err != nil {
		return err
	}
	if n == f.Size {
		return nil
	}
	f.Changed = true
	if n > f.Size {
		if err := f.C.Reach(n, n); err != nil {
			return &fs.PathError{Op: "truncate", Path: f.Path, Err: err}
		}
		f.C.Wrote(n, n)
		f.Size = n
		return nil
	}
	f.Size = n
	if err := f.C.Shrink(n); err != nil {
		return &fs.PathError{Op: "truncate", Path: f.Path, Err: err}
	}
	return nil
}

// Sync records the file's entry as it is now and commits the volume.
func (f *FileUpdate) Sync() error {
	if err := f.usable("sync"); err != nil {
		return err
	}
	if f.Changed {
		if err := f.C.Record(); err != nil {
			return err
		}
		f.Changed = false
	}
	return f.V.Commit()
}

// Close records the file's entry for the volume's next commit (FileDone:
// under the sync policy file it commits here). A second Close does
// nothing.
func (f *FileUpdate) Close() error {
	if f.Done {
		return nil
	}
	f.Done = true
	defer f.V.Unpin()
	if err := f.V.closedErr(); err != nil {
		return err
	}
	if !f.Changed {
		return nil
	}
	if err := f.C.Record(); err != nil {
		return err
	}
	f.Changed = false
	return FileDone(f.V.Dev, f.V.Commit)
}

// OpenUpdate starts an OpenFile of name (path is its cleaned form, for
// errors) the same way for both codecs: flag is checked, then, as a change
// (c), a missing file is made under os.O_CREATE (create returns its writer,
// closed here), an existing one refused under os.O_CREATE|os.O_EXCL, and
// the file's directory and record returned.
func OpenUpdate[D, R comparable](path, name string, flag int, c Changes[D, R], create func() (io.Closer, error)) (D, R, error) {
	var noD D
	var noR R
	if err := CheckUpdateFlags(flag, path); err != nil {
		return noD, noR, err
	}
	if err := c.Begin(); err != nil {
		return noD, noR, err
	}
	if err := c.Settle(); err != nil {
		return noD, noR, err
	}
	_, r, err := c.Lookup("open", name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
		w, err := create()
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			return noD, noR, err
		}
	case err != nil:
		return noD, noR, err
	case r != noR && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return noD, noR, &fs.PathError{Op: "open", Path: path, Err: fs.ErrExist}
	}
	return c.Entry("open", name)
}

// PutRuns writes p at byte pos of a file whose clusters (of cs bytes) are
// the extents exts (run gives an extent's first cluster and length), with
// write at device offsets (offset places a cluster); a write past them is
// an error wrapping corrupt.
func PutRuns[E any](p []byte, pos int64, exts []E, run func(E) Run, cs int64, offset func(uint32) int64, write func(off int64, p []byte) error, corrupt error) error {
	skip, within := pos/cs, pos%cs
	for _, e := range exts {
		r := run(e)
		if skip >= int64(r.Len) {
			skip -= int64(r.Len)
			continue
		}
		off := offset(r.Start+uint32(skip)) + within
		n := min((int64(r.Len)-skip)*cs-within, int64(len(p)))
		if err := write(off, p[:n]); err != nil {
			return err
		}
		p = p[n:]
		skip, within = 0, 0
		if len(p) == 0 {
			return nil
		}
	}
	if len(p) > 0 {
		return fmt.Errorf("%w: a write past the file's clusters", corrupt)
	}
	return nil
}

// ZeroRange writes zeros over bytes [from, to) of a file with put.
func ZeroRange(put func(p []byte, pos int64) error, from, to int64) error {
	for from < to {
		n := min(to-from, int64(len(zeroBlock)))
		if err := put(zeroBlock[:n], from); err != nil {
			return err
		}
		from += n
	}
	return nil
}
