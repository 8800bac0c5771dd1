package exfat

import (
	"bytes"
	"errors"
	"github.com/ftools/ftools/pkg/internal/readahead"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// An image cut short (its boot sector describes 16 MiB, the file holds
// less): it opens read-only, the files that lie wholly inside read back
// whole, the others fail by name, Check reports the cut as a boot-sector
// problem (not a warning), and opening it to write is refused.
func TestCutShortImage(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	d := openDev(t, img, true)
	v, err := Open(d)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("cut short "), 30000) // 300 kB
	names := []string{"/f1", "/f2", "/f3", "/f4", "/f5", "/f6"}
	// Past the up-case table and root, inside the fourth file's data.
	voltest.CutShort(t, img, 3000000, names, data, func(n string, data []byte) { writeChunks(t, v, n, int64(len(data)), data) }, v.Close, d.Close)
	if _, err := Open(openDev(t, img, true)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("opening the cut image to write: %v, want ErrCorrupt", err)
	}
	v, err = Open(openDev(t, img, false))
	if err != nil {
		t.Fatalf("opening the cut image to read: %v", err)
	}
	ra := readahead.NewFunc(v.dev, len(names), func(i int) readahead.Source { return v.AheadSource(names[i]) }, readahead.Options{})
	defer ra.Close()
	voltest.CutShortReads(t, names, data, func(n string) (io.Reader, error) { return v.Open(n) }, ra)
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := slices.ContainsFunc(rep.Problems, func(p Problem) bool {
		return p.Kind == KindBootSector && p.Offset == offVolumeLength && strings.Contains(p.Message, "16777216") && strings.Contains(p.Message, "3000000")
	})
	if !found || rep.Clean() {
		t.Errorf("Check: problems %v, want a boot-sector problem naming 16777216 and 3000000 bytes", rep.Problems)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "3000000") {
			t.Errorf("the cut is also a warning: %q", w)
		}
	}
}
