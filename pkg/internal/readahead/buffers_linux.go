package readahead

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapHuge maps size bytes (a multiple of hugePage) outside the Go heap,
// aligned to a huge page and asked to be backed by huge pages; nil if the
// mapping fails.
func mapHuge(size int) []byte {
	m, err := unix.Mmap(-1, 0, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil
	}
	skip := (hugePage - int(uintptr(unsafe.Pointer(&m[0]))%hugePage)) % hugePage
	b := m[skip : skip+size : skip+size]
	// Without transparent huge pages (or with them off) this fails or
	// does nothing, and the buffer is an ordinary one.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b
}
