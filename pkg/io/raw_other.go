//go:build !linux

package io

import "os"

// rawWriter is a backend that can write with a raw system call.
type rawWriter interface {
	writeRaw(p []byte, off int64) (int, error)
}

// ioBuf is a pooled buffer of the bulk data path (raw_linux.go).
func ioBuf(n, align int) []byte { return alignedBuf(n, align) }

// ReadRegular reads up to len(p) bytes from f, a regular file, for the
// source of a copy: off Linux it is f.Read (raw system calls are a Linux
// optimization, raw_linux.go). It returns io.EOF at the end of the file.
func ReadRegular(f *os.File, p []byte) (int, error) {
	return f.Read(p)
}
