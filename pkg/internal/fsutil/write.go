package fsutil

import (
	"errors"
	"io/fs"
	"path"
	"time"
)

// Changes is how a codec starts a change to its tree, for the shared
// steps below: Begin refuses a read-only or closed volume and arms the
// dirty flag, Settle makes room in the directory cache, Lookup resolves a
// path to its directory and record (the root: the zero record), Parent a
// path that need not exist to its directory and last element. The rest
// serve the steps that make a new entry (MkdirStart): Member finds a name
// in a directory (the zero record: none), Check refuses a name the file
// system cannot hold, Room one the directory has no room for with size
// bytes of data, and Now is the volume's clock (see Stamp).
type Changes[D, R comparable] struct {
	Begin, Settle func() error
	Lookup        func(op, name string) (D, R, error)
	Parent        func(op, name string) (D, string, error)
	Member        func(d D, base string) R
	Check         func(base string) error
	Room          func(d D, base string, size int64) error
	Now           func() time.Time
}

// Entry starts a change to the existing entry name (see ChangeEntry).
func (c Changes[D, R]) Entry(op, name string) (D, R, error) {
	return ChangeEntry(op, name, c.Begin, c.Settle, c.Lookup)
}

// New starts a change that makes or replaces the entry name (see
// NewEntry).
func (c Changes[D, R]) New(op, name string) (D, string, error) {
	return NewEntry(op, name, c.Begin, c.Settle, c.Parent)
}

// NewFile is New for a file: a name ending in "/" names a directory, not
// a file to make, and is refused before the change starts, as open(2)
// with O_CREAT refuses it: an existing file so named with the lookup's
// error (not a directory), anything else with isDir.
func (c Changes[D, R]) NewFile(op, name string, isDir error) (D, string, error) {
	if NamesDir(name) {
		var noD D
		if _, _, err := c.Lookup(op, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return noD, "", err
		}
		return noD, "", &fs.PathError{Op: op, Path: "/" + CleanPath(name) + "/", Err: isDir}
	}
	return c.New(op, name)
}

// NewEntry starts a change that makes (or replaces) the entry name, the
// same way for both codecs: begin starts the change (the codec refuses a
// read-only or closed volume and marks it dirty), settle makes room in its
// directory cache, then parentOf resolves the directory that holds name
// (which need not exist) and name's last element. op names the operation
// for errors.
func NewEntry[D any](op, name string, begin, settle func() error, parentOf func(op, name string) (D, string, error)) (D, string, error) {
	var noD D
	if err := begin(); err != nil {
		return noD, "", err
	}
	if err := settle(); err != nil {
		return noD, "", err
	}
	return parentOf(op, name)
}

// MkdirAll makes the directory name and any missing parents, parents
// first, with mkdir; name is a cleaned path (CleanPath). lookup resolves a
// path (the root has the zero record) and isDir says whether a record is a
// directory: an existing directory is no error, an existing file is
// (notDir, naming it).
func MkdirAll[D any, R comparable](name string, lookup func(op, name string) (D, R, error), isDir func(R) bool, notDir error, mkdir func(name string) error) error {
	if name == "." {
		return nil
	}
	var noR R
	if _, r, err := lookup("mkdir", name); err == nil {
		if r != noR && !isDir(r) {
			return &fs.PathError{Op: "mkdir", Path: "/" + name, Err: notDir}
		}
		return nil
	}
	if parent := path.Dir(name); parent != "." {
		if err := MkdirAll(parent, lookup, isDir, notDir, mkdir); err != nil {
			return err
		}
	}
	return mkdir(name)
}

// Cursor is a file writer's place among the file's extents, the same for
// both codecs: the extent that holds the write position and the bytes of
// the extents before it. Writes only move forward, so finding a position
// costs nothing per write beyond the extents passed.
type Cursor struct {
	ext    int   // extent holding the write position
	extPos int64 // bytes of the extents before it
}

// Span is where byte pos of the file lies on the device and how many bytes
// of its extent follow from there; run(i) is extent i's device offset and
// length in bytes. pos must not be before the extent the cursor is at,
// nor past the file's extents.
func (c *Cursor) Span(pos int64, run func(i int) (off, n int64)) (int64, int64) {
	for {
		off, n := run(c.ext)
		if within := pos - c.extPos; within < n {
			return off + within, n - within
		}
		c.extPos += n
		c.ext++
	}
}

// Put writes p at byte pos of the file with write (the codec's data
// stream), extent by extent, and returns how many bytes went out.
func (c *Cursor) Put(p []byte, pos int64, run func(i int) (off, n int64), write func(off int64, p []byte) error) (int, error) {
	done := 0
	for done < len(p) {
		off, n := c.Span(pos, run)
		n = min(n, int64(len(p)-done))
		if err := write(off, p[done:done+int(n)]); err != nil {
			return done, err
		}
		done += int(n)
		pos += n
	}
	return done, nil
}
