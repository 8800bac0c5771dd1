package fsutil

import "testing"

func TestPackSlots(t *testing.T) {
	for _, c := range []struct{ at, n, per, want int }{
		{0, 3, 16, 3},
		{13, 3, 16, 16},    // fills the sector to its end
		{14, 3, 16, 19},    // would straddle: moves to the next sector
		{16, 3, 16, 19},    // a sector's start
		{5, 20, 16, 36},    // longer than a sector: from the next one's start
		{0, 20, 16, 20},    // longer than a sector, at a start already
		{14, 3, 0, 17},     // no sector size: packed
		{2, 1, 16, 3},      // FAT's "." and ".." first
		{127, 2, 128, 130}, // 4 KiB sectors
	} {
		if got := PackSlots(c.at, c.n, c.per); got != c.want {
			t.Errorf("PackSlots(%d, %d, %d) = %d, want %d", c.at, c.n, c.per, got, c.want)
		}
	}
}

func TestDirClusters(t *testing.T) {
	for _, c := range []struct{ slots, cs, max, free, want int64 }{
		{0, 4096, 2 << 20, 100, 1},
		{2, 4096, 2 << 20, 100, 1},
		{128, 4096, 2 << 20, 100, 1},
		{129, 4096, 2 << 20, 100, 2},
		{1200, 4096, 2 << 20, 100, 10},
		{1200, 4096, 2 << 20, 4, 4},         // the free space bounds it
		{1 << 20, 4096, 2 << 20, 1000, 512}, // and the format's limit
		{10, 4096, 2 << 20, 0, 1},           // Mkdir's one cluster (its allocation says no space)
	} {
		if got := DirClusters(c.slots, c.cs, c.max, c.free); got != c.want {
			t.Errorf("DirClusters(%d, %d, %d, %d) = %d, want %d", c.slots, c.cs, c.max, c.free, got, c.want)
		}
	}
}
