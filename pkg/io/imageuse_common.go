package io

import "fmt"

// ImageUse is one way the kernel uses an image file: a loop device backed
// by it (which may be mounted, or hold mounted partitions), or a FUSE
// file system that reads the file itself (exfat-fuse, fusefat). Writing
// the bytes of a mounted one behind the kernel's or the FUSE driver's
// back leaves it a corrupt volume: they keep their own caches and write
// them back.
type ImageUse struct {
	Loop   string // the loop device ("/dev/loop3"); "" for a FUSE mount of the file itself
	Start  int64  // first byte of the file the use covers
	End    int64  // byte after its last one; -1: to the end of the file
	Source string // what is mounted: the loop device, one of its partitions, a device mapped on it, or the file
	Mount  string // the mount point; "" for a loop device that is attached but not mounted
}

// Overlaps reports whether the use covers a byte of [start, start+size).
func (u ImageUse) Overlaps(start, size int64) bool {
	return start+size > u.Start && (u.End < 0 || start < u.End)
}

// String says what the use is: "/dev/loop3p1 is mounted on /mnt" or
// "/dev/loop3 is attached to it".
func (u ImageUse) String() string {
	if u.Mount == "" {
		return u.Loop + " is attached to it (losetup), not mounted"
	}
	via := ""
	if u.Loop != "" && u.Source != u.Loop {
		via = " (through " + u.Loop + ")"
	}
	return fmt.Sprintf("%s%s is mounted on %s", u.Source, via, u.Mount)
}

// checkImageUse refuses to write [start, start+size) of the image file
// path while a mount covers a byte of it, naming the mount point, and
// returns a warning for each loop device attached over it unmounted.
func checkImageUse(path string, start, size int64, mountsFile string) ([]string, error) {
	uses, err := ImageUses(path, mountsFile)
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, u := range uses {
		if !u.Overlaps(start, size) {
			continue
		}
		if u.Mount != "" {
			return nil, fmt.Errorf("io: %s: the image is in use: %s; unmount it first: %w", path, u, ErrMounted)
		}
		warnings = append(warnings, fmt.Sprintf("%s: %s is attached to this image (losetup) but not mounted; a program that writes through it would overwrite what is written here (detach it with losetup -d %s)", path, u.Loop, u.Loop))
	}
	return warnings, nil
}
