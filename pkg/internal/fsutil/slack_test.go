package fsutil

import (
	"bytes"
	"testing"
)

// PadSlack zeroes from the file's end to its last cluster's end, in pieces
// of the shared block, and nothing for an empty file or a full cluster.
func TestPadSlack(t *testing.T) {
	const cs = 128 << 10
	for _, tc := range []struct{ written, want int64 }{
		{0, 0}, {1, cs - 1}, {cs - 1, 1}, {cs, 0}, {cs + 1, cs - 1}, {3*cs + 10, cs - 10},
	} {
		var got int64
		pos := tc.written
		err := PadSlack(func(p []byte, at int64) (int, error) {
			if at != pos || !bytes.Equal(p, make([]byte, len(p))) || len(p) > len(zeroBlock) {
				t.Errorf("written %d: %d bytes at %d, want zeros at %d", tc.written, len(p), at, pos)
			}
			pos += int64(len(p))
			got += int64(len(p))
			return len(p), nil
		}, tc.written, cs)
		if err != nil || got != tc.want {
			t.Errorf("written %d: padded %d (%v), want %d", tc.written, got, err, tc.want)
		}
	}
}
