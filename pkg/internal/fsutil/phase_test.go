package fsutil

import (
	"errors"
	"slices"
	"testing"
)

// A phase with work puts its barrier before its writes and stops at the
// first error; one without work does nothing, not even the barrier.
func TestPhase(t *testing.T) {
	fail := errors.New("write failed")
	var did []string
	step := func(name string, err error) func() error {
		return func() error { did = append(did, name); return err }
	}
	for _, tc := range []struct {
		work    bool
		barrier error
		want    []string
		err     error
	}{
		{false, nil, nil, nil},
		{true, nil, []string{"barrier", "a", "b"}, fail},
		{true, fail, []string{"barrier"}, fail},
	} {
		did = nil
		err := Phase(tc.work, step("barrier", tc.barrier), step("a", nil), step("b", fail), step("c", nil))
		if !slices.Equal(did, tc.want) || !errors.Is(err, tc.err) {
			t.Errorf("work %v, barrier error %v: did %v (%v), want %v (%v)", tc.work, tc.barrier, did, err, tc.want, tc.err)
		}
	}
}
