package fsutil

import (
	"fmt"
	"io"
	"io/fs"
	"os"
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

// FileUpdate is the state and the argument rules both codecs' in-place
// file updaters share: the file's path (for errors), its size as written
// so far, the offset of the next Write, O_APPEND, whether its entry must
// be written, and close-once. The codec's Updater keeps it in a field and
// adds what differs: how clusters are added and freed and how the entry
// is recorded.
type FileUpdate struct {
	Path     string
	Size     int64
	Pos      int64
	Append   bool
	Changed  bool // the entry must be written (size, clusters, times)
	Done     bool
	MaxSize  int64 // the largest file (0: no limit this side of int64)
	TooLarge error
}

// Closed refuses op after Close.
func (f *FileUpdate) Closed(op string) error {
	if f.Done {
		return &fs.PathError{Op: op, Path: f.Path, Err: fs.ErrClosed}
	}
	return nil
}

// Write writes p at the current offset (at the end under O_APPEND) with
// writeAt and moves the offset past what it wrote.
func (f *FileUpdate) Write(p []byte, writeAt func(op string, p []byte, off int64) (int, error)) (int, error) {
	if f.Append {
		f.Pos = f.Size
	}
	n, err := writeAt("write", p, f.Pos)
	f.Pos += int64(n)
	return n, err
}

// CheckWriteAt refuses WriteAt under O_APPEND, as os.File does.
func (f *FileUpdate) CheckWriteAt() error {
	if f.Append {
		return &fs.PathError{Op: "writeat", Path: f.Path, Err: fmt.Errorf("%w: WriteAt on a file opened with O_APPEND", fs.ErrInvalid)}
	}
	return nil
}

// CheckRange refuses a write of n bytes at off (op names it) that starts
// before the file or ends past the largest file.
func (f *FileUpdate) CheckRange(op string, off, n int64) error {
	if off < 0 {
		return &fs.PathError{Op: op, Path: f.Path, Err: fmt.Errorf("%w: negative offset %d", fs.ErrInvalid, off)}
	}
	if f.MaxSize > 0 && (off > f.MaxSize || n > f.MaxSize-off) {
		return &fs.PathError{Op: op, Path: f.Path, Err: f.TooLarge}
	}
	return nil
}

// Seek sets the offset of the next Write (io.Seeker); one past the end is
// allowed.
func (f *FileUpdate) Seek(offset int64, whence int) (int64, error) {
	if err := f.Closed("seek"); err != nil {
		return 0, err
	}
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = f.Pos
	case io.SeekEnd:
		base = f.Size
	default:
		return f.Pos, &fs.PathError{Op: "seek", Path: f.Path, Err: fmt.Errorf("%w: whence %d", fs.ErrInvalid, whence)}
	}
	n := base + offset
	if (offset > 0 && n < base) || n < 0 {
		return f.Pos, &fs.PathError{Op: "seek", Path: f.Path, Err: fmt.Errorf("%w: offset %d from %d", fs.ErrInvalid, offset, base)}
	}
	f.Pos = n
	return n, nil
}

// PutRuns writes p at byte pos of a file whose clusters (of cs bytes) are
// the extents exts (run gives an extent's first cluster and length), with
// write at device offsets (offset places a cluster); false when the
// extents end first.
func PutRuns[E any](p []byte, pos int64, exts []E, run func(E) Run, cs int64, offset func(uint32) int64, write func(off int64, p []byte) error) (bool, error) {
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
			return true, err
		}
		p = p[n:]
		skip, within = 0, 0
		if len(p) == 0 {
			return true, nil
		}
	}
	return len(p) == 0, nil
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
