package vol

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// OpenFile opens an existing file for writing in place (see FileUpdater);
// each of its calls holds the volume's lock. Files opened for reading
// under the same name before it fail their next read with ErrChanged once
// it has changed them; a file opened for reading while the updater is
// open reads the bytes written so far.
func (l *locked) OpenFile(name string, flag int) (FileUpdater, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable("open"); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	u, err := l.Volume.OpenFile(name, flag)
	if err != nil {
		return nil, err
	}
	lu := &lockedUpdater{l: l, u: u, name: name}
	l.updates[lu] = struct{}{}
	l.staleReaders(name)
	l.recheck()
	return lu, nil
}

// staleReaders marks stale the files open for reading as name: their
// bytes may change in place under them. mu is held.
func (l *locked) staleReaders(name string) {
	key := l.Volume.FoldName(fsutil.CleanPath(name))
	for f := range l.files {
		if l.Volume.FoldName(fsutil.CleanPath(f.name)) == key {
			f.stale = true
			delete(l.files, f)
		}
	}
}

// closeUpdates closes the updaters still open at the volume's Close: the
// bytes they wrote are already in place, so their entries are recorded
// (dropping them would leave grown clusters unlinked), and each is named
// in an error. mu is held.
func (l *locked) closeUpdates() []error {
	open := make([]*lockedUpdater, 0, len(l.updates))
	for u := range l.updates {
		open = append(open, u)
	}
	slices.SortFunc(open, func(a, b *lockedUpdater) int { return strings.Compare(a.name, b.name) })
	var errs []error
	for _, u := range open {
		if err := u.u.Close(); err != nil {
			errs = append(errs, fmt.Errorf("vol: close: %q: %w", u.name, err))
		}
		errs = append(errs, fmt.Errorf("vol: close: %q was still open for writing: closed it (close each file before the volume): %w", u.name, ErrWriterOpen))
	}
	clear(l.updates)
	return errs
}

// lockedUpdater is a FileUpdater of a locked volume.
type lockedUpdater struct {
	l    *locked
	u    FileUpdater
	name string
	done bool
}

// call runs f under the lock while the updater and its volume are usable;
// change says f may change the file (open readers are checked after).
func (u *lockedUpdater) call(op string, change bool, f func() error) error {
	l := u.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if u.done || l.closed {
		return &fs.PathError{Op: op, Path: u.name, Err: fs.ErrClosed}
	}
	if err := l.usable(op); err != nil {
		return &fs.PathError{Op: op, Path: u.name, Err: err}
	}
	err := f()
	if change {
		l.staleReaders(u.name)
		l.recheck()
	}
	return err
}

func (u *lockedUpdater) Write(p []byte) (n int, err error) {
	err = u.call("write", true, func() error { n, err = u.u.Write(p); return err })
	return n, err
}

func (u *lockedUpdater) WriteAt(p []byte, off int64) (n int, err error) {
	err = u.call("write", true, func() error { n, err = u.u.WriteAt(p, off); return err })
	return n, err
}

func (u *lockedUpdater) Seek(offset int64, whence int) (n int64, err error) {
	err = u.call("seek", false, func() error { n, err = u.u.Seek(offset, whence); return err })
	return n, err
}

func (u *lockedUpdater) Truncate(size int64) error {
	return u.call("truncate", true, func() error { return u.u.Truncate(size) })
}

func (u *lockedUpdater) Sync() error {
	return u.call("sync", true, u.u.Sync)
}

func (u *lockedUpdater) Size() int64 {
	return fact(u.l, u.u.Size)
}

// Close records the file's entry; a second Close does nothing.
func (u *lockedUpdater) Close() error {
	l := u.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if u.done || l.closed {
		return nil
	}
	u.done = true
	delete(l.updates, u)
	err := u.u.Close()
	l.recheck()
	return err
}
