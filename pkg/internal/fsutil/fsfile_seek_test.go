package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"testing"
)

// Seek moves the offset from the start, the current offset or the end,
// and refuses a negative result or an unknown whence without moving.
func TestSeek(t *testing.T) {
	for _, c := range []struct {
		from, offset int64
		whence       int
		want         int64
		err          error
	}{
		{5, 3, io.SeekStart, 3, nil},
		{5, 3, io.SeekCurrent, 8, nil},
		{5, -2, io.SeekEnd, 8, nil},
		{5, 20, io.SeekStart, 20, nil}, // past the end reads io.EOF
		{5, -6, io.SeekCurrent, 5, fs.ErrInvalid},
		{5, 0, 7, 5, fs.ErrInvalid},
	} {
		off := c.from
		got, err := Seek(&off, c.offset, c.whence, 10, "f")
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) || off != c.want || (err == nil && got != c.want) {
			t.Errorf("%+v: offset %d, returned %d, %v", c, off, got, err)
		}
	}
}
