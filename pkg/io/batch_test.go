package io

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// call is one request seen by fakeBackend, written "R off+len" / "W off+len" / "Z off+len".
type call = string

// fakeBackend is an in-memory backend that records every request and, when
// direct, checks that each one is aligned as O_DIRECT demands.
type fakeBackend struct {
	memBackend
	t        *testing.T
	align    int64
	bufAlign int
	calls    []call
	einval   bool // refuse direct requests with EINVAL until dropDirect
	dropped  bool
	noZero   bool
	mu       sync.Mutex // a Stream writes from several goroutines
}

func (f *fakeBackend) checkAligned(p []byte, off int64) error {
	if f.align <= 1 || f.dropped {
		return nil
	}
	if f.einval {
		return syscall.EINVAL
	}
	end := off + int64(len(p))
	if off%f.align != 0 || (end%f.align != 0 && end != int64(len(f.data))) || !isAligned(p, f.bufAlign) {
		f.t.Errorf("unaligned direct request: %d bytes at %d (align %d)", len(p), off, f.align)
	}
	return nil
}

func (f *fakeBackend) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkAligned(p, off); err != nil {
		return 0, err
	}
	f.calls = append(f.calls, fmt.Sprintf("R %d+%d", off, len(p)))
	return f.memBackend.ReadAt(p, off)
}

func (f *fakeBackend) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkAligned(p, off); err != nil {
		return 0, err
	}
	f.calls = append(f.calls, fmt.Sprintf("W %d+%d", off, len(p)))
	return f.memBackend.WriteAt(p, off)
}

func (f *fakeBackend) Zero(off, n int64) error {
	if f.noZero {
		return errZeroUnsupported
	}
	f.calls = append(f.calls, fmt.Sprintf("Z %d+%d", off, n))
	return f.memBackend.Zero(off, n)
}

func (f *fakeBackend) dropDirect() error {
	f.dropped = true
	return nil
}

// newFake returns a writable device of size bytes over a recording backend.
func newFake(t *testing.T, size int64, align, ioSize int) (*Device, *fakeBackend) {
	fb := &fakeBackend{memBackend: memBackend{data: make([]byte, size)}, t: t, align: int64(align), bufAlign: align}
	d := newDevice(fb, "fake", size, 512, align, ioSize, align > 1, true, SyncNone)
	return d, fb
}

type span struct {
	off int64
	n   int
}

