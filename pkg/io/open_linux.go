package io

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// statImage says whether path is a block device (and its device number)
// or a regular file, and refuses anything else.
func statImage(path string) (block bool, rdev uint64, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return false, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	block = st.Mode&unix.S_IFMT == unix.S_IFBLK
	if !block && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false, 0, fmt.Errorf("io: open %s: not a regular file or block device", path)
	}
	return block, st.Rdev, nil
}

// openFile opens the descriptor, choosing direct or buffered I/O, and
// learns the sizes.
func openFile(path string, o Options, block bool) (*Device, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC
	if o.Write {
		flags = unix.O_RDWR | unix.O_CLOEXEC
		if o.Sync == SyncAlways {
			flags |= unix.O_DSYNC
		}
		if block {
			// The kernel then refuses a device that is mounted or claimed,
			// whatever the mounts file says.
			flags |= unix.O_EXCL
		}
	}
	direct, fallback := !o.Buffered, ""
	if direct && !block {
		var sfs unix.Statfs_t
		if unix.Statfs(path, &sfs) == nil && sfs.Type == unix.TMPFS_MAGIC {
			direct, fallback = false, "tmpfs keeps data in the page cache, using buffered I/O"
		}
	}
	fd := -1
	var err error
	if direct {
		fd, err = unix.Open(path, flags|unix.O_DIRECT, 0)
		if err == unix.EINVAL {
			direct, fallback = false, "O_DIRECT refused (EINVAL), using buffered I/O"
		}
	}
	if !direct {
		fd, err = unix.Open(path, flags, 0)
	}
	if err == unix.EBUSY && block {
		return nil, fmt.Errorf("io: %s: device busy (mounted, or in use by another program): %w", path, ErrMounted)
	}
	if err == unix.EROFS && o.Write {
		return nil, &ReadOnlyError{Path: path, Why: "it lies on a read-only file system", Err: &os.PathError{Op: "open", Path: path, Err: err}}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if block && o.Write {
		// A write-protected card or losetup -r: the open succeeds and
		// every write fails with EPERM, far from the reason.
		if ro, err := unix.IoctlGetInt(fd, unix.BLKROGET); err == nil && ro != 0 {
			unix.Close(fd)
			return nil, &ReadOnlyError{Path: path, Why: "the device is read-only (write-protected)"}
		}
	}
	if direct {
		flags |= unix.O_DIRECT
	}
	fail := func(err error) (*Device, error) {
		unix.Close(fd)
		return nil, err
	}
	var rawSize int64
	sectorSize, align, mem := 512, 4096, 4096
	if block {
		sz, err := unix.IoctlGetUint64(fd, unix.BLKGETSIZE64)
		if err != nil {
			return fail(fmt.Errorf("io: %s: BLKGETSIZE64: %w", path, err))
		}
		ss, err := unix.IoctlGetInt(fd, unix.BLKSSZGET)
		if err != nil {
			return fail(fmt.Errorf("io: %s: BLKSSZGET: %w", path, err))
		}
		if ss < 512 || ss > 65536 || ss&(ss-1) != 0 || sz > 1<<62 {
			return fail(fmt.Errorf("io: %s: implausible sector size %d or size %d", path, ss, sz))
		}
		rawSize, sectorSize, align, mem = int64(sz), ss, ss, ss
	} else {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fail(fmt.Errorf("io: %s: fstat: %w", path, err))
		}
		rawSize = st.Size
		var stx unix.Statx_t
		if direct && unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &stx) == nil &&
			stx.Mask&unix.STATX_DIOALIGN != 0 {
			oa, ma := int(stx.Dio_offset_align), int(stx.Dio_mem_align)
			if oa == 0 || oa&(oa-1) != 0 || ma&(ma-1) != 0 || oa > 1<<20 || ma > 1<<20 {
				// statx says this file cannot do direct I/O.
				fd2, err := reopen(fd, flags&^unix.O_DIRECT)
				if err != nil {
					return fail(fmt.Errorf("io: %s: reopen buffered: %w", path, err))
				}
				unix.Close(fd)
				fd, flags, direct = fd2, flags&^unix.O_DIRECT, false
				fallback = "no direct I/O support (statx), using buffered I/O"
			} else {
				align, mem = oa, max(ma, 1)
			}
		}
	}
	ioSize := o.IOSize
	if ioSize == 0 {
		ioSize = DefaultIOSize
	}
	if direct && ioSize%align != 0 {
		return fail(fmt.Errorf("io: %s: I/O size %d is not a multiple of the direct I/O alignment %d", path, ioSize, align))
	}
	be := newFileBackend(path, fd, flags, block, int64(align), mem)
	d := newDevice(be, path, rawSize, sectorSize, align, ioSize, direct, o.Write, o.Sync)
	d.blockDev, d.fallback = block, fallback
	if direct {
		d.bufAlign = max(align, mem, 4096)
	}
	return d, nil
}
