package dircache

import (
	"errors"
	"testing"
)

// TestSettleWrite commits only when the charge stays over the dirty budget
// and the codec has changes to commit, settles again after a commit, and
// passes a failed commit's error on without settling again. The most
// recently used directory, which Settle keeps whatever a commit does, is
// not counted: one folder over the budget on its own does not commit on
// every change.
func TestSettleWrite(t *testing.T) {
	fail := errors.New("commit failed")
	for _, tc := range []struct {
		name      string
		raw       int // raw bytes of the older cached directory
		front     int // raw bytes of the most recently used one
		pending   bool
		commitErr error
		commits   int
		settles   int
	}{
		{"under budget", 10, 1, true, nil, 0, 1},
		{"at budget", 25, 1, true, nil, 0, 1},
		{"over budget, nothing pending", 26, 1, false, nil, 0, 1},
		{"over budget, pending", 26, 1, true, nil, 1, 2},
		{"commit fails", 26, 1, true, fail, 1, 1},
		{"only the most recent over budget", 1, 1000, true, nil, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Cache
			var old, front Node
			c.Add(&old, "old", tc.raw)
			c.Add(&front, "front", tc.front)
			commits, settles := 0, 0
			settle := func() { settles++ }
			commit := func() error { commits++; return tc.commitErr }
			err := c.SettleWrite(CostFactor*25, settle, tc.pending, commit)
			if !errors.Is(err, tc.commitErr) || (tc.commitErr == nil) != (err == nil) {
				t.Errorf("err %v, want %v", err, tc.commitErr)
			}
			if commits != tc.commits || settles != tc.settles {
				t.Errorf("%d commits, %d settles; want %d, %d", commits, settles, tc.commits, tc.settles)
			}
		})
	}
}

// TestSettleDropsReleasedParents drops, in one Settle, a parent that was
// pinned by its children until they were dropped later in the same pass
// (exFAT's directories pin their parents, which are older on the list).
func TestSettleDropsReleasedParents(t *testing.T) {
	var c Cache
	var parent, kid, front Node
	c.Add(&parent, "parent", 100)
	c.Add(&kid, "kid", 100)
	c.Add(&front, "front", 1)
	parent.Pin()
	var dropped []string
	c.Settle(CostFactor*10, func(owner any) bool {
		switch owner {
		case "parent":
			if parent.Pinned() {
				return false
			}
		case "kid":
			parent.Unpin()
		}
		dropped = append(dropped, owner.(string))
		return true
	})
	if c.Len() != 1 || len(dropped) != 2 || dropped[0] != "kid" || dropped[1] != "parent" {
		t.Errorf("dropped %v, %d left; want [kid parent], 1 left", dropped, c.Len())
	}
}
