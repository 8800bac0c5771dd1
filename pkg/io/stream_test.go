package io

import (
	"bytes"
	"errors"
	"fmt"
	goio "io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// A stream turns contiguous pieces into full IOSize requests, with no
// reads when the run starts and ends aligned.
func TestStreamRequests(t *testing.T) {
	d, fb := newFake(t, 16<<20, 512, 1<<20)
	s := d.NewStream()
	p := bytes.Repeat([]byte{7}, 1000)
	off := int64(0)
	for off < 10<<20 {
		n := min(int64(len(p)), 10<<20-off)
		must(t, s.Write(off, p[:n]))
		off += n
	}
	must(t, s.Close())
	var writes, reads int
	for _, c := range fb.calls {
		switch {
		case strings.HasPrefix(c, "W ") && strings.HasSuffix(c, fmt.Sprintf("+%d", 1<<20)):
			writes++
		case strings.HasPrefix(c, "R "):
			reads++
		default:
			t.Errorf("unexpected request %s", c)
		}
	}
	if writes != 10 || reads != 0 {
		t.Fatalf("%d full writes and %d reads, want 10 and 0: %v", writes, reads, fb.calls)
	}
	if st := d.Stats(); st.WriteRequests != 10 || st.WriteBytes != 10<<20 {
		t.Fatalf("stats: %+v", st)
	}
}

// An unaligned start or end reads exactly the edge blocks it needs.
func TestStreamEdges(t *testing.T) {
	d, fb := newFake(t, 1<<20, 4096, 1<<16)
	copy(fb.data, bytes.Repeat([]byte{9}, 1<<20))
	s := d.NewStream()
	must(t, s.Write(5000, bytes.Repeat([]byte{1}, 3000)))
	must(t, s.Close())
	want := []string{"R 4096+4096", "R 4096+4096", "W 4096+4096"}
	if strings.Join(fb.calls, ",") != strings.Join(want, ",") {
		t.Fatalf("requests %v, want %v", fb.calls, want)
	}
	if fb.data[4999] != 9 || fb.data[5000] != 1 || fb.data[7999] != 1 || fb.data[8000] != 9 {
		t.Fatal("the edge bytes around the write were not kept")
	}
}

// Random runs of pieces, some contiguous, some jumping, some unaligned, with
// batch writes in between, give the same bytes as a shadow copy.
func TestStreamAgainstShadow(t *testing.T) {
	for _, align := range []int{1, 512, 4096} {
		t.Run(fmt.Sprint("align", align), func(t *testing.T) {
			const size = 4<<20 + 300
			d, fb := newFake(t, size, align, 64<<10)
			rng := rand.New(rand.NewPCG(uint64(align), 11))
			shadow := make([]byte, size)
			s := d.NewStream()
			off := int64(0)
			for i := range 4000 {
				if rng.IntN(20) == 0 {
					off = rng.Int64N(size - 100000)
				}
				n := 1 + rng.IntN(20000)
				if off+int64(n) > size {
					off = 0
				}
				p := make([]byte, n)
				fill(rng, p)
				copy(shadow[off:], p)
				if rng.IntN(2) == 0 {
					must(t, s.Write(off, p))
				} else {
					// Straight into the buffers, in short reads.
					k, err := s.ReadFrom(off, iotest.HalfReader(bytes.NewReader(p)), int64(n))
					must(t, err)
					if k != int64(n) {
						t.Fatalf("ReadFrom took %d of %d bytes", k, n)
					}
				}
				off += int64(n)
				if i%500 == 0 {
					// Metadata goes out after the data it refers to.
					must(t, s.Flush())
					q := make([]byte, 1+rng.IntN(600))
					fill(rng, q)
					at := rng.Int64N(size - int64(len(q)))
					copy(shadow[at:], q)
					_, err := d.WriteAt(q, at)
					must(t, err)
				}
			}
			must(t, s.Close())
			if !bytes.Equal(fb.data, shadow) {
				t.Fatal("device differs from shadow")
			}
		})
	}
}

// ReadFrom stops where its reader ends, and passes on its reader's error,
// keeping what it read before.
func TestStreamReadFromEnds(t *testing.T) {
	d, fb := newFake(t, 1<<20, 512, 64<<10)
	s := d.NewStream()
	p := bytes.Repeat([]byte{5}, 100000)
	k, err := s.ReadFrom(1000, bytes.NewReader(p), 300000)
	if k != int64(len(p)) || err != nil {
		t.Fatalf("ReadFrom of a short reader: %d, %v", k, err)
	}
	boom := errors.New("boom")
	k, err = s.ReadFrom(200000, goio.MultiReader(bytes.NewReader(p[:7000]), iotest.ErrReader(boom)), 50000)
	if k != 7000 || !errors.Is(err, boom) {
		t.Fatalf("ReadFrom of a failing reader: %d, %v", k, err)
	}
	must(t, s.Close())
	if !bytes.Equal(fb.data[1000:101000], p) || fb.data[999] != 0 || fb.data[101000] != 0 || !bytes.Equal(fb.data[200000:207000], p[:7000]) {
		t.Fatal("the bytes read did not land where they belong")
	}
	if _, err := s.ReadFrom(1<<20-10, bytes.NewReader(p), 11); err == nil {
		t.Fatal("ReadFrom past the end of the device: no error")
	}
}
