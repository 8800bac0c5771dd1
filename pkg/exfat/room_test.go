package exfat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// memVolume formats an in-memory exFAT volume and opens it.
func memVolume(t testing.TB, size int64, p FormatParams) (*fio.Device, *Volume) {
	t.Helper()
	dev := fio.NewMemDevice(size, 512)
	if _, _, err := Format(dev, p, testTime); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	v.Clock = func() time.Time { return testTime }
	return dev, v
}

// Create checks its target before a byte of data is written, as FAT's
// does: a missing parent, a file as parent, a full directory (one whose
// growth the data leaves no cluster for) are refused then, and the image
// stays byte-identical.
func TestCreateChecksBeforeWriting(t *testing.T) {
	dev, v := memVolume(t, 4<<20, FormatParams{ClusterSize: 4096})
	writeFile(t, v, "big", nil, 0)
	writeFile(t, v, "file", nil, 0)
	// Fill the root directory's clusters with entry sets, to the last
	// run that holds a short name's three entries.
	root := v.root()
	per := int(v.layout.SectorSize / EntrySize)
	for i := 0; findFreeSlots(root.raw, 3, root.hint, per) >= 0; i++ {
		writeFile(t, v, fmt.Sprintf("e%d", i), nil, 0)
	}
	// All the free space but one cluster goes to big.
	free := int64(v.bitmap.free)
	writeFile(t, v, "big", pattern(1, int((free-1)*v.layout.ClusterSize)), 0)
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if v.bitmap.free != 1 {
		t.Fatalf("%d clusters free, want 1", v.bitmap.free)
	}
	before := voltest.DevBytes(t, dev)
	cs := int(v.layout.ClusterSize)
	for _, tc := range []struct {
		name string
		want func(error) bool
	}{
		{"missing/new", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"file/new", func(err error) bool { return errors.Is(err, ErrNotDir) }},
		// One cluster of data and one for the directory to grow by:
		// two, and one is free.
		{"new", func(err error) bool { var ns *NoSpaceError; return errors.As(err, &ns) }},
	} {
		w, err := v.Create(tc.name, int64(cs), testTime)
		if err == nil {
			_, werr := w.Write(pattern(2, cs))
			err = errors.Join(werr, w.Close())
			t.Errorf("Create(%q) took the data, then: %v", tc.name, err)
		} else if !tc.want(err) {
			t.Errorf("Create(%q): %v", tc.name, err)
		}
		if err := v.Mkdir(tc.name, testTime); err == nil || !tc.want(err) {
			t.Errorf("Mkdir(%q): %v", tc.name, err)
		}
		if err := v.Commit(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, voltest.DevBytes(t, dev)) {
			t.Fatalf("Create(%q) was refused but the image changed", tc.name)
		}
	}
	// The one free cluster still takes a file whose entry fits.
	writeFile(t, v, "big", pattern(3, 10), 0)
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}
