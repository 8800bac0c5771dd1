package fat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// First-fit takes free clusters in order from FSINFO's next free cluster
// + 1, through the holes it meets; contiguous-first looks for one run.
func TestAllocFirstFit(t *testing.T) {
	cases := []struct {
		name   string
		policy AllocPolicy
		want   []Extent
	}{
		// Used: 3-12 (a), 13-22 (b), 23-32 (c); then a and c freed, so
		// the holes are 3-12 and 23-32. A 15-cluster file after a next
		// free hint of 4 starts at cluster 5.
		{"first-fit", AllocFirstFit, []Extent{{5, 8}, {23, 7}}},
		{"contiguous", AllocContiguous, []Extent{{23, 15}}}, // the first run that holds it
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := allocVolume(t)
			var runs [][]Extent
			for range 3 {
				e, err := v.allocate(10, 0)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, e)
			}
			if runs[0][0].Start != 3 || runs[2][0].End() != 33 {
				t.Fatalf("set-up: %v", runs)
			}
			v.trimExtents(&runs[0], 0)
			v.trimExtents(&runs[2], 0)
			if err := v.SetNextCluster(4); err != nil {
				t.Fatal(err)
			}
			v.cursor = v.cursorStart()
			v.SetAllocPolicy(tc.policy)
			got, err := v.allocate(15, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("15 clusters (-want +got):\n%s", diff)
			}
			if c := chainOf(t, v, got[0].Start); !cmp.Equal(c, tc.want) {
				t.Fatalf("the FAT chains %v, want %v", c, tc.want)
			}
			// The next file continues after the last cluster taken.
			next, err := v.allocate(1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want[len(tc.want)-1].End(); next[0].Start != want {
				t.Fatalf("next file starts at %d, want %d", next[0].Start, want)
			}
		})
	}
}

// First-fit wraps around to cluster 2 when it reaches the end.
func TestAllocFirstFitWraps(t *testing.T) {
	v := allocVolume(t)
	v.SetAllocPolicy(AllocFirstFit)
	max := v.layout.MaxCluster()
	if _, err := v.allocate(5, 0); err != nil { // 3-7
		t.Fatal(err)
	}
	v.cursor = max - 1
	got, err := v.allocate(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Extent{{max - 1, 2}, {8, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
