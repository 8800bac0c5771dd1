package resize

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestRelocate(t *testing.T) {
	errNone := errors.New("no room")
	for _, tc := range []struct {
		name  string
		runs  []Run
		end   uint32
		free  []Run // handed out in order, split as asked
		out   []Run
		moves []Move
		err   error
	}{
		{"all below", []Run{{2, 5}, {10, 3}}, 20, nil, []Run{{2, 5}, {10, 3}}, nil, nil},
		{"across the end", []Run{{15, 10}}, 20, []Run{{3, 5}}, []Run{{15, 5}, {3, 5}}, []Move{{20, 3, 5}}, nil},
		{"past, in two pieces", []Run{{30, 6}}, 20, []Run{{4, 2}, {9, 4}}, []Run{{4, 2}, {9, 4}}, []Move{{30, 4, 2}, {32, 9, 4}}, nil},
		{"merged with what stays", []Run{{5, 3}, {40, 2}}, 20, []Run{{8, 2}}, []Run{{5, 5}}, []Move{{40, 8, 2}}, nil},
		{"no room", []Run{{40, 2}}, 20, nil, nil, nil, errNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			free := append([]Run(nil), tc.free...)
			take := func(n uint32) ([]Run, error) {
				var got []Run
				for n > 0 {
					if len(free) == 0 {
						return nil, errNone
					}
					r := free[0]
					k := min(r.Len, n)
					got = append(got, Run{r.Start, k})
					free[0].Start += k
					free[0].Len -= k
					if free[0].Len == 0 {
						free = free[1:]
					}
					n -= k
				}
				return got, nil
			}
			out, moves, err := Relocate(tc.runs, tc.end, take)
			if !errors.Is(err, tc.err) || !reflect.DeepEqual(out, tc.out) || !reflect.DeepEqual(moves, tc.moves) {
				t.Fatalf("Relocate = %v, %v, %v; want %v, %v, %v", out, moves, err, tc.out, tc.moves, tc.err)
			}
		})
	}
}

// TestCopierRequests copies 10 clusters of 4 bytes through a 12-byte
// buffer: in requests of 3 clusters at most, the bytes where they belong.
func TestCopierRequests(t *testing.T) {
	dev := make([]byte, 100)
	for i := range dev {
		dev[i] = byte(i)
	}
	var writes []int
	c := &Copier{
		ClusterSize: 4, Buf: make([]byte, 12),
		Offset: func(c uint32) int64 { return int64(c) * 4 },
		ReadAt: func(p []byte, off int64) (int, error) { return copy(p, dev[off:]), nil },
		Write: func(off int64, p []byte) error {
			writes = append(writes, len(p))
			copy(dev[off:], p)
			return nil
		},
	}
	want := append([]byte(nil), dev[0:40]...)
	if err := c.Copy(Move{From: 0, To: 12, Len: 10}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dev[48:88], want) || !reflect.DeepEqual(writes, []int{12, 12, 12, 4}) || c.Done != 40 {
		t.Fatalf("copied %v in writes %v (done %d)", dev[48:88], writes, c.Done)
	}
}
