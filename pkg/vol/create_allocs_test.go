package vol

import (
	"bytes"
	"fmt"
	"testing"
)

// Writing a small file into a folder allocates a bounded few things per
// file on both file systems: the writer, the name's record and slots, no
// per-call copy of the helpers a change is made with (the file store, the
// path walker, the change steps and the dirty flag's mark function, built
// once per volume), no copy of a path already clean. A million files copied in would otherwise leave tens
// of millions of allocations to the collector.
func TestCreateAllocations(t *testing.T) {
	// Measured: FAT32 21 (48 when the helpers were built per call and
	// every path cleaned was copied), exFAT 12 (39); FAT's are mostly its
	// short and long names'.
	limits := map[string]float64{"FAT32": 24, "exFAT": 15}
	for typ, v := range volumes(t) {
		if err := v.MkdirSized("d", stamp, 2+3*400); err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte("x"), 100)
		i := 0
		put := func() {
			write(t, v, fmt.Sprintf("d/a file named %04d.dat", i), data)
			i++
		}
		put() // the first change arms the dirty flag
		allocs := testing.AllocsPerRun(300, put)
		if allocs > limits[typ] {
			t.Errorf("%s: %.1f allocations per file written, want at most %.0f", typ, allocs, limits[typ])
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
