package fsutil

import (
	"errors"
	"fmt"
	"testing"
)

// Changed slots mark the sectors they lie in; the flush writes those
// sectors in order at their device offsets, then forgets them, and
// keeps them after a failed write.
func TestFlushSectors(t *testing.T) {
	dirty := map[int]struct{}{}
	MarkSectors(dirty, 15, 2, 16) // slots 15, 16: sectors 0 and 1
	MarkSectors(dirty, 64, 1, 16) // sector 4
	raw := make([]byte, 5*512)
	at := func(off int64) (int64, error) { return 10000 + off, nil }
	var got []string
	write := func(dev int64, p []byte) error { got = append(got, fmt.Sprint(dev, len(p))); return nil }
	eio := errors.New("eio")
	if err := FlushSectors(dirty, raw, 512, at, func(int64, []byte) error { return eio }); err != eio || len(dirty) != 3 {
		t.Fatalf("failed flush: %v, %d sectors still dirty", err, len(dirty))
	}
	if err := FlushSectors(dirty, raw, 512, at, write); err != nil || len(dirty) != 0 {
		t.Fatalf("flush: %v, %d sectors still dirty", err, len(dirty))
	}
	if fmt.Sprint(got) != "[10000 512 10512 512 12048 512]" {
		t.Errorf("writes %v", got)
	}
}