func TestBatchFlushRequests(t *testing.T) {
	tests := []struct {
		name   string
		size   int64 // device size, default 64 KiB
		align  int
		ioSize int
		writes []span
		want   []call
	}{
		{"empty flush", 0, 512, 4096, nil, nil},
		{"one aligned block", 0, 512, 4096, []span{{0, 512}}, []call{"W 0+512"}},
		{"adjacent merge", 0, 512, 4096, []span{{0, 512}, {512, 512}}, []call{"W 0+1024"}},
		{"adjacent out of order", 0, 512, 4096, []span{{512, 512}, {0, 512}}, []call{"W 0+1024"}},
		{"overlap merges", 0, 512, 4096, []span{{0, 1024}, {256, 512}}, []call{"W 0+1024"}},
		{"disjoint stay separate", 0, 512, 4096, []span{{2048, 512}, {0, 512}}, []call{"W 0+512", "W 2048+512"}},
		{"unaligned edges read only edge blocks", 0, 512, 4096, []span{{100, 1000}}, []call{"R 0+512", "R 1024+512", "W 0+1536"}},
		{"one byte", 0, 512, 4096, []span{{700, 1}}, []call{"R 512+512", "W 512+512"}},
		{"two bytes in one block", 0, 512, 4096, []span{{20, 1}, {10, 1}}, []call{"R 0+512", "W 0+512"}},
		{"runs sharing a block merge", 0, 512, 4096, []span{{0, 100}, {400, 100}}, []call{"R 0+512", "W 0+512"}},
		{"split at IOSize", 0, 512, 4096, []span{{0, 10000}}, []call{"W 0+4096", "W 4096+4096", "R 9728+512", "W 8192+2048"}},
		{"split with unaligned start", 0, 512, 4096, []span{{100, 8192}}, []call{"R 0+512", "W 0+4096", "W 4096+4096", "R 8192+512", "W 8192+512"}},
		{"4K alignment", 0, 4096, 8192, []span{{5000, 10}}, []call{"R 4096+4096", "W 4096+4096"}},
		{"buffered needs no reads", 0, 1, 4096, []span{{100, 1000}, {1100, 5}, {3000, 1}}, []call{"W 100+1005", "W 3000+1"}},
		{"buffered split at IOSize", 0, 1, 4096, []span{{1, 5000}}, []call{"W 1+4096", "W 4097+904"}},
		{"odd-sized device tail", 65536 + 100, 512, 4096, []span{{65586, 10}}, []call{"R 65536+100", "W 65536+100"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == 0 {
				size = 64 << 10
			}
			d, fb := newFake(t, size, tc.align, tc.ioSize)
			rng := rand.New(rand.NewPCG(1, 2))
			fill(rng, fb.data) // so read-modify-write has something to keep
			shadow := bytes.Clone(fb.data)
			b := d.NewBatch()
			for _, w := range tc.writes {
				p := make([]byte, w.n)
				fill(rng, p)
				copy(shadow[w.off:], p)
				if err := b.Write(w.off, p); err != nil {
					t.Fatal(err)
				}
				clear(p) // the batch must have copied it
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, fb.calls); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if !bytes.Equal(fb.data, shadow) {
				t.Errorf("device bytes differ from the shadow")
			}
			st := d.Stats()
			var nw, nr int64
			for _, c := range fb.calls {
				switch c[0] {
				case 'W':
					nw++
				case 'R':
					nr++
				}
			}
			if st.WriteRequests != nw || st.ReadRequests != nr {
				t.Errorf("stats count %d writes, %d reads; backend saw %d, %d", st.WriteRequests, st.ReadRequests, nw, nr)
			}
			if b.Pending() != 0 {
				t.Errorf("Pending after Flush = %d", b.Pending())
			}
		})
	}
}

