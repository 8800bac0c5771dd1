package vol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// A directory made with MkdirSized for the slots DirSlots counts holds
// all its members in the clusters it was made with: one run, never grown,
// whatever the names' lengths (records that would straddle a sector
// skip to the next, which DirSlots counts).
func TestMkdirSizedHoldsItsMembers(t *testing.T) {
	var names []string
	for i := range 400 {
		// 1 to 5 slots on FAT, 3 to 5 on exFAT, mixed.
		names = append(names, fmt.Sprintf("%s%03d.txt", strings.Repeat("n", i%50), i))
	}
	for typ, v := range volumes(t) {
		slots := DirSlots(v, len(names), func(i int) string { return names[i] })
		if err := v.MkdirSized("d", stamp, slots); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			w, err := v.Create("d/"+n, 1, stamp)
			voltest.Put(t, w, err, []byte{'x'})
		}
		if err := v.Commit(); err != nil {
			t.Fatal(err)
		}
		fi, err := v.Stat("d")
		if err != nil {
			t.Fatal(err)
		}
		runs, err := v.Runs(fi)
		if err != nil {
			t.Fatal(err)
		}
		clusters, err := v.FileClusters(fi)
		if err != nil {
			t.Fatal(err)
		}
		cs := v.ClusterSize()
		if want := (int64(slots)*32 + cs - 1) / cs; runs != 1 || clusters != want {
			t.Errorf("%s: directory of %d slots in %d runs of %d clusters, want 1 run of %d", typ, slots, runs, clusters, want)
		}
		v.Close()
	}
}
