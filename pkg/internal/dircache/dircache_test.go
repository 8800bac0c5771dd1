package dircache

import (
	"errors"
	"testing"
)

// TestSettleWrite commits only when the charge stays over the dirty budget
// and the codec has changes to commit, settles again after a commit, and
// passes a failed commit's error on without settling again.
func TestSettleWrite(t *testing.T) {
	fail := errors.New("commit failed")
	for _, tc := range []struct {
		name      string
		raw       int // raw bytes of the one cached directory
		pending   bool
		commitErr error
		commits   int
		settles   int
	}{
		{"under budget", 10, true, nil, 0, 1},
		{"at budget", 25, true, nil, 0, 1},
		{"over budget, nothing pending", 26, false, nil, 0, 1},
		{"over budget, pending", 26, true, nil, 1, 2},
		{"commit fails", 26, true, fail, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Cache
			var n Node
			c.Add(&n, "dir", tc.raw)
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
