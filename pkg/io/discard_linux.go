package io

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Discard issues one BLKDISCARD (BLKSECDISCARD when secure) on a block
// device, or one fallocate(PUNCH_HOLE|KEEP_SIZE) on a regular file, which
// has no secure discard. A device or file system that refuses the request
// answers errDiscardUnsupported.
func (b *fileBackend) Discard(off, n int64, secure bool) error {
	if !b.block {
		if secure {
			return errDiscardUnsupported
		}
		return punchHole(b.fd, off, n)
	}
	req := uintptr(unix.BLKDISCARD)
	if secure {
		req = unix.BLKSECDISCARD
	}
	r := [2]uint64{uint64(off), uint64(n)}
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(b.fd), req, uintptr(unsafe.Pointer(&r)))
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		case unix.EOPNOTSUPP, unix.ENOTTY, unix.ENOSYS, unix.EINVAL:
			// EINVAL: the range is whole logical sectors, so it is the
			// device refusing the request itself (no discard support).
			return errDiscardUnsupported
		}
		return e
	}
}

// punchHole deallocates [off, off+n) of a regular file, keeping its size.
func punchHole(fd int, off, n int64) error {
	for {
		err := unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
		switch err {
		case nil:
			return nil
		case unix.EINTR:
			continue
		case unix.EOPNOTSUPP, unix.ENOSYS:
			return errDiscardUnsupported
		}
		return err
	}
}

// discardFile punches [off, off+n) out of f (osFileBackend, the portable
// backend that Linux tests exercise too).
func discardFile(f *os.File, off, n int64, secure bool) error {
	if secure {
		return errDiscardUnsupported
	}
	return punchHole(int(f.Fd()), off, n)
}
