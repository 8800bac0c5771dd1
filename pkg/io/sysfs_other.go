//go:build !linux

package io

import (
	"fmt"
	"os"
)

// BlockDiskPlace gives the zero DiskPlace off Linux, where only image
// files are opened (sysfs_linux.go reads a block device's place).
func BlockDiskPlace(path string) (DiskPlace, error) {
	if _, err := os.Stat(path); err != nil {
		return DiskPlace{}, err
	}
	return DiskPlace{}, nil
}

// RereadPartitions is Linux-only (BLKRRPART): elsewhere it says the
// table is written but not taken by the system.
func RereadPartitions(path string) error {
	return fmt.Errorf("io: %s: the new table is written, but %w: asking the system to re-read it is supported on Linux only", path, ErrNotReread)
}
