package io

import (
	"os"
	"syscall"
)

// Identify returns the FileID of the file path names (following symbolic
// links): the volume serial number and the file index, Windows's st_dev
// and st_ino.
func Identify(path string) (FileID, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileID{}, err
	}
	defer f.Close()
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &info); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return FileID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, nil
}
