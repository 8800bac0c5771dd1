package fat

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newTable(t *testing.T, typ Type, clusters uint32) Table {
	t.Helper()
	raw := make([]byte, fatBytes(typ, clusters))
	tb, err := NewTable(typ, raw, clusters)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestTable12Packing(t *testing.T) {
	// 5 clusters: entries 0..6, 7 * 1.5 = 10.5 -> 11 bytes.
	tb := newTable(t, FAT12, 5)
	if n := len(tb.Bytes()); n != 11 {
		t.Fatalf("%d bytes", n)
	}
	tb.Set(0, 0xFF0)
	tb.Set(1, 0xFFF)
	tb.Set(2, 0x123)
	tb.Set(3, 0x456)
	tb.Set(6, 0xABC) // even entry at the table's end: low byte + half
	want := []byte{0xF0, 0xFF, 0xFF, 0x23, 0x61, 0x45, 0, 0, 0, 0xBC, 0x0A}
	if !bytes.Equal(tb.Bytes(), want) {
		t.Fatalf("bytes % x, want % x", tb.Bytes(), want)
	}
	tb.Set(5, 0x789) // odd neighbour shares byte 8's... byte 7 high nibble and 8
	want = []byte{0xF0, 0xFF, 0xFF, 0x23, 0x61, 0x45, 0, 0x90, 0x78, 0xBC, 0x0A}
	if !bytes.Equal(tb.Bytes(), want) {
		t.Fatalf("bytes % x, want % x", tb.Bytes(), want)
	}
	for c, v := range map[Cluster]Cluster{0: 0xFF0, 1: 0xFFF, 2: 0x123, 3: 0x456, 4: 0, 5: 0x789, 6: 0xABC} {
		if got := tb.Get(c); got != v {
			t.Errorf("Get(%d) = %#x, want %#x", c, got, v)
		}
	}
	tb.Set(2, 0x1FFFF) // masked to 12 bits, neighbour untouched
	if tb.Get(2) != 0xFFF || tb.Get(3) != 0x456 {
		t.Errorf("after masked set: %#x %#x", tb.Get(2), tb.Get(3))
	}
	if got := tb.Get(7); !tb.IsBad(got) {
		t.Errorf("out of range Get = %#x, want the bad mark", got)
	}
	tb.Set(7, 1) // ignored, no panic
	if !tb.IsEOC(0xFF8) || !tb.IsEOC(tb.EOC()) || tb.IsEOC(0xFF7) || !tb.IsBad(0xFF7) || !tb.IsFree(0) {
		t.Error("FAT12 predicates")
	}
}

func TestTable16And32(t *testing.T) {
	tb := newTable(t, FAT16, 10)
	tb.Set(3, 0xFFF8)
	if tb.Get(3) != 0xFFF8 || !tb.IsEOC(tb.Get(3)) || tb.Bytes()[6] != 0xF8 || tb.Bytes()[7] != 0xFF {
		t.Errorf("FAT16 entry 3: % x", tb.Bytes()[6:8])
	}
	if tb.EOC() != 0xFFFF || !tb.IsBad(0xFFF7) {
		t.Error("FAT16 marks")
	}

	raw := make([]byte, 4*12)
	raw[4*5+3] = 0xA0 // reserved high bits of entry 5
	tb, err := NewTable(FAT32, raw, 10)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Get(5) != 0 || !tb.IsFree(tb.Get(5)) {
		t.Errorf("high bits leak into Get: %#x", tb.Get(5))
	}
	tb.Set(5, 0xFFFFFFFF)
	if got := raw[4*5+3]; got != 0xAF {
		t.Errorf("high byte %#x, want 0xaf (high bits kept)", got)
	}
	if tb.Get(5) != 0x0FFFFFFF || !tb.IsEOC(tb.Get(5)) || !tb.IsBad(0xFFFFFFF7) || !tb.IsEOC(0x0FFFFFF8) {
		t.Error("FAT32 values")
	}
	if !tb.IsBad(tb.Get(12)) {
		t.Error("FAT32 out of range Get should be bad")
	}
}

func TestNewTableErrors(t *testing.T) {
	for _, tc := range []struct {
		typ      Type
		n        int
		clusters uint32
	}{
		{FAT12, 10, 5}, {FAT16, 23, 10}, {FAT32, 47, 10}, {FAT12, 8000, 4085}, {FAT16, 200000, 65525},
	} {
		if _, err := NewTable(tc.typ, make([]byte, tc.n), tc.clusters); !errors.Is(err, ErrCorrupt) {
			t.Errorf("NewTable(%s, %d bytes, %d clusters) = %v, want ErrCorrupt", tc.typ, tc.n, tc.clusters, err)
		}
	}
	if _, err := NewTable(Type(8), make([]byte, 100), 1); err == nil {
		t.Error("type 8 accepted")
	}
}

func TestDirtyRanges(t *testing.T) {
	tb := newTable(t, FAT32, 4000) // 16008 bytes
	if r := tb.DirtyRanges(512); len(r) != 0 {
		t.Fatalf("fresh table dirty: %v", r)
	}
	for c := Cluster(10); c < 20; c++ { // bytes 40..80
		tb.Set(c, c+1)
	}
	tb.Set(200, 1)  // 800..804
	tb.Set(130, 1)  // 520..524: merges with 512..1024 after alignment
	tb.Set(3999, 1) // 15996..16000
	tb.Set(4001, 1) // 16004..16008: last sector, clipped at 16008
	if got, want := tb.DirtyRanges(1), [][2]int64{{40, 80}, {520, 524}, {800, 804}, {15996, 16000}, {16004, 16008}}; !cmp.Equal(got, want) {
		t.Errorf("DirtyRanges(1) = %v, want %v", got, want)
	}
	if got, want := tb.DirtyRanges(512), [][2]int64{{0, 1024}, {15872, 16008}}; !cmp.Equal(got, want) {
		t.Errorf("DirtyRanges(512) = %v, want %v", got, want)
	}
	if got, want := tb.DirtyRanges(4096), [][2]int64{{0, 4096}, {12288, 16008}}; !cmp.Equal(got, want) {
		t.Errorf("DirtyRanges(4096) = %v, want %v", got, want)
	}
	tb.ClearDirty()
	if r := tb.DirtyRanges(512); len(r) != 0 {
		t.Errorf("after ClearDirty: %v", r)
	}
	// Many scattered writes stay correct through compaction.
	for i := 0; i < 5000; i++ {
		tb.Set(Cluster(2+(i*7919)%4000), 1)
	}
	if got, want := tb.DirtyRanges(512), [][2]int64{{0, 16008}}; !cmp.Equal(got, want) {
		t.Errorf("after scattered writes: %v", got)
	}

	t12 := newTable(t, FAT12, 1000)
	t12.Set(341, 5) // odd: bytes 511..513 straddle a sector boundary
	if got, want := t12.DirtyRanges(512), [][2]int64{{0, 1024}}; !cmp.Equal(got, want) {
		t.Errorf("FAT12 straddling entry: %v", got)
	}
}

func TestChain(t *testing.T) {
	tb := newTable(t, FAT16, 100)
	link := func(cs ...Cluster) {
		for i := 0; i+1 < len(cs); i++ {
			tb.Set(cs[i], cs[i+1])
		}
	}
	link(5, 6, 9, 7)
	tb.Set(7, tb.EOC())
	got, err := Chain(tb, 5)
	if err != nil || !cmp.Equal(got, []Cluster{5, 6, 9, 7}) {
		t.Errorf("Chain = %v, %v", got, err)
	}
	tb.Set(30, 0xFFF8)
	if got, err := Chain(tb, 30); err != nil || len(got) != 1 {
		t.Errorf("one-cluster chain = %v, %v", got, err)
	}

	for _, tc := range []struct {
		name  string
		setup func()
		start Cluster
		text  string
	}{
		{"free link", func() { link(40, 41) }, 40, "fat: FAT: cluster 41 at 0x52: links to a free cluster (chain starting at cluster 40)"},
		{"bad link", func() { link(42, 0xFFF7) }, 42, "fat: FAT: cluster 42 at 0x54: links to a cluster marked bad (chain starting at cluster 42)"},
		{"out of range", func() { link(43, 102) }, 43, "fat: FAT: cluster 43 at 0x56: links to cluster 102, outside 2..101 (chain starting at cluster 43)"},
		{"reserved", func() { link(44, 1) }, 44, "fat: FAT: cluster 44 at 0x58: links to cluster 1, outside 2..101 (chain starting at cluster 44)"},
		{"self loop", func() { link(50, 50) }, 50, "fat: FAT: cluster 50 at 0x64: links back to cluster 50: the chain loops (chain starting at cluster 50)"},
		{"start outside", func() {}, 0, "fat: FAT: chain start 0: not a data cluster (2..101)"},
	} {
		tc.setup()
		_, err := Chain(tb, tc.start)
		if !errors.Is(err, ErrCorrupt) || err.Error() != tc.text {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.text)
		}
	}
}

