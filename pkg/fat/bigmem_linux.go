package fat

import "golang.org/x/sys/unix"

// bigThreshold is the size from which bigAlloc maps memory outside the Go
// heap.
const bigThreshold = 8 << 20

// bigAlloc returns n zeroed bytes and a function that gives them back. A
// large buffer (a 2 TiB volume's FAT is 256 MiB) is mapped outside the Go
// heap: held in the heap it would double the collector's heap goal, and so
// the process's peak memory. Small ones come from the heap (release is then
// a no-op). Use the bytes only until release is called.
func bigAlloc(n int64) (b []byte, release func()) {
	if n >= bigThreshold {
		m, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err == nil {
			return m, func() { unix.Munmap(m) }
		}
	}
	return make([]byte, n), func() {}
}
