package vol

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// A Room counts clusters on both file systems, and on FAT the slots a
// directory needs: a full fixed root and a directory grown by a cluster.
func TestRoom(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			r := NewRoom(v)
			cs := v.ClusterSize()
			free := r.Free()
			if free != int64(v.FreeClusters()) {
				t.Fatalf("Free %d, want %d", free, v.FreeClusters())
			}
			if err := r.Add("d", 0, true); err != nil {
				t.Fatal(err)
			}
			if err := r.Add("d/f.bin", 3*cs-1, false); err != nil {
				t.Fatal(err)
			}
			if got := free - r.Free(); got != 1+3 {
				t.Fatalf("a directory and a 3-cluster file took %d clusters, want 4", got)
			}
			// A folder's cluster holds cs/32 slots: on FAT, "." and ".."
			// and one 8.3 name each leave room for cs/32-3 more before
			// the directory grows; exFAT counts no slots.
			per := cs / 32
			for i := range per - 3 {
				if err := r.Add(fmt.Sprintf("d/F%d", i), 0, false); err != nil {
					t.Fatal(err)
				}
			}
			before := r.Free()
			if err := r.Add("d/LAST", 0, false); err != nil {
				t.Fatal(err)
			}
			grew := before - r.Free()
			if want := map[string]int64{"FAT32": 1, "exFAT": 0}[typ]; grew != want {
				t.Errorf("one name past a full cluster of slots took %d clusters, want %d", grew, want)
			}
			left := r.Free()
			err := r.Add("big", (left+1)*cs, false)
			if !IsFull(err) || NoSpace(err) == nil || r.Free() != left {
				t.Fatalf("Add past the free space: %v (free %d, was %d), want a NoSpaceError and nothing taken", err, r.Free(), left)
			}
			if err := r.Take(left); err != nil || r.Free() != 0 {
				t.Fatalf("Take(all): %v, %d left", err, r.Free())
			}
			r.Give(2)
			if err := r.Take(3); NoSpace(err) == nil {
				t.Fatalf("Take(3) of 2: %v", err)
			}
		})
	}
}

// The FAT12/16 root holds a fixed number of slots: the Room refuses the
// name that would not fit, naming the limit, and wraps ErrDirFull.
func TestRoomFixedRoot(t *testing.T) {
	dev := fio.NewMemDevice(16<<20, 512)
	if _, _, err := fat.Format(dev, fat.FormatParams{Size: 16 << 20, Type: fat.FAT16, RootEntries: 16}, stamp); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRoom(v)
	for i := range 16 {
		if err := r.Add(fmt.Sprintf("F%d", i), 0, false); err != nil {
			t.Fatal(err)
		}
	}
	err = r.Add("ONE.MORE", 0, false)
	if !errors.Is(err, fat.ErrDirFull) || !strings.Contains(err.Error(), "root directory holds at most 16 entries") {
		t.Fatalf("17th name in a 16-entry root: %v", err)
	}
}

// EntrySlots is each file system's count for one name: on FAT one short
// entry for a plain 8.3 name (any case the short entry's case bits keep),
// and a long name's slots, one per 13 UTF-16 units, otherwise; on exFAT a
// File, a Stream Extension and one File Name entry per 15 UTF-16 units.
func TestEntrySlots(t *testing.T) {
	vs := volumes(t)
	for _, c := range []struct {
		name       string
		fat, exfat int
	}{
		{"A.TXT", 1, 3},
		{"readme.txt", 1, 3},    // lower case kept by the case bits
		{"ReadMe.txt", 2, 3},    // mixed case needs the long name
		{"a b.txt", 2, 3},       // a space is not 8.3
		{"abcdefghi.txt", 2, 3}, // 13 units: one long slot
		{"abcdefghijklm", 2, 3},
		{"abcdefghijklmn", 3, 3},
		{"Long Name.txt", 2, 3},
		{"été.txt", 2, 3},
		{"😀.txt", 2, 3}, // a surrogate pair is two units
		{strings.Repeat("x", 15), 3, 3},
		{strings.Repeat("x", 16), 3, 4},
		{strings.Repeat("😀", 8), 3, 4}, // 16 units
		{strings.Repeat("x", 30), 4, 4},
		{strings.Repeat("x", 255), 1 + 20, 2 + 17},
		{"a/b", 1, 2}, // refused: Create names the fault
	} {
		if got := EntrySlots(vs["FAT32"], c.name); got != c.fat {
			t.Errorf("FAT %q: %d, want %d", c.name, got, c.fat)
		}
		if got := EntrySlots(vs["exFAT"], c.name); got != c.exfat {
			t.Errorf("exFAT %q: %d, want %d", c.name, got, c.exfat)
		}
	}
}

// NewDirClusters sizes a new directory (32-byte entries) and knows each
// file system's limit; Grows bounds a directory's growth and refuses past
// FAT's 65,536 entries; Forget lets a directory's tally go.
func TestRoomDirGrowth(t *testing.T) {
	vs := volumes(t)
	for kind, v := range vs {
		cs := v.ClusterSize()
		per := cs / 32
		for _, c := range []struct {
			n        int64
			clusters int64
			ok       bool
		}{
			{0, 1, true}, {2, 1, true}, {per, 1, true}, {per + 1, 2, true},
			{65536, 65536 * 32 / cs, true}, {65537, (65537*32 + cs - 1) / cs, kind == "exFAT"},
		} {
			if got, ok := NewDirClusters(v, c.n); got != c.clusters || ok != c.ok {
				t.Errorf("%s NewDirClusters(%d) = %d, %v; want %d, %v", kind, c.n, got, ok, c.clusters, c.ok)
			}
		}
		r := NewRoom(v)
		if got, ok := r.Grows("/", 10); !ok || got < 1 {
			t.Errorf("%s Grows(/, 10) = %d, %v", kind, got, ok)
		}
		if _, ok := r.Grows("/", 70000); ok != (kind == "exFAT") {
			t.Errorf("%s Grows(/, 70000): %v", kind, ok)
		}
		if err := r.Add("/d", 0, true); err != nil {
			t.Fatal(err)
		}
		r.Forget("/d")
		if _, ok := r.dirs[FoldName("/d")]; ok {
			t.Errorf("%s: /d still tallied after Forget", kind)
		}
	}
}
