package bounds

import (
	"math"
	"testing"
)

func TestClusters(t *testing.T) {
	for _, tc := range []struct {
		length uint64
		cs     int64
		heap   uint64
		want   uint64
		ok     bool
	}{
		{0, 4096, 10, 0, true},
		{1, 4096, 10, 1, true},
		{4096, 4096, 10, 1, true},
		{4097, 4096, 10, 2, true},
		{40960, 4096, 10, 10, true},
		{40961, 4096, 10, 11, false},
		{1 << 60, 4096, 1536, 1 << 48, false},
		// (length + cs - 1) / cs wraps to 0 here.
		{math.MaxUint64, 4096, 1536, 1 << 52, false},
		{math.MaxUint64 - 4094, 4096, math.MaxUint64, 1 << 52, true},
		{100, 0, 10, 0, false},
		{100, -512, 10, 0, false},
	} {
		got, ok := Clusters(tc.length, tc.cs, tc.heap)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Clusters(%d, %d, %d) = %d, %v; want %d, %v", tc.length, tc.cs, tc.heap, got, ok, tc.want, tc.ok)
		}
	}
}

// walkChain steps through next from start until Step stops it or the
// chain ends (next returns 0), and returns the steps taken and why.
func walkChain(next map[uint32]uint32, start uint32, max uint64) (uint64, Stop) {
	w := NewWalk(max)
	for c := start; c != 0; c = next[c] {
		if s := w.Step(c); s != Go {
			return w.Steps(), s
		}
	}
	return w.Steps(), Go
}

func TestWalk(t *testing.T) {
	line := map[uint32]uint32{2: 3, 3: 4, 4: 5}
	if n, s := walkChain(line, 2, 10); n != 4 || s != Go {
		t.Errorf("straight chain: %d steps, %v", n, s)
	}
	if n, s := walkChain(line, 2, 4); n != 4 || s != Go {
		t.Errorf("straight chain at its limit: %d steps, %v", n, s)
	}
	if _, s := walkChain(line, 2, 3); s != Limit {
		t.Errorf("chain past the limit: %v, want Limit", s)
	}
	self := map[uint32]uint32{7: 7}
	if n, s := walkChain(self, 7, math.MaxUint64); s != Loop || n > 2 {
		t.Errorf("self loop: %d steps, %v", n, s)
	}
	// A tail of 1000 clusters into a loop of 3000: found within a few
	// times the true length, with no bound to help.
	next := map[uint32]uint32{}
	for c := uint32(2); c < 4002; c++ {
		next[c] = c + 1
	}
	next[4001] = 1002
	n, s := walkChain(next, 2, math.MaxUint64)
	if s != Loop || n > 4*4000 {
		t.Errorf("tail and loop: %d steps, %v", n, s)
	}
}

// ClustersFor rounds up, takes nothing for nothing, and does not wrap
// for a size near 2^63.
func TestClustersFor(t *testing.T) {
	for _, c := range []struct{ n, cs, want int64 }{
		{0, 4096, 0}, {-5, 4096, 0}, {1, 4096, 1}, {4096, 4096, 1}, {4097, 4096, 2},
		{math.MaxInt64, 512, math.MaxInt64/512 + 1},
	} {
		if got := ClustersFor(c.n, c.cs); got != c.want {
			t.Errorf("ClustersFor(%d, %d) = %d, want %d", c.n, c.cs, got, c.want)
		}
	}
}