func TestBatchOverlapLaterWins(t *testing.T) {
	d, fb := newFake(t, 8192, 512, 4096)
	b := d.NewBatch()
	must(t, b.Write(0, bytes.Repeat([]byte{'A'}, 1024)))
	must(t, b.Write(256, bytes.Repeat([]byte{'B'}, 512)))
	must(t, b.Write(0, []byte{'C'}))
	must(t, b.Write(300, bytes.Repeat([]byte{'D'}, 10)))
	must(t, b.Flush())
	want := bytes.Repeat([]byte{'A'}, 1024)
	want[0] = 'C'
	copy(want[256:], bytes.Repeat([]byte{'B'}, 512))
	copy(want[300:], bytes.Repeat([]byte{'D'}, 10))
	if !bytes.Equal(fb.data[:1024], want) {
		t.Errorf("merged bytes wrong:\n got %q\nwant %q", fb.data[:1024], want)
	}
	if diff := cmp.Diff([]call{"W 0+1024"}, fb.calls); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestBatchAutoFlush(t *testing.T) {
	d, fb := newFake(t, 1<<20, 512, 4096)
	b := d.NewBatch()
	for i := range 4 { // exactly 4*IOSize pending: no flush yet
		must(t, b.Write(int64(i)*8192, make([]byte, 4096)))
	}
	if len(fb.calls) != 0 || b.Pending() != 4*4096 {
		t.Fatalf("flushed early: %v, pending %d", fb.calls, b.Pending())
	}
	must(t, b.Write(100000, []byte{1}))
	if b.Pending() != 0 || len(fb.calls) != 6 { // 4 disjoint writes + RMW of the byte
		t.Fatalf("no auto flush past 4*IOSize: pending %d, calls %v", b.Pending(), fb.calls)
	}
	// A single large write never holds more than about 5*IOSize.
	fb.calls = nil
	must(t, b.Write(0, make([]byte, 100000)))
	if b.Pending() > 5*4096 {
		t.Errorf("pending %d after a large write", b.Pending())
	}
	must(t, b.Flush())
	for _, c := range fb.calls {
		var off, n int64
		fmt.Sscanf(c[2:], "%d+%d", &off, &n)
		if n > 4096 {
			t.Errorf("request larger than IOSize: %s", c)
		}
	}
}

// WriteShared keeps the caller's bytes instead of copying them, and the
// writes are those Write makes: the same requests, auto-flushes included.
func TestBatchWriteShared(t *testing.T) {
	var calls [2][]call
	var data [2][]byte
	for k, shared := range []bool{false, true} {
		d, fb := newFake(t, 1<<20, 512, 4096)
		b := d.NewBatch()
		for i := range 40 {
			p := bytes.Repeat([]byte{byte(i + 1)}, 512+i*100)
			off := int64(i) * 5000
			if shared {
				must(t, b.WriteShared(off, p))
			} else {
				must(t, b.Write(off, p))
			}
		}
		if shared && cap(b.data) != 0 {
			t.Errorf("WriteShared copied %d bytes", cap(b.data))
		}
		must(t, b.Flush())
		calls[k], data[k] = fb.calls, fb.data
	}
	if diff := cmp.Diff(calls[0], calls[1]); diff != "" {
		t.Errorf("requests, Write -, WriteShared +:\n%s", diff)
	}
	if !bytes.Equal(data[0], data[1]) {
		t.Error("WriteShared wrote other bytes than Write")
	}
}

func TestBatchRandomAgainstShadow(t *testing.T) {
	for _, align := range []int{1, 512, 4096} {
		t.Run(fmt.Sprint("align", align), func(t *testing.T) {
			const size = 1<<20 + 300 // odd size exercises the tail
			d, fb := newFake(t, size, align, 16384)
			rng := rand.New(rand.NewPCG(uint64(align), 7))
			shadow := make([]byte, size)
			b := d.NewBatch()
			for i := range 3000 {
				n := 1 + rng.IntN(3000)
				if i%100 == 0 {
					n = rng.IntN(70000)
				}
				off := rng.Int64N(size - int64(n))
				p := make([]byte, n)
				fill(rng, p)
				copy(shadow[off:], p)
				if rng.IntN(10) == 0 {
					must(t, b.Flush()) // queued writes are older than this one
					_, err := d.WriteAt(p, off)
					must(t, err)
				} else if rng.IntN(2) == 0 {
					must(t, b.WriteShared(off, p)) // p is not changed after
				} else {
					must(t, b.Write(off, p))
				}
				if rng.IntN(50) == 0 {
					must(t, b.Flush())
				}
			}
			must(t, b.Flush())
			if !bytes.Equal(fb.data, shadow) {
				t.Fatal("device differs from shadow")
			}
			for range 200 {
				n := rng.IntN(40000)
				off := rng.Int64N(size - int64(n))
				got := make([]byte, n+1)[1:] // misaligned buffer
				if _, err := d.ReadAt(got, off); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, shadow[off:off+int64(n)]) {
					t.Fatalf("ReadAt(%d, %d) differs from shadow", n, off)
				}
			}
		})
	}
}

func TestEINVALFallsBackToBuffered(t *testing.T) {
	d, fb := newFake(t, 8192, 512, 4096)
	fb.einval = true
	if _, err := d.WriteAt([]byte("hello"), 3); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.Direct || st.Fallback == "" || d.Align() != 1 {
		t.Errorf("after EINVAL: direct %v, align %d, fallback %q", st.Direct, d.Align(), st.Fallback)
	}
	if string(fb.data[3:8]) != "hello" {
		t.Errorf("data not written after fallback: %q", fb.data[:8])
	}
}

