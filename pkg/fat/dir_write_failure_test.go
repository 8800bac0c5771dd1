package fat

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// Mkdir and a directory's growth give back the clusters they took when
// writing their contents fails: before, the free count stayed short by
// them (clusters no entry names, lost at the next commit).
func TestDirWriteFailureFreesClusters(t *testing.T) {
	var failing atomic.Bool
	_, v := faultyVolume(t, &failing)
	if err := v.Mkdir("/sub", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	// One 512-byte cluster holds 16 slots: ".", ".." and 14 short names.
	for i := range 14 {
		w, err := v.Create(fmt.Sprintf("/sub/F%d", i), 0, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	// A write of file data fails: the data stream refuses every later
	// write with that error.
	failing.Store(true)
	w, err := v.Create("/queued", 0, time.Unix(0, 0))
	voltest.Write(t, w, err, []byte("ten bytes."))
	if err := v.flushData(); err == nil {
		t.Fatal("the injected failure did not fail the data stream")
	}
	free := v.allocatable()
	if err := v.Mkdir("/new", time.Unix(0, 0)); err == nil {
		t.Error("Mkdir succeeded though its cluster's write failed")
	}
	if got := v.allocatable(); got != free {
		t.Errorf("Mkdir: %d clusters free after the failure, %d before", got, free)
	}
	// sub is full: the next name grows it, and the growth's zeros fail.
	w2, err := v.Create("/sub/GROWS", 0, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err == nil {
		t.Error("a directory grew though its new cluster's write failed")
	}
	if got := v.allocatable(); got != free {
		t.Errorf("growth: %d clusters free after the failure, %d before", got, free)
	}
	if n := dirChainLen(t, v, "/sub"); n != 1 {
		t.Errorf("sub's chain is %d clusters after the failed growth, want 1", n)
	}
}

// dirChainLen is how many clusters a directory's chain in the FAT has.
func dirChainLen(t *testing.T, v *Volume, name string) int {
	t.Helper()
	_, r, err := v.lookup("stat", name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Chain(v.table, r.Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	return len(c)
}
