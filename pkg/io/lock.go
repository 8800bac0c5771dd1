package io

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrLocked is returned when another process holds the image's lock.
var ErrLocked = errors.New("io: image is in use by another process")

// lockFile takes an flock on path, exclusive for a writer and shared for a
// reader, on a descriptor of its own (the device's descriptors may be
// reopened, which would drop a lock held on them). Without wait, a lock held
// by someone else is an error naming the holder's PID where /proc/locks
// tells it.
func lockFile(path string, write, wait bool) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_SH
	if write {
		how = unix.LOCK_EX
	}
	err = unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK && wait {
		for err = unix.Flock(int(f.Fd()), how); err == unix.EINTR; {
			err = unix.Flock(int(f.Fd()), how)
		}
	}
	if err == nil {
		return f, nil
	}
	defer f.Close()
	if err != unix.EWOULDBLOCK {
		return nil, fmt.Errorf("io: locking %s: %w", path, err)
	}
	who := "another process"
	if pid := lockHolder(f); pid > 0 {
		who = fmt.Sprintf("process %d", pid)
	}
	mode := "reading"
	if write {
		mode = "writing"
	}
	return nil, fmt.Errorf("io: %s: %s holds its lock, so it cannot be opened for %s now (give --wait to wait for it): %w", path, who, mode, ErrLocked)
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
