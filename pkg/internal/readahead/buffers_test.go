package readahead

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	fio "github.com/ftools/ftools/pkg/io"
)

// Request buffers of 4 MiB start at a huge page, come back to the pool at
// Close and serve the next ReadAhead, which reads the same bytes.
func TestBuffersPooled(t *testing.T) {
	data, dev := randomDevice(t, 24<<20, 3)
	// Two files: one from byte 4096 (an aligned head), one after a gap.
	files := []Source{{Pieces: []Piece{{Off: 4096, Len: 10<<20 + 5}}}, {Pieces: []Piece{{Off: 12 << 20, Len: 9 << 20}}}}
	want := [][]byte{data[4096 : 4096+10<<20+5], data[12<<20 : 21<<20]}
	pooled := func() int {
		pool.Lock()
		defer pool.Unlock()
		return len(pool.free[4<<20])
	}
	for round := range 2 {
		before := pooled()
		ra := New(dev, files, Options{Workers: 2, Buffers: 3})
		if round == 1 && pooled() != before-3 {
			t.Errorf("round 2 took %d buffers from the pool of %d, want 3", before-pooled(), before)
		}
		for _, b := range ra.bufs {
			if uintptr(unsafe.Pointer(&b[0]))%hugePage != 0 || len(b) != 4<<20 {
				t.Fatalf("a buffer of %d bytes at %p: want 4 MiB at a huge page", len(b), &b[0])
			}
		}
		for i := range files {
			f, err := ra.File(i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(f)
			if err != nil || !bytes.Equal(got, want[i]) {
				t.Fatalf("round %d, file %d: %d bytes (%v), want the %d written", round, i, len(got), err, len(want[i]))
			}
		}
		ra.Close()
		if pooled() < 3 {
			t.Fatalf("round %d: %d buffers in the pool after Close, want 3 or more", round, pooled())
		}
	}
}

// Small files (their total size given, fewer than SmallFile bytes each on
// average) are read with two buffers of SmallRequest bytes, not the
// default five of the device's I/O size; the bytes read are the same.
// Options that set Workers or Buffers, or do not give the size, keep the
// default.
func TestSmallFilesTakeFewBuffers(t *testing.T) {
	data, dev := randomDevice(t, 16<<20, 5)
	// 3,000 files of 100 bytes, one a 4 KiB cluster, back to back.
	var files []Source
	for i := range 3000 {
		files = append(files, Source{Pieces: []Piece{{Off: int64(i) * 4096, Len: 100}}})
	}
	for _, c := range []struct {
		o          Options
		bufs, size int
	}{
		{Options{Bytes: 3000 * 100}, 2, SmallRequest},
		{Options{Bytes: 3000 * SmallFile}, 5, 4 << 20},
		{Options{}, 5, 4 << 20},
		{Options{Bytes: 3000 * 100, Buffers: 3}, 3, 4 << 20},
		{Options{Bytes: 3000 * 100, Workers: 2}, 4, 4 << 20},
	} {
		ra := New(dev, files, c.o)
		if len(ra.bufs) != c.bufs || len(ra.bufs[0]) != c.size {
			t.Errorf("%+v: %d buffers of %d bytes, want %d of %d", c.o, len(ra.bufs), len(ra.bufs[0]), c.bufs, c.size)
		}
		for i := range files {
			f, err := ra.File(i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(f)
			if off := i * 4096; err != nil || !bytes.Equal(got, data[off:off+100]) {
				t.Fatalf("%+v: file %d: %d bytes (%v), want its 100", c.o, i, len(got), err)
			}
		}
		ra.Close()
	}
}

// randomDevice is an image of size random bytes (from seed), opened with
// 4 MiB requests and closed at the end of the test.
func randomDevice(t *testing.T, size int, seed int64) ([]byte, *fio.Device) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "dev.img")
	data := make([]byte, size)
	rand.New(rand.NewSource(seed)).Read(data)
	if err := os.WriteFile(img, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{IOSize: 4 << 20, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return data, dev
}
