package exfat

import (
	"fmt"
	"testing"
)

// A directory filled with sets of three entries skips the last entry of
// each sector (a set never straddles two). The search for the next set's
// room starts past those holes, near the end, not at the first of them:
// adding n members costs O(n), not O(n²) entries scanned. Where the sets
// go is unchanged: each hole stays one entry long, and the names fill
// the directory in order.
func TestFreeRunHintSkipsHoles(t *testing.T) {
	_, v := memVolume(t, 16<<20, FormatParams{ClusterSize: 4096})
	const files = 400
	for i := range files {
		writeFile(t, v, fmt.Sprintf("f%03d", i), nil, 0)
	}
	root := v.root()
	per := int(v.layout.SectorSize / EntrySize)
	from := max(root.hint, root.fit[3])
	if from < root.end-per {
		t.Fatalf("the next set's search starts at entry %d of %d in use (hint %d): it rescans the holes before", from, root.end, root.hint)
	}
	last := -1
	for _, r := range root.recs {
		if r == nil || r.Name[0] != 'f' {
			continue
		}
		if r.Slot <= last || r.Slot/per != (r.Slot+r.Slots-1)/per {
			t.Fatalf("%s at entry %d (%d entries), after entry %d", r.Name, r.Slot, r.Slots, last)
		}
		last = r.Slot
	}
	if want := files / (per / 3) * per; root.end < want || root.end > want+2*per {
		t.Fatalf("%d sets of 3 end at entry %d, want about %d", files, root.end, want)
	}
}
