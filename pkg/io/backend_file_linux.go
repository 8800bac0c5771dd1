package io

import (
	"errors"
	"fmt"
	goio "io"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileBackend is an image file or block device, used through raw file
// descriptors so that each method is exactly one system call.
type fileBackend struct {
	path   string
	fd     int // opened with O_DIRECT when direct
	tailFd int // buffered twin for unaligned requests while direct; -1 until needed
	claim  int // the first descriptor of a block device opened O_EXCL, kept after dropDirect for its claim; -1 if none
	flags  int // open flags of fd
	direct bool
	align  int64 // offset/length alignment of direct requests
	mem    int   // buffer address alignment of direct requests
	block  bool  // block device (else regular file)
	// zeroModes are the fallocate modes still worth trying (regular files).
	zeroModes []uint32
	noZeroOut bool // BLKZEROOUT refused once
}

func newFileBackend(path string, fd, flags int, block bool, align int64, mem int) *fileBackend {
	return &fileBackend{
		path: path, fd: fd, tailFd: -1, claim: -1, flags: flags,
		direct: flags&unix.O_DIRECT != 0, align: align, mem: mem, block: block,
		zeroModes: []uint32{
			unix.FALLOC_FL_ZERO_RANGE | unix.FALLOC_FL_KEEP_SIZE,
			unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE,
		},
	}
}

// fdFor picks the O_DIRECT descriptor for aligned requests and the buffered
// twin for the rest (the unaligned tail of a file whose size is not a
// multiple of the alignment).
func (b *fileBackend) fdFor(p []byte, off int64) (int, error) {
	if !b.direct || (off%b.align == 0 && int64(len(p))%b.align == 0 && isAligned(p, b.mem)) {
		return b.fd, nil
	}
	if b.tailFd < 0 {
		fd, err := reopen(b.fd, b.flags&^unix.O_DIRECT)
		if err != nil {
			return -1, fmt.Errorf("io: %s: open buffered twin: %w", b.path, err)
		}
		b.tailFd = fd
	}
	return b.tailFd, nil
}

// reopen opens the file behind fd again (the same inode, whatever happened
// to its name) with other flags. O_EXCL is dropped: on a block device it
// claims the device, fd holds that claim already, and a second claim
// fails with EBUSY.
func reopen(fd, flags int) (int, error) {
	return unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), flags&^unix.O_EXCL|unix.O_CLOEXEC, 0)
}

func (b *fileBackend) ReadAt(p []byte, off int64) (int, error) {
	fd, err := b.fdFor(p, off)
	if err != nil {
		return 0, err
	}
	for {
		n, err := unix.Pread(fd, p, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, goio.EOF
		}
		return n, nil
	}
}

func (b *fileBackend) WriteAt(p []byte, off int64) (int, error) {
	fd, err := b.fdFor(p, off)
	if err != nil {
		return 0, err
	}
	for {
		n, err := unix.Pwrite(fd, p, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		return n, nil
	}
}

func (b *fileBackend) Sync() error {
	// The page cache belongs to the inode, so one fdatasync covers writes
	// made through the buffered twin too.
	for {
		err := unix.Fdatasync(b.fd)
		if err != unix.EINTR {
			return err
		}
	}
}

// Zero issues one fallocate (regular files) or BLKZEROOUT (block devices).
// A mode the file system refuses is not tried again.
func (b *fileBackend) Zero(off, n int64) error {
	if b.block {
		if b.noZeroOut {
			return errZeroUnsupported
		}
		r := [2]uint64{uint64(off), uint64(n)}
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(b.fd), unix.BLKZEROOUT, uintptr(unsafe.Pointer(&r)))
		switch {
		case e == 0:
			return nil
		case e == unix.EOPNOTSUPP || e == unix.ENOTTY || e == unix.EINVAL:
			b.noZeroOut = true
			return errZeroUnsupported
		default:
			return e
		}
	}
	for len(b.zeroModes) > 0 {
		err := unix.Fallocate(b.fd, b.zeroModes[0], off, n)
		if err == nil {
			return nil
		}
		if err != unix.EOPNOTSUPP && err != unix.ENOSYS && err != unix.EINVAL {
			return err
		}
		b.zeroModes = b.zeroModes[1:]
	}
	return errZeroUnsupported
}

// dropDirect replaces the O_DIRECT descriptor by a buffered one.
func (b *fileBackend) dropDirect() error {
	if !b.direct {
		return nil
	}
	fd, err := reopen(b.fd, b.flags&^unix.O_DIRECT)
	if err != nil {
		return fmt.Errorf("io: %s: reopen buffered: %w", b.path, err)
	}
	if b.block && b.flags&unix.O_EXCL != 0 {
		// Closing it would give up the exclusive claim on the device.
		b.claim = b.fd
	} else {
		unix.Close(b.fd)
	}
	b.fd, b.flags, b.direct = fd, b.flags&^unix.O_DIRECT, false
	return nil
}

func (b *fileBackend) Close() error {
	var errs []error
	if b.tailFd >= 0 {
		errs = append(errs, unix.Close(b.tailFd))
		b.tailFd = -1
	}
	if b.fd >= 0 {
		errs = append(errs, unix.Close(b.fd))
		b.fd = -1
	}
	if b.claim >= 0 {
		errs = append(errs, unix.Close(b.claim))
		b.claim = -1
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("io: %s: close: %w", b.path, err)
	}
	return nil
}