func TestChainLongLoopIsBounded(t *testing.T) {
	// A tail of 1000 clusters running into a loop of 20000: found within
	// a few times the chain's true length, whatever the table's size.
	tb := newTable(t, FAT32, 1<<20)
	c := Cluster(2)
	for i := 0; i < 21000; i++ {
		tb.Set(c, c+1)
		c++
	}
	tb.Set(c, 1002)
	got, err := Chain(tb, 2)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "loops") {
		t.Fatalf("err = %v", err)
	}
	if len(got) > 4*21000 {
		t.Errorf("walked %d clusters before finding a loop of 21001", len(got))
	}
}

func TestCountAndFirstFree(t *testing.T) {
	tb := newTable(t, FAT12, 20) // clusters 2..21
	tb.Set(0, 0xFF8)
	tb.Set(1, 0xFFF)
	for c := Cluster(2); c < 22; c++ {
		if c != 7 && c != 15 {
			tb.Set(c, tb.EOC())
		}
	}
	if n := CountFree(tb); n != 2 {
		t.Errorf("CountFree = %d", n)
	}
	for _, tc := range []struct{ from, want Cluster }{{0, 7}, {2, 7}, {7, 7}, {8, 15}, {16, 7}, {22, 7}, {1000, 7}} {
		if got, ok := FirstFree(tb, tc.from); !ok || got != tc.want {
			t.Errorf("FirstFree(%d) = %d, %v; want %d", tc.from, got, ok, tc.want)
		}
	}
	tb.Set(7, 1)
	tb.Set(15, 1)
	if c, ok := FirstFree(tb, 5); ok {
		t.Errorf("full table: FirstFree = %d", c)
	}
}
