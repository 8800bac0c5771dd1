//go:build !linux

package fat

// bigThreshold is kept for the tests; off Linux every buffer comes from
// the Go heap (bigmem_linux.go maps large ones outside it).
const bigThreshold = 8 << 20

// bigAlloc returns n zeroed bytes from the Go heap; release is a no-op.
func bigAlloc(n int64) (b []byte, release func()) {
	return make([]byte, n), func() {}
}
