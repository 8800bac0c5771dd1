package io

import (
	goio "io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Raw system calls for the bulk data path. A read or write that blocks for
// more than a few microseconds makes the Go runtime hand the thread's
// processor to another thread and take one back afterwards; for a copy
// made of 4 MiB reads from the page cache and 4 MiB direct writes, one of
// each in flight, that handing about costs a quarter of the copy's CPU
// time (a 1 GiB copy: 0.62 s of CPU with the runtime's calls, 0.53 s with
// raw ones, dd 0.51 s). Raw calls keep the processor: they are used only
// where the call ends promptly (direct writes to the image or device,
// reads of regular files), never where it may wait for long (a pipe, a
// terminal), since the runtime cannot stop a raw call for a collection.

// rawWriter is a backend that can write with a raw system call.
type rawWriter interface {
	writeRaw(p []byte, off int64) (int, error)
}

func (b *fileBackend) writeRaw(p []byte, off int64) (int, error) {
	fd, err := b.fdFor(p, off)
	if err != nil {
		return 0, err
	}
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), uintptr(off), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

// hugePage is the size of a transparent huge page on the systems Go
// supports Linux on (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// ioBuf is a pooled buffer of the bulk data path: n bytes aligned to
// align. A buffer of a huge page or more starts on one and asks for huge
// pages (madvise), which the kernel grants where transparent huge pages
// are on "madvise" or "always": a copy then pins and copies into 2 pages
// per 4 MiB request instead of 1,024, and takes 2 page faults to fill a
// new buffer instead of 1,024.
func ioBuf(n, align int) []byte {
	if n < hugePage {
		return alignedBuf(n, align)
	}
	b := alignedBuf(n, max(align, hugePage))
	unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b
}

// ReadRegular reads up to len(p) bytes from f, a regular file, with a raw
// system call (see above): for reading the source of a copy. It returns
// io.EOF at the end of the file, and reads from f's offset as f.Read
// does. A file the runtime polls (a pipe it opened) waits in the poller
// as with f.Read; a file in blocking mode that may wait for long (a
// terminal, an inherited pipe) must be read with f.Read instead.
func ReadRegular(f *os.File, p []byte) (int, error) { return readRegular(f, p, 0) }

// readRegular is ReadRegular with preadv2's flags (RWF_*): 0 reads with
// read(2).
func readRegular(f *os.File, p []byte, flags int) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f.Read(p)
	}
	var n uintptr
	var e unix.Errno
	iov := unix.Iovec{Base: unsafe.SliceData(p)}
	iov.SetLen(len(p))
	// preadv2's offset -1 (the file's offset), split as the kernel's
	// pos_from_hilo joins it on 32- and 64-bit systems.
	const longBits = 8 * unsafe.Sizeof(uintptr(0))
	off := int64(-1)
	lo, hi := uintptr(off), uintptr(uint64(off)>>(longBits-1)>>1)
	if err := rc.Read(func(fd uintptr) bool {
		for {
			if flags == 0 {
				n, _, e = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			} else {
				n, _, e = unix.RawSyscall6(unix.SYS_PREADV2, fd, uintptr(unsafe.Pointer(&iov)), 1, lo, hi, uintptr(flags))
			}
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // not ready: the poller waits
			}
			return true
		}
	}); err != nil {
		return 0, err
	}
	switch {
	case e != 0:
		return 0, &os.PathError{Op: "read", Path: f.Name(), Err: e}
	case n == 0:
		return 0, goio.EOF
	}
	return int(n), nil
}
