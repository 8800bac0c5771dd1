package io

import (
	"errors"
	"os"
	"sync"
)

// ErrLocked is returned when another process holds the image's lock.
var ErrLocked = errors.New("io: image is in use by another process")

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
type imageLock struct {
	key   [2]uint64 // st_dev, st_ino of the locked inode
	f     *os.File
	write bool
	refs  int
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
