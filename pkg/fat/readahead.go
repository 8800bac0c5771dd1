package fat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/readahead"
)

// ReadAheadOptions size a ReadAhead (see package readahead: Workers
// reads in flight, default 3; Buffers of the device's I/O size, default
// Workers+2; MaxGap, the most bytes one request reads through between
// two pieces, default 64 KiB).
type ReadAheadOptions = readahead.Options

// ReadAhead reads the data of a list of files, in the order given, with
// several large aligned requests in flight ahead of its consumer, so that
// reading the volume overlaps whatever the consumer does with the data
// (writing it to the host, or to another volume). Contiguous data is read
// in requests of the device's I/O size; consecutive small files that lie
// next to each other (as ftools and mtools write them) share requests.
//
// Where each file's data lies is worked out a little ahead of the
// consumer (when it takes a file, for the files a few requests further
// on), from the FAT as it is then; so memory stays bounded however many
// files the list holds. The consumer must not change the listed files on
// the volume until it has read them. Files are taken with File(i) for
// increasing i; files skipped over are dropped unread. Close stops the
// reads; it must be called.
type ReadAhead = readahead.ReadAhead

// AheadFile reads one file's data from a ReadAhead.
type AheadFile = readahead.File

// ErrReadAheadClosed is returned by reads after Close.
var ErrReadAheadClosed = readahead.ErrClosed

// ReadAhead starts reading the named files (volume paths). A name that
// does not open (missing, a directory, a damaged chain) gives its error
// from File.
func (v *Volume) ReadAhead(names []string, o ReadAheadOptions) *ReadAhead {
	return v.ReadAheadFunc(len(names), func(i int) string { return names[i] }, o)
}

// ReadAheadFunc is ReadAhead for n files whose names name gives, asked
// for (on the caller's goroutine, from File) as the read-ahead reaches
// them, so that a list of a million files need not be held as strings.
func (v *Volume) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	// Queued data (written earlier in this session) must be on the device
	// before it is read back.
	flushErr := v.flushData()
	return readahead.NewFunc(v.dev, n, func(i int) readahead.Source {
		v.settle()
		n := name(i)
		exts, size, err := v.dataExtents(n)
		if err == nil {
			err = flushErr
		}
		if err != nil {
			return readahead.Source{Err: err}
		}
		return readahead.Source{Pieces: v.pieces(exts, size), Name: n}
	}, o)
}

// dataExtents resolves a file's data: its clusters as runs, and its size.
func (v *Volume) dataExtents(name string) ([]Extent, int64, error) {
	file, err := v.openPath(name)
	if err != nil {
		return nil, 0, err
	}
	if file.isDir() {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: ErrIsDir}
	}
	return file.exts, int64(file.rec.Entry.Size), nil
}

// pieces places a file's size bytes on the volume, run by run.
func (v *Volume) pieces(exts []Extent, size int64) []readahead.Piece {
	cs := v.layout.ClusterSize
	var out []readahead.Piece
	for _, e := range exts {
		if size == 0 {
			break
		}
		n := min(int64(e.Len)*cs, size)
		out = append(out, readahead.Piece{Off: v.layout.ClusterOffset(e.Start), Len: n})
		size -= n
	}
	return out
}
