package fat

import (
	"errors"
	"testing"
)

// planRootMoves' plan, played out, puts every record at its new place,
// never writes over a slot a live record holds, and never moves a record
// onto slots its own old copy holds (the copy must be whole before the
// old one goes). Roots without room are refused before any move.
func TestPlanRootMoves(t *testing.T) {
	cases := []struct {
		name  string
		total int
		// at and slots: each record's present slot and length, in the
		// new order.
		at, slots []int
		refuse    bool
	}{
		{"in order", 8, []int{0, 1, 3}, []int{1, 2, 1}, false},
		{"swap two", 8, []int{1, 0}, []int{1, 1}, false},
		{"reverse with room", 16, []int{6, 3, 0}, []int{2, 3, 3}, false},
		{"long after short", 12, []int{1, 0}, []int{3, 1}, false},
		{"overlapping self", 10, []int{2, 0}, []int{4, 2}, false},
		{"deleted gaps", 12, []int{9, 4, 0}, []int{1, 2, 3}, false},
		{"full, in order", 3, []int{0, 1, 2}, []int{1, 1, 1}, false},
		{"full, out of order", 3, []int{1, 0, 2}, []int{1, 1, 1}, true},
		{"one free, out of order", 4, []int{1, 0, 2}, []int{1, 1, 1}, false},
		{"no run long enough", 6, []int{3, 0}, []int{2, 3}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs := make([]Record, len(c.at))
			for i := range recs {
				recs[i] = Record{Slot: c.at[i], Slots: c.slots[i]}
			}
			moves, err := planRootMoves(recs, c.total)
			if c.refuse {
				if !errors.Is(err, ErrDirFull) {
					t.Fatalf("got %v, want a refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			occ := make([]int, c.total)
			cur := make([]int, len(recs))
			for i, r := range recs {
				cur[i] = r.Slot
				for s := r.Slot; s < r.Slot+r.Slots; s++ {
					occ[s] = i + 1
				}
			}
			for _, m := range moves {
				n := recs[m.rec].Slots
				if m.from != cur[m.rec] {
					t.Fatalf("move %+v: the record is at %d", m, cur[m.rec])
				}
				for s := m.to; s < m.to+n; s++ {
					if s >= c.total || occ[s] != 0 {
						t.Fatalf("move %+v writes over slot %d (held by %d)", m, s, occ[min(s, c.total-1)]-1)
					}
				}
				for s := m.to; s < m.to+n; s++ {
					occ[s] = m.rec + 1
				}
				for s := m.from; s < m.from+n; s++ {
					occ[s] = 0
				}
				cur[m.rec] = m.to
			}
			want := 0
			for i := range recs {
				if cur[i] != want {
					t.Errorf("record %d ends at slot %d, want %d", i, cur[i], want)
				}
				want += recs[i].Slots
			}
		})
	}
}
