package fsutil

import (
	"fmt"
	"io"
	"io/fs"
	"sort"
	"time"
)

// FileInfo describes a file or directory of either codec for io/fs (its
// Stat, and the Info of what ReadDir lists). Sys returns the codec's
// record (a nil one for the root).
type FileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	sys  any
}

// NewFileInfo describes a member of a directory: a directory has no size
// and mode 0755; a file is 0644, or 0444 when it is read-only.
func NewFileInfo(name string, dir bool, size int64, readOnly bool, mod time.Time, sys any) *FileInfo {
	i := &FileInfo{name: name, size: size, mode: 0o644, mod: mod, sys: sys}
	switch {
	case dir:
		i.size, i.mode = 0, fs.ModeDir|0o755
	case readOnly:
		i.mode = 0o444
	}
	return i
}

// RootInfo describes the root directory, named name (it has no entry, so
// no time); sys is the codec's nil record.
func RootInfo(name string, sys any) *FileInfo {
	return NewFileInfo(name, true, 0, false, time.Time{}, sys)
}

func (i *FileInfo) Name() string       { return i.name }
func (i *FileInfo) Size() int64        { return i.size }
func (i *FileInfo) Mode() fs.FileMode  { return i.mode }
func (i *FileInfo) ModTime() time.Time { return i.mod }
func (i *FileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *FileInfo) Sys() any           { return i.sys }

// Seek is an open file's Seek on both codecs, for reading and for
// writing in place: it sets the offset *off of the next Read or Write
// from offset and whence (io.SeekStart, io.SeekCurrent or io.SeekEnd, the
// end being size bytes in). A negative or overflowing result, or an
// unknown whence, is fs.ErrInvalid, naming the file, and leaves *off (which
// it returns) as it was; an offset past the end is allowed.
func Seek(off *int64, offset int64, whence int, size int64, name string) (int64, error) {
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = *off
	case io.SeekEnd:
		base = size
	default:
		return *off, &fs.PathError{Op: "seek", Path: name, Err: fmt.Errorf("%w: whence %d", fs.ErrInvalid, whence)}
	}
	n := base + offset
	if (offset > 0 && n < base) || n < 0 {
		return *off, &fs.PathError{Op: "seek", Path: name, Err: fmt.Errorf("%w: offset %d from %d", fs.ErrInvalid, offset, base)}
	}
	*off = n
	return n, nil
}

// ReadOn is an open file's Read on both codecs: it reads at the file's
// offset *off with readAt, no further than the file's size bytes (io.EOF
// at the end), and moves the offset past what it read.
func ReadOn(p []byte, off *int64, size int64, readAt func(p []byte, off int64) (int, error)) (int, error) {
	if *off >= size {
		return 0, io.EOF
	}
	if rem := size - *off; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := readAt(p, *off)
	*off += int64(n)
	return n, err
}

// Page is the next page of an open directory's ReadDir(n): the members of
// all (the entries for which member is true) from *at on, at most n of
// them when n > 0, and *at moves past them. *at counts entries of all, so
// a page costs what it holds, not a copy of the whole directory: paging
// through 60,000 names no longer builds a list of 60,000 for each page.
// more is false when none is left; the codec's ReadDir then returns
// DirEnd(n).
func Page[T any](all []T, at *int, n int, member func(T) bool) (page []T, more bool) {
	i := *at
	for ; i < len(all) && (n <= 0 || len(page) < n); i++ {
		if member(all[i]) {
			page = append(page, all[i])
		}
	}
	*at = i
	return page, len(page) > 0
}

// DirEnd is ReadDir(n)'s error once a directory is listed to its end:
// io.EOF when it was asked for a page (n > 0), none when for the rest.
func DirEnd(n int) error {
	if n > 0 {
		return io.EOF
	}
	return nil
}

// DirFile is an open file or directory that can list itself.
type DirFile interface {
	Stat() (fs.FileInfo, error)
	ReadDir(n int) ([]fs.DirEntry, error)
}

// SortedDir is a volume's ReadDir on both codecs: the members of f, the
// opened name, in name order; a file that is no directory is notDir,
// naming name.
func SortedDir(name string, f DirFile, notDir error) ([]fs.DirEntry, error) {
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: notDir}
	}
	ents, err := f.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}
