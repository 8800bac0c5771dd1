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
	img := filepath.Join(t.TempDir(), "dev.img")
	data := make([]byte, 24<<20)
	rand.New(rand.NewSource(3)).Read(data)
	if err := os.WriteFile(img, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{IOSize: 4 << 20, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
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
