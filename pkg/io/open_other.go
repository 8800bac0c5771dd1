//go:build !linux

package io

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// statImage accepts a regular file only: block devices are opened on
// Linux alone (open_linux.go).
func statImage(path string) (block bool, rdev uint64, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, 0, &os.PathError{Op: "open", Path: path, Err: errors.Unwrap(err)}
	}
	if fi.Mode()&os.ModeDevice != 0 {
		return false, 0, fmt.Errorf("io: open %s: block devices are supported on Linux only; use an image file", path)
	}
	if !fi.Mode().IsRegular() {
		return false, 0, fmt.Errorf("io: open %s: not a regular file", path)
	}
	return false, 0, nil
}

// openFile opens an image file with buffered I/O (no O_DIRECT off Linux)
// and takes its size from Stat; sectors are 512 bytes.
func openFile(path string, o Options, block bool) (*Device, error) {
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
	be := &fileBackend{path: path, f: f}
	d := newDevice(be, path, fi.Size(), 512, 1, ioSize, false, o.Write, o.Sync)
	d.fallback = fallback
	return d, nil
}
