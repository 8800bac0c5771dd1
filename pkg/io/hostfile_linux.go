package io

import (
	"errors"
	goio "io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rwfDontcache is RWF_DONTCACHE of the kernel's uapi (include/uapi/linux/fs.h,
// Linux 6.14): uncached buffered I/O.
const rwfDontcache = unix.RWF_DONTCACHE

// decide picks the mode once the file is known to be large enough.
func (h *HostFile) decide() {
	if h.decided {
		return
	}
	if h.keep {
		h.decided, h.mode = true, CacheKept
		return
	}
	if fi, err := h.f.Stat(); err != nil || !fi.Mode().IsRegular() {
		h.decided = true // a pipe, a terminal, a device: plain
		return
	}
	if h.size >= 0 && h.size < HostDropMin || h.size < 0 && h.n < HostDropMin {
		h.decided = h.size >= 0 // known small: plain for good
		return
	}
	h.decided = true
	var fs unix.Statfs_t
	if unix.Fstatfs(int(h.f.Fd()), &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
		h.mode = CacheMemory
		return
	}
	h.mode = CacheDontcache
	if h.noDontcache {
		h.fallback(unix.EOPNOTSUPP)
	}
}

// allCached reports whether the whole file is in the page cache now
// (cachestat, Linux 6.5; false where the kernel has it not).
func (h *HostFile) allCached() bool {
	var st unix.Cachestat_t
	if h.n != 0 || h.size <= 0 || unix.Cachestat(uint(h.f.Fd()), &unix.CachestatRange{}, &st, 0) != nil {
		return false
	}
	return int64(st.Cache)*int64(os.Getpagesize()) >= h.size
}

// fallback reports whether err says the kernel or the file system has no
// RWF_DONTCACHE (an older kernel refuses the flag with EINVAL or, before
// preadv2, ENOSYS; a file system without it says EOPNOTSUPP), and if so
// turns to the fadvise mode from the stream's offset.
func (h *HostFile) fallback(err error) bool {
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
		return false
	}
	h.mode = CacheFadvise
	h.pos, _ = h.f.Seek(0, goio.SeekCurrent)
	if fl, err := unix.FcntlInt(h.f.Fd(), unix.F_GETFL, 0); err == nil && fl&unix.O_APPEND != 0 {
		if fi, err := h.f.Stat(); err == nil {
			h.pos = fi.Size()
		}
	}
	h.behind, h.started = h.pos, h.pos
	return true
}

func (h *HostFile) Read(p []byte) (int, error) {
	h.decide()
	if !h.probed && (h.mode == CacheDontcache || h.mode == CacheFadvise) {
		h.probed = true
		if h.allCached() {
			h.mode = CacheFound
		}
	}
	if h.mode == CacheDontcache {
		// A raw system call, as ReadRegular's (raw_linux.go).
		n, err := readRegular(h.f, p, rwfDontcache)
		if err == nil || err == goio.EOF || !h.fallback(err) {
			h.n += int64(n)
			return n, err
		}
	}
	n, err := ReadRegular(h.f, p)
	h.n += int64(n)
	if h.mode == CacheFadvise {
		h.pos += int64(n)
		if h.pos-h.behind >= hostDropStep {
			unix.Fadvise(int(h.f.Fd()), h.behind, h.pos-h.behind, unix.FADV_DONTNEED)
			h.behind = h.pos
		}
	}
	return n, err
}

func (h *HostFile) Write(p []byte) (int, error) {
	h.decide()
	h.wrote = true
	done := 0
	for h.mode == CacheDontcache && done < len(p) {
		n, err := unix.Pwritev2(int(h.f.Fd()), [][]byte{p[done:]}, -1, rwfDontcache)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if done == 0 && h.fallback(err) {
				break
			}
			return done, &os.PathError{Op: "write", Path: h.f.Name(), Err: err}
		}
		done += n
		h.n += int64(n)
	}
	if done == len(p) {
		return done, nil
	}
	n, err := h.f.Write(p[done:])
	h.n += int64(n)
	if h.mode == CacheFadvise {
		h.pos += int64(n)
		if h.pos-h.started >= hostDropStep {
			h.writeBehind(false)
		}
	}
	return done + n, err
}

// writeBehind starts writeback of what was written since the last call
// and, for what the call before started, waits for it and drops it; at
// the end (last) it only starts writeback of the rest.
func (h *HostFile) writeBehind(last bool) {
	fd := int(h.f.Fd())
	if h.pos > h.started {
		unix.SyncFileRange(fd, h.started, h.pos-h.started, unix.SYNC_FILE_RANGE_WRITE)
	}
	if !last && h.started > h.behind {
		unix.SyncFileRange(fd, h.behind, h.started-h.behind, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
		unix.Fadvise(fd, h.behind, h.started-h.behind, unix.FADV_DONTNEED)
		h.behind = h.started
	}
	h.started = h.pos
}

// Done lets the last pages go, without closing the file: in the fadvise
// mode, a reader drops what it read since the last drop, a writer starts
// writeback of its last range (the drop of the ranges still being
// written is left to the kernel's reclaim).
func (h *HostFile) Done() {
	if h.mode != CacheFadvise {
		return
	}
	if h.wrote {
		h.writeBehind(false)
		h.writeBehind(true)
		return
	}
	if h.pos > h.behind {
		unix.Fadvise(int(h.f.Fd()), h.behind, h.pos-h.behind, unix.FADV_DONTNEED)
		h.behind = h.pos
	}
}

// CachedBytes is how much of the host file at path is in the page cache
// now (mincore on a mapping of it), for tests and benchmarks that check
// what a copy left behind.
func CachedBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(m)
	page := int64(os.Getpagesize())
	vec := make([]byte, (int64(len(m))+page-1)/page)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		return 0, e
	}
	var n int64
	for _, v := range vec {
		n += int64(v & 1)
	}
	return n * page, nil
}
