package readahead

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

// Flushed is place for a volume's read-ahead (pkg/fat's and pkg/exfat's
// AheadSource): each file is placed after flush puts the volume's
// queued data on the device.
func Flushed(flush func() error, place func(name string) Source, name string) Source {
	if err := flush(); err != nil {
		return Source{Err: err}
	}
	return place(name)
}
