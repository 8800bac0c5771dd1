package exfat

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// Mkdir and a directory's growth give back the clusters they took when
// writing their zeros fails, as on FAT: before, the bitmap kept them
// (clusters no entry names, lost at the next commit).
func TestDirWriteFailureFreesClusters(t *testing.T) {
	var failing atomic.Bool
	dev := fio.NewFaultyMemDevice(8<<20, 512, func(off, n int64) error {
		if failing.Load() {
			return errors.New("injected write failure")
		}
		return nil
	})
	if _, _, err := Format(dev, FormatParams{ClusterSize: 512}, testTime); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	v.Clock = func() time.Time { return testTime }
	if err := v.Mkdir("sub", testTime); err != nil {
		t.Fatal(err)
	}
	// One 512-byte cluster holds 16 entries: five short names' sets.
	for i := range 5 {
		writeFile(t, v, fmt.Sprintf("sub/f%d", i), nil, 0)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	// A write of file data fails: the data stream refuses every later
	// write with that error.
	failing.Store(true)
	w, err := v.Create("queued", 0, testTime)
	voltest.Write(t, w, err, []byte("ten bytes."))
	if err := v.flushData(); err == nil {
		t.Fatal("the injected failure did not fail the data stream")
	}
	free := v.bitmap.free
	if err := v.Mkdir("new", testTime); err == nil {
		t.Error("Mkdir succeeded though its cluster's write failed")
	}
	if got := v.bitmap.free; got != free {
		t.Errorf("Mkdir: %d clusters free after the failure, %d before", got, free)
	}
	// sub is full: the next name grows it, and the growth's zeros fail.
	w2, err := v.Create("sub/grows", 0, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err == nil {
		t.Error("a directory grew though its new cluster's write failed")
	}
	if got := v.bitmap.free; got != free {
		t.Errorf("growth: %d clusters free after the failure, %d before", got, free)
	}
}
