package readahead

import (
	"slices"
	"testing"
)

// Runs covers exactly size bytes: the last run it takes is cut short, the
// runs past size are left out.
func TestRuns(t *testing.T) {
	type run struct{ start, clusters int64 }
	runs := []run{{2, 3}, {10, 1}, {20, 4}}
	place := func(r run) (int64, int64) { return 1000 + r.start*512, r.clusters * 512 }
	for _, tc := range []struct {
		size int64
		want []Piece
	}{
		{0, nil},
		{1, []Piece{{2024, 1}}},
		{1536, []Piece{{2024, 1536}}},
		{1537, []Piece{{2024, 1536}, {6120, 1}}},
		{2048 + 100, []Piece{{2024, 1536}, {6120, 512}, {11240, 100}}},
		{1 << 20, []Piece{{2024, 1536}, {6120, 512}, {11240, 2048}}},
	} {
		if got := Runs(runs, tc.size, place); !slices.Equal(got, tc.want) {
			t.Errorf("size %d: got %v, want %v", tc.size, got, tc.want)
		}
	}
}
