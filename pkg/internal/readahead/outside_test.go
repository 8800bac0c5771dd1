package readahead

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// An image cut short (a truncated download): the files whose data lies
// wholly on the device read back whole; one that runs past its end, or
// starts past it, fails by name with io.ErrOutOfRange, never as zeros or
// a buffer's earlier bytes, never as a panic; the files after it still
// read.
func TestPiecesPastTheDevice(t *testing.T) {
	const size = 3<<20 + 1000 // not a multiple of the alignment either
	img := filepath.Join(t.TempDir(), "cut.img")
	data := make([]byte, size)
	rand.New(rand.NewSource(7)).Read(data)
	if err := os.WriteFile(img, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ioSize := range []int{64 << 10, 4 << 20} {
		dev, err := fio.Open(img, fio.Options{IOSize: ioSize, NoLock: true})
		if err != nil {
			t.Fatal(err)
		}
		files := []Source{
			{Name: "/inside", Pieces: []Piece{{Off: 4096, Len: 1 << 20}}},
			{Name: "/straddles", Pieces: []Piece{{Off: size - 5000, Len: 300000}}},
			{Name: "/beyond", Pieces: []Piece{{Off: 1 << 20, Len: 4096}, {Off: size + 600000, Len: 300000}}},
			{Name: "/tail", Pieces: []Piece{{Off: size - 999, Len: 999}}},
			{Name: "/after", Pieces: []Piece{{Off: 2 << 20, Len: 70000}}},
		}
		want := map[int][]byte{0: data[4096 : 4096+1<<20], 3: data[size-999:], 4: data[2<<20 : 2<<20+70000]}
		ra := New(dev, files, Options{Workers: 2, Buffers: 3})
		for i, s := range files {
			f, err := ra.File(i)
			if w, ok := want[i]; ok {
				if err != nil {
					t.Fatalf("io size %d: %s: %v", ioSize, s.Name, err)
				}
				got, err := io.ReadAll(f)
				if err != nil || !bytes.Equal(got, w) {
					t.Fatalf("io size %d: %s: %d bytes (%v), want the %d on the device", ioSize, s.Name, len(got), err, len(w))
				}
				continue
			}
			var pe *fs.PathError
			if !errors.Is(err, fio.ErrOutOfRange) || !errors.As(err, &pe) || pe.Path != s.Name || !strings.Contains(err.Error(), "cut.img") {
				t.Fatalf("io size %d: %s: File = %v, want a path error naming it and the image, wrapping ErrOutOfRange", ioSize, s.Name, err)
			}
		}
		ra.Close()
		dev.Close()
	}
}
