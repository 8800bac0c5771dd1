package io

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Identify returns the FileID of the file or block device path names
// (following symbolic links).
func Identify(path string) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		return FileID{Ino: st.Rdev}, nil
	}
	return FileID{Dev: st.Dev, Ino: st.Ino}, nil
}

// lockFile takes an flock on path, exclusive for a writer and shared for a
// reader, on a descriptor of its own (the device's descriptors may be
// reopened, which would drop a lock held on them), or joins the lock this
// process already holds on the same inode. Without wait, a lock held by
// someone else is an error naming the holder's PID where /proc/locks tells
// it; with wait, closing cancel (if not nil) ends the wait with ErrCanceled.
func lockFile(path string, write, wait bool, cancel <-chan struct{}) (*imageLock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("io: locking %s: %w", path, err)
	}
	key := [2]uint64{st.Dev, st.Ino}
	locks.Lock()
	defer locks.Unlock()
	if l := locks.m[key]; l != nil {
		f.Close()
		if write && !l.write {
			if err := flockWait(l.f, path, unix.LOCK_EX, wait, cancel); err != nil {
				return nil, err
			}
			l.write = true
		}
		l.refs++
		return l, nil
	}
	how := unix.LOCK_SH
	if write {
		how = unix.LOCK_EX
	}
	if err := flockWait(f, path, how, wait, cancel); err != nil {
		f.Close()
		return nil, err
	}
	l := &imageLock{key: key, f: f, write: write, refs: 1}
	if locks.m == nil {
		locks.m = map[[2]uint64]*imageLock{}
	}
	locks.m[key] = l
	return l, nil
}

// Bounds of the interval at which a cancelable wait retries the lock.
const (
	lockPollMin = 10 * time.Millisecond
	lockPollMax = 200 * time.Millisecond
)

// flockWait takes the flock how (LOCK_SH or LOCK_EX) on f, converting one
// this descriptor holds. Without wait a conflict is an ErrLocked error;
// with wait it blocks, polling when cancel can end the wait.
func flockWait(f *os.File, path string, how int, wait bool, cancel <-chan struct{}) error {
	fd := int(f.Fd())
	err := unix.Flock(fd, how|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK && wait {
		if cancel == nil {
			for err = unix.Flock(fd, how); err == unix.EINTR; {
				err = unix.Flock(fd, how)
			}
		} else {
			for pause := lockPollMin; err == unix.EWOULDBLOCK; pause = min(2*pause, lockPollMax) {
				select {
				case <-cancel:
					return fmt.Errorf("io: %s: %w", path, ErrCanceled)
				case <-time.After(pause):
				}
				err = unix.Flock(fd, how|unix.LOCK_NB)
			}
		}
	}
	if err == nil {
		return nil
	}
	if err != unix.EWOULDBLOCK {
		return fmt.Errorf("io: locking %s: %w", path, err)
	}
	who := "another process"
	if pid := lockHolder(f); pid > 0 {
		who = fmt.Sprintf("process %d", pid)
	}
	mode := "reading"
	if how == unix.LOCK_EX {
		mode = "writing"
	}
	return fmt.Errorf("io: %s: %s holds its lock, so it cannot be opened for %s now (give --wait to wait for it): %w", path, who, mode, ErrLocked)
}

// lockHolder finds the PID holding an flock on f's inode in /proc/locks
// (0 when it cannot tell).
func lockHolder(f *os.File) int {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return 0
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	lf, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 12345 fd:01:1234567 0 EOF"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		if fields[5] == want {
			if pid, err := strconv.Atoi(fields[4]); err == nil && pid != os.Getpid() {
				return pid
			}
		}
	}
	return 0
}
