package io

import (
	"errors"
	"fmt"
	"os"
)

// Options say how Open opens a file or device.
type Options struct {
	Write      bool       // open read-write (else read-only)
	Offset     int64      // byte offset of the volume inside the file, device or partition (@@OFFSET)
	Partition  int        // 1-based partition number (MBR or GPT); 0 = none
	Buffered   bool       // force buffered I/O (no O_DIRECT)
	Sync       SyncPolicy // when to flush; the zero value is SyncClose, the default
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
	if o.Offset < 0 || o.Partition < 0 || o.IOSize < 0 || o.IOSize > maxIOSize || o.Sync < 0 || int(o.Sync) >= len(syncNames) {
		return nil, fmt.Errorf("io: open %s: bad options (offset %d, partition %d, io size %d, sync %d)",
			path, o.Offset, o.Partition, o.IOSize, int(o.Sync))
	}
	if o.MountsFile == "" {
		o.MountsFile = "/proc/self/mounts"
	}
	block, rdev, err := statImage(path)
	if err != nil {
		return nil, err
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
	err = d.setup(o, rdev)
	if err == nil {
		d.window, err = lock.claim(path, d.start, d.start+d.size, o.Write)
	}
	if err == nil && o.Write && !block {
		d.warnings, err = checkImageUse(path, d.start, d.size, o.MountsFile)
	}
	if err == nil && o.Write && block {
		err = checkLoopBacking(path, rdev, d.start, d.size, o.MountsFile)
	}
	if err == nil {
		err = d.recordFromEnv() // FTOOLS_WRITE_LOG, for the crash tests
	}
	if err != nil {
		d.be.Close()
		if lock != nil {
			lock.unclaim(d.window)
			lock.Close()
		}
		return nil, err
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
