//go:build unix && !linux

package io

import (
	"os"
	"syscall"
)

// Identify returns the FileID of the file or block device path names
// (following symbolic links).
func Identify(path string) (FileID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
		return FileID{Ino: uint64(st.Rdev)}, nil
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
}
