package io

import (
	"errors"
	"fmt"
	goio "io"
	"unsafe"
)

// backend is one file or device. Every method is exactly one request to the
// kernel (or its in-memory stand-in), so the Device can count them honestly.
// Offsets are absolute (from byte 0 of the file or device).
type backend interface {
	ReadAt(p []byte, off int64) (int, error)  // one pread
	WriteAt(p []byte, off int64) (int, error) // one pwrite
	Sync() error                              // one fdatasync
	// Zero makes [off, off+n) read as zeros with one fallocate or ioctl,
	// or returns errZeroUnsupported without doing any I/O.
	Zero(off, n int64) error
	// Discard tells the device [off, off+n) (whole logical sectors) may
	// be dropped, with one ioctl or fallocate, or returns
	// errDiscardUnsupported without doing any I/O.
	Discard(off, n int64, secure bool) error
	Close() error
}

// directDropper is a backend that can stop using O_DIRECT (reopen buffered).
type directDropper interface {
	dropDirect() error
}

// errZeroUnsupported says a backend has no cheap way to zero a range.
var errZeroUnsupported = errors.New("io: no cheap zeroing")

// memBackend is an in-memory device.
type memBackend struct {
	data   []byte
	closed bool
}

func (m *memBackend) check(off, n int64) error {
	if m.closed {
		return ErrClosed
	}
	if off < 0 || off > int64(len(m.data)) || n < 0 || n > int64(len(m.data))-off {
		return fmt.Errorf("io: memory device: %d bytes at %d past its end %d", n, off, len(m.data))
	}
	return nil
}

func (m *memBackend) ReadAt(p []byte, off int64) (int, error) {
	if m.closed {
		return 0, ErrClosed
	}
	if off >= int64(len(m.data)) {
		return 0, goio.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, goio.EOF
	}
	return n, nil
}

func (m *memBackend) WriteAt(p []byte, off int64) (int, error) {
	if err := m.check(off, int64(len(p))); err != nil {
		return 0, err
	}
	return copy(m.data[off:], p), nil
}

func (m *memBackend) Zero(off, n int64) error {
	if err := m.check(off, n); err != nil {
		return err
	}
	clear(m.data[off : off+n])
	return nil
}

// Discard zeroes the range: a discarded range may read back as zeros.
func (m *memBackend) Discard(off, n int64, secure bool) error { return m.Zero(off, n) }

func (m *memBackend) Sync() error {
	if m.closed {
		return ErrClosed
	}
	return nil
}

func (m *memBackend) Close() error {
	m.closed = true
	return nil
}

// alignedBuf returns n bytes whose address is a multiple of align (a power of two).
func alignedBuf(n, align int) []byte {
	if align <= 1 {
		return make([]byte, n)
	}
	b := make([]byte, n+align)
	o := int(uintptr(unsafe.Pointer(&b[0])) & uintptr(align-1))
	if o != 0 {
		o = align - o
	}
	return b[o : o+n : o+n]
}

// isAligned reports whether p's address is a multiple of align.
func isAligned(p []byte, align int) bool {
	if align <= 1 || len(p) == 0 {
		return true
	}
	return uintptr(unsafe.Pointer(&p[0]))&uintptr(align-1) == 0
}

func roundDown(x, a int64) int64 { return x - x%a }

func roundUp(x, a int64) int64 {
	if r := x % a; r != 0 {
		return x + a - r
	}
	return x
}
