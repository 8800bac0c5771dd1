package fat

import (
	"bytes"
	"fmt"
	"github.com/ftools/ftools/pkg/internal/readahead"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// An image cut short (its boot sector describes 16 or 64 MiB, the file
// holds less): read-only, the files that lie wholly inside read back
// whole through the read-ahead and Open+Read alike, the others fail by
// name, never as zeros; Check reports the cut as a boot-sector problem at
// the total-sectors field the boot sector uses (16 bits below 65,536
// sectors, else 32).
func TestCutShortImage(t *testing.T) {
	t.Run("16MiB", func(t *testing.T) { testCutShort(t, 16<<20, offTotalSectors16) })
	t.Run("64MiB", func(t *testing.T) { testCutShort(t, 64<<20, offTotalSectors32) })
}

func testCutShort(t *testing.T, size, totalOff int64) {
	img := filepath.Join(t.TempDir(), "cut.img")
	if err := fio.CreateImage(img, size); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true, IOSize: 64 << 10, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if _, _, err := Format(dev, FormatParams{Size: size, Type: FAT16, ClusterSize: 4096, AlignData: true}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("cut short "), 30000) // 300 kB
	names := []string{"/F1", "/F2", "/F3", "/F4", "/F5", "/F6"}
	// Inside the data of the third or fourth file.
	voltest.CutShort(t, img, 1500000, names, data, func(n string, data []byte) { raPut(t, v, n, data) }, v.Close, dev.Close)
	rdev, err := fio.Open(img, fio.Options{IOSize: 64 << 10, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdev.Close()
	v, err = Open(rdev)
	if err != nil {
		t.Fatalf("opening the cut image to read: %v", err)
	}
	ra := readahead.NewFunc(v.dev, len(names), func(i int) readahead.Source { return v.AheadSource(names[i]) }, readahead.Options{})
	defer ra.Close()
	voltest.CutShortReads(t, names, data, func(n string) (io.Reader, error) { return v.Open(strings.TrimPrefix(n, "/")) }, ra)
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := slices.ContainsFunc(rep.Problems, func(p Problem) bool {
		return p.Kind == KindBootSector && p.Offset == totalOff && strings.Contains(p.Message, fmt.Sprint(size)) && strings.Contains(p.Message, "1500000")
	})
	if !found {
		t.Errorf("Check: problems %v, want a boot-sector problem at byte %d naming %d and 1500000 bytes", rep.Problems, totalOff, size)
	}
}
