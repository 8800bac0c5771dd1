package io

import (
	"errors"
	"fmt"
	goio "io"
	"os"
)

// ReadWriterAt is storage a caller brings for a writable Device: an image
// held in memory, in a file the caller opened, behind a network client.
type ReadWriterAt interface {
	goio.ReaderAt
	goio.WriterAt
}

// SourceOptions describe a Device over a caller's storage (NewReaderDevice,
// NewReadWriterDevice, NewFileDevice, NewBytesDevice).
type SourceOptions struct {
	// Name names the storage in errors (default "reader", "file" or
	// "memory", or the *os.File's name).
	Name string
	// SectorSize is the logical sector size, a power of two (default
	// 512).
	SectorSize int
	// IOSize is the largest request; 0 means DefaultIOSize.
	IOSize int
	// Sync is when the Device flushes: through the storage's own
	// Sync() error method when it has one (an *os.File has), and a no-op
	// otherwise. The zero value is SyncClose, as for Open.
	Sync SyncPolicy
}

// NewReaderDevice returns a read-only Device over the first size bytes of
// r. Every write, zeroing call and flush asked of it fails with an error
// wrapping ErrReadOnly; nothing is ever written to r. Close does not close
// r (the caller owns it).
func NewReaderDevice(r goio.ReaderAt, size int64, o SourceOptions) (*Device, error) {
	if r == nil {
		return nil, errors.New("io: NewReaderDevice: nil reader")
	}
	return newSourceDevice(&readerBackend{r: r}, size, false, o, "reader")
}

// NewReadWriterDevice returns a writable Device over the first size bytes
// of rw. Close flushes (rw's Sync method, if it has one) as o.Sync says,
// but does not close rw (the caller owns it).
func NewReadWriterDevice(rw ReadWriterAt, size int64, o SourceOptions) (*Device, error) {
	if rw == nil {
		return nil, errors.New("io: NewReadWriterDevice: nil storage")
	}
	return newSourceDevice(&readerBackend{r: rw, w: rw}, size, true, o, "storage")
}

// NewFileDevice returns a Device over the whole of f, which the caller
// opened (write says whether to write it: f must then be open for
// writing). Its size comes from Stat; I/O is buffered through f; a flush
// is f.Sync. Close flushes as o.Sync says but does not close f. No lock
// is taken and no mount is looked for: Open does both for a path.
func NewFileDevice(f *os.File, write bool, o SourceOptions) (*Device, error) {
	if f == nil {
		return nil, errors.New("io: NewFileDevice: nil file")
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("io: %s: stat: %w", f.Name(), err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("io: %s: not a regular file (%s); use Open for a block device", f.Name(), fi.Mode().Type())
	}
	if o.Name == "" {
		o.Name = f.Name()
	}
	b := &readerBackend{r: f, syncer: f}
	if write {
		b.w = f
	}
	return newSourceDevice(b, fi.Size(), write, o, "file")
}

// NewBytesDevice returns a writable Device over b, an image in memory:
// writes change b in place, and the Device never grows it. A flush does
// nothing.
func NewBytesDevice(b []byte, o SourceOptions) (*Device, error) {
	if o.Name == "" {
		o.Name = "memory"
	}
	return newSourceDevice(&memBackend{data: b}, int64(len(b)), true, o, "memory")
}

// newSourceDevice checks the options and builds the Device.
func newSourceDevice(be backend, size int64, write bool, o SourceOptions, name string) (*Device, error) {
	if o.Name != "" {
		name = o.Name
	}
	if o.SectorSize == 0 {
		o.SectorSize = 512
	}
	if o.IOSize == 0 {
		o.IOSize = DefaultIOSize
	}
	if size < 0 || o.SectorSize < 0 || o.SectorSize&(o.SectorSize-1) != 0 || o.IOSize < 0 || o.IOSize > maxIOSize ||
		o.Sync < 0 || int(o.Sync) >= len(syncNames) {
		return nil, fmt.Errorf("io: %s: bad options (size %d, sector size %d, io size %d, sync %d)",
			name, size, o.SectorSize, o.IOSize, int(o.Sync))
	}
	return newDevice(be, name, size, o.SectorSize, 1, o.IOSize, false, write, o.Sync), nil
}

// readerBackend is a caller's ReaderAt, and WriterAt when writable. The
// Device serializes its calls (one request at a time) and never calls it
// after Close.
type readerBackend struct {
	r      goio.ReaderAt
	w      goio.WriterAt // nil: read-only
	syncer interface{ Sync() error }
	closed bool
}

// ReadAt answers a short read at the end as the file backends do: the
// bytes read and no error, io.EOF only for none.
func (b *readerBackend) ReadAt(p []byte, off int64) (int, error) {
	if b.closed {
		return 0, ErrClosed
	}
	n, err := b.r.ReadAt(p, off)
	if err == goio.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (b *readerBackend) WriteAt(p []byte, off int64) (int, error) {
	if b.closed {
		return 0, ErrClosed
	}
	if b.w == nil {
		return 0, ErrReadOnly
	}
	return b.w.WriteAt(p, off)
}

func (b *readerBackend) Sync() error {
	if b.closed {
		return ErrClosed
	}
	if b.w == nil {
		return nil
	}
	if b.syncer != nil {
		return b.syncer.Sync()
	}
	if s, ok := b.w.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

func (b *readerBackend) Zero(off, n int64) error { return errZeroUnsupported }

// Discard is not something a caller's storage offers: a format writes
// what it must and leaves the rest.
func (b *readerBackend) Discard(off, n int64, secure bool) error { return errDiscardUnsupported }

// Close forgets the storage; the caller closes it.
func (b *readerBackend) Close() error {
	b.closed = true
	return nil
}
