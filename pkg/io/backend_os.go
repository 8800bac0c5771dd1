package io

import (
	"errors"
	"fmt"
	goio "io"
	"os"
	"syscall"
)

// osFileBackend is an image file used through the os package: the
// portable fallback off Linux (open_other.go), with no build tag so that
// Linux tests exercise it too. Buffered I/O (no O_DIRECT), flushes
// through File.Sync, and no cheap zeroing: Zero answers
// errZeroUnsupported, so zeroed ranges are written with zeros.
type osFileBackend struct {
	path string
	f    *os.File
}

// ReadAt answers a short read at the end of the file as the Linux
// backend does: the bytes read and no error, io.EOF only for none.
func (b *osFileBackend) ReadAt(p []byte, off int64) (int, error) {
	n, err := b.f.ReadAt(p, off)
	if err == goio.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (b *osFileBackend) WriteAt(p []byte, off int64) (int, error) {
	return b.f.WriteAt(p, off)
}

func (b *osFileBackend) Sync() error { return b.f.Sync() }

func (b *osFileBackend) Zero(off, n int64) error { return errZeroUnsupported }

func (b *osFileBackend) Discard(off, n int64, secure bool) error {
	return discardFile(b.f, off, n, secure)
}

func (b *osFileBackend) Close() error {
	if err := b.f.Close(); err != nil {
		return fmt.Errorf("io: %s: close: %w", b.path, err)
	}
	return nil
}

// openOSFile opens an image file with buffered I/O through os.File and
// takes its size from Stat; sectors are 512 bytes. It is the fallback's
// openFile.
func openOSFile(path string, o Options) (*Device, error) {
	flags := os.O_RDONLY
	if o.Write {
		flags = os.O_RDWR
		if o.Sync == SyncAlways {
			flags |= os.O_SYNC
		}
	}
	fallback := ""
	if !o.Buffered {
		fallback = "no direct I/O on this system, using buffered I/O"
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if o.Write && errors.Is(err, syscall.EROFS) {
			return nil, &ReadOnlyError{Path: path, Why: "it lies on a read-only file system", Err: err}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("io: %s: stat: %w", path, err)
	}
	ioSize := o.IOSize
	if ioSize == 0 {
		ioSize = DefaultIOSize
	}
	be := &osFileBackend{path: path, f: f}
	d := newDevice(be, path, fi.Size(), 512, 1, ioSize, false, o.Write, o.Sync)
	d.fallback = fallback
	return d, nil
}

// statOSImage accepts a regular file only: the fallback opens no block
// device.
func statOSImage(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeDevice != 0 {
		return fmt.Errorf("io: open %s: block devices are supported on Linux only; use an image file", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("io: open %s: not a regular file", path)
	}
	return nil
}
