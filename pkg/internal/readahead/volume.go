package readahead

import fio "github.com/ftools/ftools/pkg/io"

// ForVolume is NewFunc for n files of a volume, named by name and placed
// by place, as pkg/fat's and pkg/exfat's ReadAheadFunc read them. flushErr
// is the error of putting the volume's queued data on the device first
// (data written earlier in the session must be there before it is read
// back): every file that places without an error of its own gives it.
func ForVolume(dev *fio.Device, n int, name func(int) string, flushErr error, place func(name string) Source, o Options) *ReadAhead {
	return NewFunc(dev, n, func(i int) Source {
		src := place(name(i))
		if src.Err == nil && flushErr != nil {
			src.Err = flushErr
		}
		return src
	}, o)
}

// Runs places the first size bytes of a file, whose clusters are runs, on
// the device: run gives a run's byte offset and length. Runs past size are
// not read.
func Runs[R any](runs []R, size int64, run func(R) (off, n int64)) []Piece {
	var out []Piece
	for _, r := range runs {
		if size <= 0 {
			break
		}
		off, n := run(r)
		n = min(n, size)
		out = append(out, Piece{Off: off, Len: n})
		size -= n
	}
	return out
}

// Flushed is place for a caller that builds its own ReadAhead over a
// volume (pkg/vol): each file is placed after flush puts the volume's
// queued data on the device.
func Flushed(flush func() error, place func(name string) Source, name string) Source {
	if err := flush(); err != nil {
		return Source{Err: err}
	}
	return place(name)
}
