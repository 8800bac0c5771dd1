package fat

import (
	"fmt"
	"testing"
	"time"
)

// Directories made side by side and still empty at a commit (a copy that
// makes its folders first, then fills them after a commit of its own)
// go out together when filled: their sectors in a few merged writes, not
// one write for the deleted marks and one for the entries per directory.
func TestFreshDirsWrittenTogether(t *testing.T) {
	img, v := scaleImage(t, 64<<20)
	const dirs, files = 20, 30
	for d := range dirs {
		// "." and "..", and per file two long-name slots and the short
		// entry: records that skip a slot at each sector's end.
		if err := v.MkdirSized(fmt.Sprintf("folder %02d", d), time.Unix(1e9, 0), 2+files*3+files/5); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	for d := range dirs {
		for f := range files {
			raPut(t, v, fmt.Sprintf("folder %02d/file name %04d.txt", d, f), []byte("x"))
		}
	}
	before := v.Device().Stats().WriteRequests
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	writes := v.Device().Stats().WriteRequests - before
	t.Logf("%d write requests to commit %d files in %d new folders", writes, dirs*files, dirs)
	// The data, the deleted marks, two FATs, the entries, FSINFO.
	if writes > 12 {
		t.Errorf("%d write requests to commit %d files in %d folders made together, want at most 12", writes, dirs*files, dirs)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, img)
	r := reopenRead(t, img)
	for d := range dirs {
		ents, err := r.ReadDir(fmt.Sprintf("folder %02d", d))
		if err != nil || len(ents) != files {
			t.Fatalf("folder %02d: %d entries, %v", d, len(ents), err)
		}
	}
}

// FormatParams.RootClusters makes the FAT32 root that many clusters, one
// chain from the first data cluster, counted taken in FSINFO: a root that
// fills them does not grow, and fsck.fat finds the volume clean.
func TestFormatRootClusters(t *testing.T) {
	const root = 6
	img, v := formatImage(t, 40<<20, FormatParams{Type: FAT32, SectorsPerCluster: 1, RootClusters: root, Label: "ROOT"})
	l := v.layout
	chain, err := ChainExtents(v.table, l.RootCluster)
	if err != nil || len(chain) != 1 || chain[0].Len != root {
		t.Fatalf("root chain %v (%v), want one run of %d clusters", chain, err, root)
	}
	if got := v.FreeClusters(); got != l.Clusters-root {
		t.Fatalf("%d free clusters, want %d", got, l.Clusters-root)
	}
	// 6 sectors of 16 slots, the label in one: 25 records of 3 slots
	// (two long-name slots and the short entry) fit.
	for i := range 25 {
		raPut(t, v, fmt.Sprintf("a file in the root %03d.txt", i), []byte("x"))
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, img)
	r := reopenRead(t, img)
	if chain, err := ChainExtents(r.table, l.RootCluster); err != nil || len(chain) != 1 || chain[0].Len != root {
		t.Fatalf("root chain %v (%v) after filling it, want one run of %d clusters", chain, err, root)
	}
}
