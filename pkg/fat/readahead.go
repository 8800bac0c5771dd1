package fat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/readahead"
)

// ReadAheadOptions size a ReadAhead (see package readahead: Workers
// reads in flight, default 3; Buffers of the device's I/O size, default
// 2*Workers+2; MaxGap, the most bytes one request reads through between
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

// ReadAheadFunc starts reading n files (volume paths) whose names name
// gives, asked for (on the caller's goroutine, from File) as the
// read-ahead reaches them, so that a list of a million files need not be
// held as strings. A name that does not open (missing, a directory, a
// damaged chain) gives its error from File. (pkg/vol's Volume adds
// ReadAhead, for a list of names.)
func (v *Volume) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	// Queued data (written earlier in this session) must be on the device
	// before it is read back.
	return readahead.ForVolume(v.dev, n, name, v.flushData(), v.aheadSource, o)
}

// AheadSource places one file as ReadAheadFunc does, queued data
// flushed first, for pkg/vol's ReadAhead (which places under its lock).
func (v *Volume) AheadSource(name string) readahead.Source {
	return readahead.Flushed(v.flushData, v.aheadSource, name)
}

// aheadSource places a file's bytes on the volume, run by run.
func (v *Volume) aheadSource(name string) readahead.Source {
	v.settle()
	exts, size, err := v.dataExtents(name)
	if err != nil {
		return readahead.Source{Err: err}
	}
	l := v.layout
	return readahead.Source{Name: name, Pieces: readahead.Runs(exts, size, func(e Extent) (int64, int64) {
		return l.ClusterOffset(e.Start), int64(e.Len) * l.ClusterSize
	})}
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
