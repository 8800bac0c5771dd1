package vol

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"testing"
	"testing/iotest"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// A Writer's ReadFrom (io.Copy's path), on both file systems, writes what
// the reader holds whatever the size hint said, reading straight into the
// data buffers, and Close gives back the clusters it did not use; the
// volume checks clean and reads back.
func TestWriterReadFrom(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			free, cs := v.FreeClusters(), v.ClusterSize()
			want := map[string][]byte{}
			var used uint32
			for i, c := range []struct{ size, hint int64 }{
				{0, 0}, {1, 0}, {511, 511}, {4096, 100}, {4097, 4096}, {100000, 0}, {5 << 20, 1 << 20}, {3 << 20, 8 << 20},
			} {
				data := voltest.Pattern(int(c.size), byte(i))
				name := fmt.Sprintf("f%d.bin", i)
				w, err := v.Create(name, c.hint, stamp)
				if err != nil {
					t.Fatal(err)
				}
				// A reader of short reads, as a pipe gives them.
				if n, err := w.(io.ReaderFrom).ReadFrom(iotest.HalfReader(bytes.NewReader(data))); err != nil || n != c.size {
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
			dev := v.Device()
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			checkClean(t, dev, "check")
			r, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for name, data := range want {
				if got, err := fs.ReadFile(r, name); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: %d bytes back, %v", name, len(got), err)
				}
			}
		})
	}
}
