package io

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrLocked is returned when another process holds the image's lock.
var ErrLocked = errors.New("io: image is in use by another process")

// ErrOverlap is returned when a Device of this process already writes
// bytes a new writable Device would (two volumes writing one file system
// would each lose the other's changes); errors.Is(err, ErrLocked) holds
// for it too. A caller that may have the volume open under another name
// can look for it by where it starts (a read-only Device may be opened
// beside the writer).
var ErrOverlap = errors.New("io: bytes already open for writing in this process")

// ErrCanceled is returned when Options.Cancel ends the wait for another
// process's lock.
var ErrCanceled = errors.New("io: waiting for the image's lock was canceled")

// FileID identifies an image whatever it is called: "a.img", "./a.img" and a
// symbolic link to it have one FileID; so do two device nodes of one block
// device.
type FileID struct {
	Dev, Ino uint64 // st_dev and st_ino; for a block device 0 and st_rdev
}

// imageLock is this process's flock on one image. flock(2) locks belong to
// an open file description, so a second descriptor of the same image, even
// in this process, would conflict with the first: every Device of one image
// (named two ways, or at two offsets) shares one imageLock instead, counted
// by refs, upgraded to exclusive when a writer joins readers.
//
// Within the process, two Devices open for writing over one byte of the
// image are refused (see claim): two volumes writing the same file system,
// each unaware of the other's allocations, would lose one's files. Two
// partitions of one disk, or a reader beside a writer, share the lock.
type imageLock struct {
	key    [2]uint64 // st_dev, st_ino of the locked inode
	f      *os.File
	write  bool
	refs   int
	writes map[*window]struct{} // the byte ranges Devices hold open for writing
}

// window is a byte range of the image a Device holds open for writing.
type window struct{ start, end int64 }

// claim records that a Device writes bytes [start, end) of the image, or
// refuses when another Device of this process writes any of them. A
// reader claims nothing. The window is given back with unclaim.
func (l *imageLock) claim(path string, start, end int64, write bool) (*window, error) {
	if l == nil || !write {
		return nil, nil
	}
	locks.Lock()
	defer locks.Unlock()
	for w := range l.writes {
		if start < w.end && w.start < end {
			return nil, fmt.Errorf("io: %s: bytes %d to %d are open for writing already, by another volume of this process (close it first): %w: %w",
				path, w.start, w.end, ErrOverlap, ErrLocked)
		}
	}
	w := &window{start, end}
	if l.writes == nil {
		l.writes = map[*window]struct{}{}
	}
	l.writes[w] = struct{}{}
	return w, nil
}

// unclaim gives back a window claim returned (nil: none).
func (l *imageLock) unclaim(w *window) {
	if l == nil || w == nil {
		return
	}
	locks.Lock()
	defer locks.Unlock()
	delete(l.writes, w)
}

// locks holds the images this process has locked. Its mutex is held while
// waiting for another process, which is fine for commands that open their
// images one after another.
var locks struct {
	sync.Mutex
	m map[[2]uint64]*imageLock
}

// Close drops one use of the lock, and the flock with the last.
func (l *imageLock) Close() error {
	locks.Lock()
	defer locks.Unlock()
	if l.refs--; l.refs > 0 {
		return nil
	}
	delete(locks.m, l.key)
	return l.f.Close()
}
