package fsutil

import (
	"fmt"
	"io"
	"io/fs"
)

// SeekTo moves *pos as io.Seeker's Seek asks, in a file of size bytes at
// path (for errors): a negative result is refused, one past the end is
// allowed.
func SeekTo(pos *int64, offset int64, whence int, size int64, path string) (int64, error) {
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = *pos
	case io.SeekEnd:
		base = size
	default:
		return *pos, &fs.PathError{Op: "seek", Path: path, Err: fmt.Errorf("%w: whence %d", fs.ErrInvalid, whence)}
	}
	n := base + offset
	if (offset > 0 && n < base) || n < 0 {
		return *pos, &fs.PathError{Op: "seek", Path: path, Err: fmt.Errorf("%w: offset %d from %d", fs.ErrInvalid, offset, base)}
	}
	*pos = n
	return n, nil
}
