package fat

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// allocVolume formats an in-memory FAT32 volume of 64 MiB with 512-byte
// clusters (131,000-odd clusters) and opens it.
func allocVolume(t *testing.T) *Volume {
	t.Helper()
	_, v := formatMem(t, FormatParams{Size: 64 << 20, Type: FAT32, SectorsPerCluster: 1, AlignData: true}, time.Unix(0, 0))
	return v
}

// chainOf returns the extents of the chain at start.
func chainOf(t *testing.T, v *Volume, start Cluster) []Extent {
	t.Helper()
	c, err := Chain(v.table, start)
	if err != nil {
		t.Fatal(err)
	}
	return extentsOf(c)
}

func TestAllocContiguousAndAdjacent(t *testing.T) {
	v := allocVolume(t)
	free := v.FreeClusters()
	a, err := v.allocate(100, 0)
	if err != nil {
		t.Fatal(err)
	}
	// FSINFO's hint after formatting is the root cluster (2): allocation
	// starts right after it.
	if len(a) != 1 || a[0].Start != 3 || a[0].Len != 100 {
		t.Fatalf("first file: %v, want one run of 100 from cluster 3", a)
	}
	b, err := v.allocate(50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1 || b[0].Start != a[0].End() {
		t.Fatalf("second file: %v, want it right after the first (%d)", b, a[0].End())
	}
	if got := chainOf(t, v, a[0].Start); len(got) != 1 || got[0] != a[0] {
		t.Fatalf("first chain %v, want %v", got, a)
	}
	if v.FreeClusters() != free-150 || v.info.NextFree != uint32(b[0].End()-1) {
		t.Fatalf("free %d (want %d), next free %d (want %d)", v.FreeClusters(), free-150, v.info.NextFree, b[0].End()-1)
	}
	// Extending the first chain cannot grow in place (the second file
	// follows it), so it continues after the cursor.
	c, err := v.allocate(10, a[0].End()-1)
	if err != nil {
		t.Fatal(err)
	}
	if got := chainOf(t, v, a[0].Start); len(got) != 2 || got[1] != c[0] {
		t.Fatalf("extended chain %v, want %v then %v", got, a[0], c[0])
	}
	// Extending the last chain grows it in place.
	d, err := v.allocate(10, c[0].End()-1)
	if err != nil {
		t.Fatal(err)
	}
	if d[0].Start != c[0].End() {
		t.Fatalf("in-place extension got %v, want a run at %d", d, c[0].End())
	}
}

// A volume whose free space is in pieces: a request larger than any piece
// takes the largest pieces, the fewest that hold it, in disk order.
func TestAllocFragmented(t *testing.T) {
	v := allocVolume(t)
	max := v.layout.MaxCluster()
	// Leave free runs of 5, 20, 10 and 40 clusters; everything else used.
	free := map[Cluster]uint32{1000: 5, 2000: 20, 3000: 10, 4000: 40}
	for c := Cluster(3); c <= max; c++ {
		v.table.Set(c, v.table.EOC())
	}
	n := uint32(0)
	for s, l := range free {
		for c := s; c < s+Cluster(l); c++ {
			v.table.Set(c, 0)
		}
		n += l
	}
	if got := v.FreeClusters(); got != n {
		t.Fatalf("free count %d, want %d", got, n)
	}
	v.cursor = 2
	exts, err := v.allocate(55, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Extent{{2000, 15}, {4000, 40}}
	if len(exts) != 2 || exts[0] != want[0] || exts[1] != want[1] {
		t.Fatalf("fragmented allocation %v, want %v (the two largest runs, in disk order)", exts, want)
	}
	if got := chainOf(t, v, 2000); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("chain %v, want %v", got, want)
	}
	// A request that fits one run takes the first that fits from the
	// cursor.
	exts, err = v.allocate(8, 0)
	if err != nil || len(exts) != 1 || exts[0].Start != 3000 {
		t.Fatalf("8 clusters: %v %v, want the run at 3000", exts, err)
	}
}

// The search wraps around: from a cursor near the end it goes on at the
// start.
func TestAllocWrapAround(t *testing.T) {
	v := allocVolume(t)
	max := v.layout.MaxCluster()
	// Use the last 100 clusters but 10, put the cursor there.
	for c := max - 99; c <= max-10; c++ {
		v.table.Set(c, v.table.EOC())
	}
	v.cursor = max - 9
	exts, err := v.allocate(20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exts) != 1 || exts[0].Start != 3 {
		t.Fatalf("after wrapping: %v, want one run from cluster 3", exts)
	}
	// The 10 at the end are still taken when they fit.
	v.cursor = max - 9
	exts, err = v.allocate(10, 0)
	if err != nil || len(exts) != 1 || exts[0].Start != max-9 {
		t.Fatalf("10 at the end: %v %v", exts, err)
	}
}

// A full volume: the request fails with the numbers, and nothing changes.
func TestAllocFull(t *testing.T) {
	v := allocVolume(t)
	free := v.FreeClusters()
	before := append([]byte(nil), v.table.Bytes()...)
	_, err := v.allocate(free+1, 0)
	var ns *NoSpaceError
	if !errors.As(err, &ns) || !errors.Is(err, ErrNoSpace) {
		t.Fatalf("over-allocation: %v, want a NoSpaceError", err)
	}
	if ns.Free != int64(free)*v.layout.ClusterSize || ns.Need != int64(free+1)*v.layout.ClusterSize {
		t.Fatalf("NoSpaceError %+v, want need %d free %d", ns, int64(free+1)*v.layout.ClusterSize, int64(free)*v.layout.ClusterSize)
	}
	if err.Error() != fmt.Sprintf("no space left on volume: need %d bytes, %d free", ns.Need, ns.Free) {
		t.Fatalf("message %q", err)
	}
	if v.FreeClusters() != free || string(before) != string(v.table.Bytes()) || v.dirty.Set {
		t.Fatal("a refused allocation changed the volume")
	}
	// Exactly the free space fits.
	exts, err := v.allocate(free, 0)
	if err != nil || v.FreeClusters() != 0 {
		t.Fatalf("allocating all %d free clusters: %v (free now %d)", free, err, v.FreeClusters())
	}
	total := uint32(0)
	for _, e := range exts {
		total += e.Len
	}
	if total != free {
		t.Fatalf("got %d clusters, want %d", total, free)
	}
}
