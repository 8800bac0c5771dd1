package io

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// BlockDiskPlace reads from sysfs where the block device path lies on its
// whole disk: a partition device (/dev/sdb1, /dev/loop0p1) starts at its
// sysfs "start" (always counted in 512-byte units) on a disk of the
// parent's "size". For an image file it returns the zero DiskPlace.
func BlockDiskPlace(path string) (DiskPlace, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return DiskPlace{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return DiskPlace{}, nil
	}
	dir, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)))
	if err != nil {
		return DiskPlace{}, fmt.Errorf("io: %s: finding the device in sysfs: %w", path, err)
	}
	read := func(p string) (int64, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, fmt.Errorf("io: %s: %w", path, err)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || v < 0 || v > 1<<53 {
			return 0, fmt.Errorf("io: %s: %s holds %q, not a sector count", path, p, strings.TrimSpace(string(b)))
		}
		return v, nil
	}
	pl := DiskPlace{Disk: filepath.Base(dir)}
	disk := dir
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		start, err := read(filepath.Join(dir, "start"))
		if err != nil {
			return DiskPlace{}, err
		}
		n, err := read(filepath.Join(dir, "partition"))
		if err != nil {
			return DiskPlace{}, err
		}
		disk = filepath.Dir(dir)
		pl.Partition, pl.Number, pl.Disk, pl.Start = true, int(n), filepath.Base(disk), start*512
	}
	size, err := read(filepath.Join(disk, "size"))
	if err != nil {
		return DiskPlace{}, err
	}
	pl.DiskSize = size * 512
	return pl, nil
}

// RereadPartitions asks the kernel to read the partition table of the
// whole-disk block device path again (BLKRRPART), so that its partition
// devices match the table just written (which has partitions). As sfdisk
// does, it says when that did not happen: a disk with a partition in use
// gives an error wrapping ErrPartitionBusy; a device that refuses to
// re-read (a loop device attached without partition scanning), or one
// whose table the kernel read without making a partition device (a
// kernel built without that table's parser), one wrapping ErrNotReread.
func RereadPartitions(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	err = unix.IoctlSetInt(fd, unix.BLKRRPART, 0)
	switch {
	case err == unix.EINVAL, err == unix.ENOTTY:
		return fmt.Errorf("io: %s: the new table is written, but %w: it cannot re-read this device's (BLKRRPART: %v; a loop device attached without -P cannot); partx -u %s makes the new partition devices", path, ErrNotReread, err, path)
	case err == unix.EBUSY:
		return fmt.Errorf("io: %s: the new table is written, but the kernel cannot re-read it while a partition is in use; close or unmount it, then replug the card or run partprobe: %w", path, ErrPartitionBusy)
	case err != nil:
		return fmt.Errorf("io: %s: asking the kernel to re-read the partition table (BLKRRPART): %w", path, err)
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && len(partitionDevs(st.Rdev)) == 0 {
		return fmt.Errorf("io: %s: the new table is written, but %w: it re-read the table without making a partition device (a kernel built without that table's parser does so); partx -u %s makes them", path, ErrNotReread, path)
	}
	return nil
}
