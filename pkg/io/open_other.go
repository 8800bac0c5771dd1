//go:build !linux

package io

// statImage accepts a regular file only (backend_os.go): block devices
// are opened on Linux alone (open_linux.go).
func statImage(path string) (block bool, rdev uint64, err error) {
	return false, 0, statOSImage(path)
}

// openFile opens an image file with buffered I/O (backend_os.go): no
// O_DIRECT off Linux.
func openFile(path string, o Options, block bool) (*Device, error) {
	return openOSFile(path, o)
}
