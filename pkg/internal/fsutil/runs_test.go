package fsutil

import (
	"fmt"
	"testing"
)

type testExt struct{ start, n uint32 }

func extSize(e testExt) uint32 { return e.n }
func extSplit(e testExt, n uint32) (testExt, testExt) {
	return testExt{e.start, n}, testExt{e.start + n, e.n - n}
}

// SplitExtents keeps whole extents, splits the one the boundary falls
// in, and cuts the rest.
func TestSplitExtents(t *testing.T) {
	exts := []testExt{{10, 4}, {20, 3}, {30, 5}}
	for _, c := range []struct {
		keep      int64
		kept, cut string
	}{
		{0, "[]", "[{10 4} {20 3} {30 5}]"},
		{4, "[{10 4}]", "[{20 3} {30 5}]"},
		{6, "[{10 4} {20 2}]", "[{22 1} {30 5}]"},
		{12, "[{10 4} {20 3} {30 5}]", "[]"},
		{99, "[{10 4} {20 3} {30 5}]", "[]"},
	} {
		kept, cut := SplitExtents(exts, c.keep, extSize, extSplit)
		if fmt.Sprint(kept) != c.kept || fmt.Sprint(cut) != c.cut {
			t.Errorf("keep %d: %v %v, want %s %s", c.keep, kept, cut, c.kept, c.cut)
		}
	}
}

// FreeSlots finds the first run of free slots from a slot on; with a
// sector size, a run that fits a sector does not straddle two.
func TestFreeSlots(t *testing.T) {
	used := map[int]bool{0: true, 1: true, 5: true}
	free := func(i int) bool { return !used[i] }
	for _, c := range []struct{ n, from, per, want int }{
		{1, 0, 0, 2},
		{3, 0, 0, 2},
		{4, 0, 0, 6},
		{3, 3, 0, 6},
		{2, 0, 4, 2},
		{3, 0, 4, 8},  // 2..4 and 6..8 straddle a sector boundary
		{5, 0, 4, 6},  // longer than a sector: may straddle
		{0, 0, 0, -1}, // nothing to find
		{9, 0, 0, -1}, // no room
	} {
		if got := FreeSlots(12, c.n, c.from, c.per, free); got != c.want {
			t.Errorf("%d from %d per %d: %d, want %d", c.n, c.from, c.per, got, c.want)
		}
	}
}
