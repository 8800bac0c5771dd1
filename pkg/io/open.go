package io

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Options say how Open opens a file or device.
type Options struct {
	Write      bool       // open read-write (else read-only)
	Offset     int64      // byte offset of the volume inside the file, device or partition (@@OFFSET)
	Partition  int        // 1-based partition number (MBR or GPT); 0 = none
	Buffered   bool       // force buffered I/O (no O_DIRECT)
	Sync       SyncPolicy // when to flush
	IOSize     int        // largest request; 0 means DefaultIOSize; a multiple of the alignment
	Force      bool       // allow writing a whole disk or image file that holds a partition table, or at an offset where no partition starts
	MountsFile string     // default "/proc/self/mounts"; tests inject a fake one
	Wait       bool       // wait for another process's lock on the image instead of failing
	NoLock     bool       // take no flock (for callers that hold one already)

	// Cancel, with Wait: closing it ends the wait for another process's
	// lock with ErrCanceled (nil: wait for good).
	Cancel <-chan struct{}
}

// ErrReadOnlyMedium is what a ReadOnlyError wraps: the device or image
// cannot be written at all.
var ErrReadOnlyMedium = errors.New("io: read-only")

// ReadOnlyError refuses to open for writing a device or image that cannot
// be written: a read-only block device (a write-protected card, a loop
// device made with losetup -r) or an image on a read-only file system.
type ReadOnlyError struct {
	Path string
	Why  string
	Err  error // the system's error, if any
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("io: %s: cannot write: %s", e.Path, e.Why)
}

// Unwrap gives ErrReadOnlyMedium and the system's error.
func (e *ReadOnlyError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrReadOnlyMedium}
	}
	return []error{ErrReadOnlyMedium, e.Err}
}

// maxIOSize bounds Options.IOSize (each pooled buffer has this size).
const maxIOSize = 1 << 30

// Open opens an image file or block device and returns the volume window
// chosen by o.Partition and o.Offset (an offset is relative to the partition
// when both are given). A window given by offset alone is bounded by the
// disk's partition table: one that starts a partition ends where that
// partition ends; writing one that starts inside a partition, or in no
// partition, is refused unless o.Force (see ErrOutsidePartition).
//
// O_DIRECT is used unless o.Buffered; its alignment comes from statx
// (STATX_DIOALIGN) for files and BLKSSZGET for block devices. Writing a
// block device is refused while it or one of its partitions is mounted,
// writing an image file while a mount covers the window (through a loop
// device, or a FUSE driver reading the file) is refused too (see
// ImageUses; an unmounted loop device only gets one of Warnings), and so
// is writing a loop device whose file is mounted another way, and
// writing a whole disk (a block device or an image file) that holds a
// partition table with partitions is refused unless o.Force.
func Open(path string, o Options) (*Device, error) {
	if o.Offset < 0 || o.Partition < 0 || o.IOSize < 0 || o.IOSize > maxIOSize || o.Sync < SyncNone || o.Sync > SyncAlways {
		return nil, fmt.Errorf("io: open %s: bad options (offset %d, partition %d, io size %d, sync %d)",
			path, o.Offset, o.Partition, o.IOSize, int(o.Sync))
	}
	if o.MountsFile == "" {
		o.MountsFile = "/proc/self/mounts"
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	block := st.Mode&unix.S_IFMT == unix.S_IFBLK
	if !block && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("io: open %s: not a regular file or block device", path)
	}
	// Writers lock the image exclusively and readers shared, before
	// anything is read or written.
	var lock *imageLock
	if !o.NoLock {
		var err error
		if lock, err = lockFile(path, o.Write, o.Wait, o.Cancel); err != nil {
			return nil, err
		}
	}
	d, err := openFile(path, o, block)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	d.lock = lock
	err = d.setup(o, st.Rdev)
	if err == nil && o.Write && !block {
		d.warnings, err = checkImageUse(path, d.start, d.size, o.MountsFile)
	}
	if err == nil && o.Write && block {
		err = checkLoopBacking(path, st.Rdev, d.start, d.size, o.MountsFile)
	}
	if err == nil {
		err = d.recordFromEnv() // FTOOLS_WRITE_LOG, for the crash tests
	}
	if err != nil {
		d.be.Close()
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	return d, nil
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

// setup applies the safety checks for block devices, the partition and the
// offset.
func (d *Device) setup(o Options, rdev uint64) error {
	if d.blockDev && o.Write {
		if err := checkMounted(d.path, rdev, o.MountsFile); err != nil {
			return err
		}
	}
	if o.Partition > 0 {
		t, err := d.readTable()
		if err != nil {
			return err
		}
		p, err := t.find(d.path, o.Partition)
		if err != nil {
			return err
		}
		d.start, d.size = p.Start, p.Size
	} else if o.Offset > 0 {
		end, err := d.offsetEnd(o)
		if err != nil {
			return err
		}
		d.size = end
	} else if o.Write && !o.Force {
		// An image file that holds a table is a disk too: writing it
		// whole would lose the table and every partition's data.
		t, err := d.readTable()
		if err != nil && !errors.Is(err, ErrNoPartition) {
			return err
		}
		if err == nil && len(t.Partitions) > 0 {
			what := "disk"
			if !d.blockDev {
				what = "image"
			}
			pe := &PlaceError{Err: ErrPartitioned, Msg: fmt.Sprintf("io: %s: refusing to write the whole %s, which holds %s (%s)",
				d.path, what, t.Named(), listPartitions(t))}
			if len(t.Partitions) == 1 {
				pe.Partition = t.Partitions[0].Index // the one to suggest
			}
			return pe
		}
	}
	if o.Offset > d.size {
		return fmt.Errorf("io: %s: offset %d is past the end of the volume (%d bytes): %w", d.path, o.Offset, d.size, ErrOutOfRange)
	}
	d.start += o.Offset
	d.size -= o.Offset
	return nil
}

// CreateImage creates path as a sparse file of size bytes, or extends an
// existing regular file to size. It never shrinks a file, and refuses
// anything that is not a regular file.
func CreateImage(path string, size int64) error {
	if size < 0 {
		return fmt.Errorf("io: create image %s: negative size %d", path, size)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("io: create image %s: exists and is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("io: create image: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("io: create image %s: not a regular file", path)
	} else if err == nil && fi.Size() < size {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("io: create image %s: %w", path, err)
	}
	return nil
}
