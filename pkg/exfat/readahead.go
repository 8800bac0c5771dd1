package exfat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/readahead"
)

// AheadSource places one file's data on the device for a read-ahead
// (pkg/vol's ReadAhead and ReadAheadFunc, over package readahead), queued
// data flushed first: its valid data run by run, then zeros up to its
// size. A name that does not open (missing, a directory, a damaged chain)
// gives its error. The consumer must not change the file until it has
// read it.
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
