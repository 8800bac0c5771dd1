package io

import "os"

// Host files (a copy's sources and destinations, the originals a volume's
// files are compared with, a file standard output was sent to) pass
// through the page cache once: a copy of a 60 GiB card would otherwise
// push everything else the machine had cached out of memory, and leave
// gigabytes of dirty pages behind. A HostFile reads and writes a host file
// so that the cache is left about as it was found:
//
//   - where the kernel has uncached buffered I/O (RWF_DONTCACHE, Linux
//     6.14 and later, on the file systems that support it), each read and
//     write passes it: pages the call brings in are dropped once read or
//     written back, pages that were cached before stay;
//   - elsewhere, plain reads and writes, and posix_fadvise(DONTNEED) on the
//     range behind the stream; written ranges are first sent to the disk
//     (sync_file_range), since only clean pages can be dropped;
//   - tmpfs keeps files in memory and has no writeback: nothing changes.
//
// Files under HostDropMin are read and written plainly: starting writeback
// for each of a million tiny files would cost more than the memory it
// frees. A HostFile made to keep the cache (keep) is plain I/O throughout.

// HostDropMin is the size from which a HostFile keeps a file out of the
// page cache.
const HostDropMin = 1 << 20

// hostDropStep is how far a stream goes between two drops in the fadvise
// mode: the pages of at most two steps stay cached at once.
const hostDropStep = 8 << 20

// The page-cache modes a HostFile reports (Mode).
const (
	CacheDontcache = "dontcache" // RWF_DONTCACHE reads and writes
	CacheFadvise   = "fadvise"   // posix_fadvise(DONTNEED) behind the stream
	CacheKept      = "kept"      // plain I/O, as asked (keep)
	CacheMemory    = "tmpfs"     // the file system is memory: nothing to drop
	// CacheFound: a file read was wholly in the page cache already, and
	// is read plainly and left there (uncached reads would leave it too,
	// at a little more CPU time; the fadvise mode would drop it).
	CacheFound = "cached before"
)

// HostFile reads or writes a host file, keeping its data out of the page
// cache (see above). It reads and writes at the file's offset, as
// os.File's Read and Write do.
type HostFile struct {
	f    *os.File
	keep bool
	// noDontcache takes the fallback as a kernel without RWF_DONTCACHE
	// would (tests).
	noDontcache bool
	size        int64 // the size expected (-1: not known; decided at HostDropMin bytes)

	mode    string // "" while plain I/O (not decided, or too small to matter)
	decided bool
	n       int64 // bytes read or written
	wrote   bool
	probed  bool // a reader looked whether the file was cached already

	// The fadvise mode: the stream's file offset, the offset before which
	// pages were dropped, and (writes) the offset before which writeback
	// was started.
	pos, behind, started int64
}

// NewHostFile wraps f, a host file opened for reading or writing. size is
// how large the file is or will be (-1 when not known: the file is kept
// out of the cache from HostDropMin bytes on); keep asks for plain I/O.
func NewHostFile(f *os.File, size int64, keep bool) *HostFile {
	return &HostFile{f: f, size: size, keep: keep}
}

// File is the file wrapped.
func (h *HostFile) File() *os.File { return h.f }

// Mode says how the file passed the page cache: one of the Cache
// constants, or "" when it was read or written plainly for being small or
// not a regular file.
func (h *HostFile) Mode() string { return h.mode }

// Close lets the last pages go (Done) and closes the file.
func (h *HostFile) Close() error {
	h.Done()
	return h.f.Close()
}

// HostCacheModes gathers the modes of the host files a command read and
// wrote, for its statistics.
type HostCacheModes struct{ seen []string }

// Add counts one file's mode ("" is left out).
func (m *HostCacheModes) Add(mode string) {
	if mode == "" {
		return
	}
	for _, s := range m.seen {
		if s == mode {
			return
		}
	}
	m.seen = append(m.seen, mode)
}

// String lists the modes seen, in the order first seen ("" for none).
func (m *HostCacheModes) String() string {
	s := ""
	for i, x := range m.seen {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}
