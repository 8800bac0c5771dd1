//go:build !linux

package io

import "os"

// discardFile reports that image files cannot discard here: hole punching
// is done through Linux's fallocate alone.
func discardFile(f *os.File, off, n int64, secure bool) error {
	return errDiscardUnsupported
}
