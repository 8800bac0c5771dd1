package exfat

import (
	"fmt"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// setBudget sets a package budget for the test's duration.
func setBudget(t *testing.T, p *int64, v int64) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// A tree far larger than the directory budget: clean directories are
// dropped (leaves first, as a directory pins its parent), the volume
// commits when those with changes outgrow their budget, directories moved
// between dropped and reloaded parents keep their entries, and everything
// reads back, within the budget, with fsck.exfat satisfied.
func TestDirCacheBounded(t *testing.T) {
	setBudget(t, &dirBudget, 64<<10)
	setBudget(t, &dirtyBudget, 128<<10)
	img := formatImage(t, 64<<20, FormatParams{ClusterSize: 4096})
	v := openVol(t, img, true)
	want := map[string]string{}
	mt := time.Unix(1e9, 0)
	peak := int64(0)
	for d := 0; d < 40; d++ {
		dir := fmt.Sprintf("folder %02d", d)
		if err := v.Mkdir(dir, mt); err != nil {
			t.Fatal(err)
		}
		if err := v.Mkdir(dir+"/sub", mt); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 40; f++ {
			name := fmt.Sprintf("%s/sub/a file with a long name %03d.txt", dir, f)
			writeFile(t, v, name, []byte(name), 0)
			want[name] = name
		}
		peak = max(peak, v.dircache.Cost())
		if d > 0 && d%5 == 0 {
			// Move an earlier folder's sub into this one: the parent it
			// leaves may have been dropped and read again meanwhile.
			from := fmt.Sprintf("folder %02d/sub", d-5)
			to := dir + "/moved"
			if err := v.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			for f := 0; f < 40; f++ {
				old := fmt.Sprintf("%s/a file with a long name %03d.txt", from, f)
				name := fmt.Sprintf("%s/a file with a long name %03d.txt", to, f)
				want[name] = want[old]
				delete(want, old)
			}
		}
	}
	if peak > 4*dirtyBudget {
		t.Fatalf("directories charged up to %d while writing (dirty budget %d)", peak, dirtyBudget)
	}
	if v.dircache.Len() >= 80 {
		t.Fatalf("%d directories cached: none was dropped", v.dircache.Len())
	}
	closeVol(t, v)
	fsckClean(t, img)

	r := openVol(t, img, false)
	voltest.ReadTreeBack(t, r.FS(), want, r.dircache.Cost, 2*dirBudget+4*(64<<10))
}
