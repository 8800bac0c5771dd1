//go:build !linux

package io

import (
	"fmt"
	goio "io"
	"os"
)

// fileBackend is an image file used through the os package: buffered I/O
// (no O_DIRECT), flushes through File.Sync, and no cheap zeroing (Zero
// answers errZeroUnsupported, so zeroed ranges are written with zeros).
// The Linux backend is in backend_file_linux.go.
type fileBackend struct {
	path string
	f    *os.File
}

// ReadAt answers a short read at the end of the file as the Linux
// backend does: the bytes read and no error, io.EOF only for none.
func (b *fileBackend) ReadAt(p []byte, off int64) (int, error) {
	n, err := b.f.ReadAt(p, off)
	if err == goio.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (b *fileBackend) WriteAt(p []byte, off int64) (int, error) {
	return b.f.WriteAt(p, off)
}

func (b *fileBackend) Sync() error { return b.f.Sync() }

func (b *fileBackend) Zero(off, n int64) error { return errZeroUnsupported }

func (b *fileBackend) Close() error {
	if err := b.f.Close(); err != nil {
		return fmt.Errorf("io: %s: close: %w", b.path, err)
	}
	return nil
}
