package exfat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/readahead"
)

// ReadAheadOptions size a ReadAhead; they are pkg/fat's.
type ReadAheadOptions = readahead.Options

// ReadAhead reads the data of a list of files, in the order given, with
// several large aligned requests in flight ahead of its consumer, as
// pkg/fat's does. Bytes past a file's valid data length come as zeros,
// without a read. Files are taken with File(i) for increasing i; Close
// must be called.
type ReadAhead = readahead.ReadAhead

// AheadFile reads one file's data from a ReadAhead.
type AheadFile = readahead.File

// ReadAheadFunc starts reading n files (volume paths) whose names name
// gives, asked for (on the caller's goroutine) as the read-ahead reaches
// them, so that a long list need not be held as strings. A name that does
// not open (missing, a directory, a damaged chain) gives its error from
// File. The consumer must not change those files until it has read them.
// (pkg/vol's Volume adds ReadAhead, for a list of names.)
func (v *Volume) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	return readahead.ForVolume(v.dev, n, name, v.flushData(), v.aheadSource, o)
}

// AheadSource places one file as ReadAheadFunc does, queued data
// flushed first, for pkg/vol's ReadAhead (which places under its lock).
func (v *Volume) AheadSource(name string) readahead.Source {
	return readahead.Flushed(v.flushData, v.aheadSource, name)
}

// aheadSource places a file's bytes on the volume: its valid data run by
// run, then zeros up to its size.
func (v *Volume) aheadSource(name string) readahead.Source {
	f, err := v.Open(name)
	if err != nil {
		return readahead.Source{Err: err}
	}
	file := f.(*File)
	if file.isDir() {
		return readahead.Source{Err: &fs.PathError{Op: "read", Path: name, Err: ErrIsDir}}
	}
	size := file.rec.Size()
	valid := min(int64(file.rec.Set.Stream.ValidDataLength), size)
	l := v.layout
	return readahead.Source{Name: name, Zeros: size - valid, Pieces: readahead.Runs(file.exts, valid, func(e Extent) (int64, int64) {
		return l.ClusterOffset(e.Start), int64(e.Len) * l.ClusterSize
	})}
}

// RecordExtents returns the clusters of a file or directory a FileInfo of
// this volume describes (its Sys), as runs: one for a NoFatChain file, the
// FAT chain's runs otherwise; nil for an empty file or the root.
func (v *Volume) RecordExtents(r *Record) ([]Extent, error) {
	if r == nil {
		return nil, nil
	}
	return v.recordExtents(r)
}
