package vol

import (
	"io/fs"
	"time"
)

// The FileInfo and DirEntry values the file systems return read their
// directory entry as it is now, and a writer changes it in place (a file
// replaced keeps its entry). A locked volume hands out copies made under
// its lock instead: a FileInfo describes the file as it was when asked.
// Sys still returns the file system's own record (for Entry, Runs and
// FileClusters, which read it under the lock).

// info is a FileInfo as it was when copied.
type info struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	sys  any
}

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.size }
func (i *info) Mode() fs.FileMode  { return i.mode }
func (i *info) ModTime() time.Time { return i.mod }
func (i *info) IsDir() bool        { return i.mode.IsDir() }
func (i *info) Sys() any           { return i.sys }

// snapInfo copies fi; the caller holds the volume's lock.
func snapInfo(fi fs.FileInfo) fs.FileInfo {
	if fi == nil {
		return nil
	}
	return &info{name: fi.Name(), size: fi.Size(), mode: fi.Mode(), mod: fi.ModTime(), sys: fi.Sys()}
}

// dirEntry is a DirEntry as it was when copied; err is its Info's error
// (an entry whose size cannot be told).
type dirEntry struct {
	name string
	typ  fs.FileMode
	fi   fs.FileInfo
	err  error
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) { return e.fi, e.err }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }

// snapDir copies a listing; the caller holds the volume's lock.
func snapDir(ents []fs.DirEntry) []fs.DirEntry {
	if ents == nil {
		return nil
	}
	out := make([]fs.DirEntry, len(ents))
	for i, d := range ents {
		fi, err := d.Info()
		out[i] = &dirEntry{name: d.Name(), typ: d.Type(), fi: snapInfo(fi), err: err}
	}
	return out
}