func TestEINVALAfterSuccessIsAnError(t *testing.T) {
	d, fb := newFake(t, 8192, 512, 4096)
	_, err := d.WriteAt(make([]byte, 512), 0)
	must(t, err)
	fb.einval = true
	if _, err := d.WriteAt(make([]byte, 512), 0); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("EINVAL after a successful direct write: got %v", err)
	}
}

func TestBoundsAndReadOnly(t *testing.T) {
	d, _ := newFake(t, 4096, 512, 4096)
	for _, c := range []struct {
		off int64
		n   int
	}{{4096, 1}, {4000, 97}, {-1, 1}} {
		if _, err := d.ReadAt(make([]byte, c.n), c.off); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("ReadAt(%d bytes at %d) = %v, want ErrOutOfRange", c.n, c.off, err)
		}
		if _, err := d.WriteAt(make([]byte, c.n), c.off); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("WriteAt(%d bytes at %d) = %v, want ErrOutOfRange", c.n, c.off, err)
		}
	}
	if _, err := d.ReadAt(nil, 4096); err != nil {
		t.Errorf("empty read at the end: %v", err)
	}
	d.writable = false
	if _, err := d.WriteAt([]byte{1}, 0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("write to read-only device: %v", err)
	}
}

func TestZeroFake(t *testing.T) {
	d, fb := newFake(t, 64<<10, 512, 4096)
	for i := range fb.data {
		fb.data[i] = 0xff
	}
	must(t, d.Zero(100, 3000))
	want := []call{"R 0+512", "W 0+512", "Z 512+2560", "R 3072+512", "W 3072+512"}
	if diff := cmp.Diff(want, fb.calls); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	checkZeroed(t, fb.data, 100, 3000)
	if st := d.Stats(); st.ZeroRequests != 1 || st.ZeroBytes != 2560 {
		t.Errorf("zero stats %d requests %d bytes", st.ZeroRequests, st.ZeroBytes)
	}
	// Without cheap zeroing the middle is written from a zero buffer.
	fb.noZero, fb.calls = true, nil
	for i := range fb.data {
		fb.data[i] = 0xff
	}
	must(t, d.Zero(0, 10000))
	want = []call{"W 0+4096", "W 4096+4096", "W 8192+1536", "R 9728+512", "W 9728+512"}
	if diff := cmp.Diff(want, fb.calls); diff != "" {
		t.Errorf("fallback requests (-want +got):\n%s", diff)
	}
	checkZeroed(t, fb.data, 0, 10000)
}

func checkZeroed(t *testing.T, data []byte, off, n int) {
	t.Helper()
	for i, c := range data {
		in := i >= off && i < off+n
		if in && c != 0 || !in && c != 0xff {
			t.Fatalf("byte %d = %#x after Zero(%d, %d)", i, c, off, n)
		}
	}
}

func TestMemDevice(t *testing.T) {
	d := NewMemDevice(1<<20, 512)
	if d.Size() != 1<<20 || d.SectorSize() != 512 || !d.Writable() || d.Align() != 1 {
		t.Fatalf("mem device: size %d sector %d writable %v align %d", d.Size(), d.SectorSize(), d.Writable(), d.Align())
	}
	_, err := d.WriteAt([]byte("abc"), 1000)
	must(t, err)
	got := make([]byte, 3)
	_, err = d.ReadAt(got, 1000)
	must(t, err)
	must(t, d.Zero(1001, 1))
	_, err = d.ReadAt(got, 1000)
	must(t, err)
	if string(got) != "a\x00c" {
		t.Errorf("read %q", got)
	}
	st := d.Stats()
	if st.WriteRequests != 1 || st.WriteBytes != 3 || st.ReadRequests != 2 || st.ZeroRequests != 1 {
		t.Errorf("stats %+v", st)
	}
	must(t, d.Close())
	if _, err := d.ReadAt(got, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("read after close: %v", err)
	}
}

func fill(rng *rand.Rand, p []byte) {
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
