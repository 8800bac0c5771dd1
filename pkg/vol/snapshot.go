package vol

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// A locked volume hands out copies, made under its lock, of the FileInfo
// and DirEntry values the file systems return, so that none reads a
// directory entry while a writer changes it in place (a file replaced
// keeps its entry): a FileInfo describes the file as it was when asked.
// Sys still returns the file system's own record (for Entry, Runs and
// FileClusters, which read it under the lock).

// snapInfo copies fi (both file systems' FileInfo follow
// fsutil.NewFileInfo's modes); the caller holds the volume's lock.
func snapInfo(fi fs.FileInfo) fs.FileInfo {
	if fi == nil {
		return nil
	}
	return fsutil.NewFileInfo(fi.Name(), fi.IsDir(), fi.Size(), fi.Mode().Perm()&0o200 == 0, fi.ModTime(), fi.Sys())
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
