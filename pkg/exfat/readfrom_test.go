package exfat

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// Writer.ReadFrom (io.Copy's path) writes what the reader holds, whatever
// the size hint said, reading straight into the data buffers, and Close
// gives back the clusters it did not use; the volume checks clean.
func TestWriterReadFrom(t *testing.T) {
	img := formatImage(t, 64<<20, FormatParams{})
	v := openVol(t, img, true)
	free := v.FreeClusters()
	cs := v.layout.ClusterSize
	want := map[string][]byte{}
	var used uint32
	for i, c := range []struct{ size, hint int64 }{
		{0, 0}, {1, 0}, {511, 511}, {4096, 100}, {4097, 4096}, {100000, 0}, {5 << 20, 1 << 20}, {3 << 20, 8 << 20},
	} {
		data := pattern(uint64(i+1), int(c.size))
		name := fmt.Sprintf("f%d.bin", i)
		w, err := v.Create(name, c.hint, testTime)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := any(w).(io.ReaderFrom); !ok {
			t.Fatal("exfat's Writer is not an io.ReaderFrom")
		}
		// A reader of short reads, as a pipe gives them.
		n, err := io.Copy(w, iotest.HalfReader(bytes.NewReader(data)))
		if err != nil || n != c.size {
			t.Fatalf("%s: copied %d of %d: %v", name, n, c.size, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want[name] = data
		used += uint32((c.size + cs - 1) / cs)
	}
	if got := v.FreeClusters(); got != free-used {
		t.Fatalf("free clusters %d, want %d (unused clusters given back)", got, free-used)
	}
	closeVol(t, v)
	fsckClean(t, img)
	r := openVol(t, img, false)
	defer closeVol(t, r)
	for name, data := range want {
		if got := readFile(t, r, name); !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes back, want %d", name, len(got), len(data))
		}
	}
}
