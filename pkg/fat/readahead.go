package fat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/readahead"
)

// AheadSource places one file's data on the device for a read-ahead
// (pkg/vol's ReadAhead and ReadAheadFunc, over package readahead), queued
// data flushed first, run by run. A name that does not open (missing, a
// directory, a damaged chain) gives its error. The consumer must not
// change the file until it has read it.
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
