package fsutil

import (
	"slices"
	"testing"
)

// A Chain counts its clusters, knows its last one, merges runs that touch
// as they are appended, and says when it holds more than the entry on
// disk names.
func TestChain(t *testing.T) {
	id := func(r Run) Run { return r }
	c := Chain[Run]{Run: id, Of: id}
	if c.Clusters() != 0 || c.Last() != 0 || c.Grown() {
		t.Fatalf("empty chain: %d clusters, last %d, grown %v", c.Clusters(), c.Last(), c.Grown())
	}
	c.Append([]Run{{10, 2}, {12, 3}, {20, 1}})
	if want := []Run{{10, 5}, {20, 1}}; !slices.Equal(c.Runs, want) {
		t.Errorf("runs %v, want %v", c.Runs, want)
	}
	if c.Clusters() != 6 || c.Last() != 20 || !c.Grown() {
		t.Errorf("%d clusters, last %d, grown %v; want 6, 20, true", c.Clusters(), c.Last(), c.Grown())
	}
	if kept, cut := c.Split(3); !slices.Equal(kept, []Run{{10, 3}}) || !slices.Equal(cut, []Run{{13, 2}, {20, 1}}) {
		t.Errorf("Split(3): %v, %v", kept, cut)
	}
	if c.Need(6*512, 512) != 0 || c.Need(6*512+1, 512) != 1 {
		t.Errorf("Need: %d for 6 clusters' bytes, %d for one more", c.Need(6*512, 512), c.Need(6*512+1, 512))
	}
	c.Recorded()
	if c.OnDisk != 6 || c.Grown() {
		t.Errorf("recorded: on disk %d, grown %v", c.OnDisk, c.Grown())
	}
}
