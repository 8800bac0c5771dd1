package io

import "errors"

// ErrPartitionBusy is returned when the kernel cannot re-read a disk's
// partition table because one of its partitions is in use.
var ErrPartitionBusy = errors.New("io: a partition of the disk is in use")

// DiskPlace says where a block device lies on its whole disk.
type DiskPlace struct {
	Partition bool   // the device is a partition of Disk
	Number    int    // the partition's number on Disk (sysfs "partition"), 0 for a whole disk
	Disk      string // the whole disk's sysfs name ("sdb", "loop0"); the device's own when not a partition
	Start     int64  // byte offset of the device on the whole disk (0 for a whole disk)
	DiskSize  int64  // bytes of the whole disk
}

// ErrNotReread is what RereadPartitions's error wraps when the kernel
// did not take the new table: its partition devices are the old ones (or
// none) until something else makes them.
var ErrNotReread = errors.New("the kernel still uses the old table")
