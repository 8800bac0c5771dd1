package vol

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// sizeTree is a tree for SizeFor's tests: directories (ending in "/")
// and files with their sizes, parents before children.
type sizeTree []sizeEntry

type sizeEntry struct {
	name string
	size int64
}

// tally counts the tree as a walk would: every file, and every directory
// with the slots of its members.
func (st sizeTree) tally(exFAT bool) *TreeSize {
	t := NewTreeSize(exFAT)
	slots := map[string]int64{"": 0}
	for _, e := range st {
		n := strings.TrimSuffix(e.name, "/")
		dir := path.Dir(n)
		if dir == "." {
			dir = ""
		}
		slots[dir] += t.Slots(path.Base(n))
		if strings.HasSuffix(e.name, "/") {
			slots[n] += 0
		} else {
			t.AddFile(e.size)
		}
	}
	for d, s := range slots {
		t.AddDir(d, s)
	}
	return t
}

// fill writes the tree into v as fcp does: each directory made whole
// for its members (DirSlots, MkdirSized).
func (st sizeTree) fill(v Volume) error {
	for _, e := range st {
		if strings.HasSuffix(e.name, "/") {
			d := strings.TrimSuffix(e.name, "/")
			var members []string
			for _, m := range st {
				if n := strings.TrimSuffix(m.name, "/"); path.Dir(n) == d {
					members = append(members, path.Base(n))
				}
			}
			slots := DirSlots(v, len(members), func(i int) string { return members[i] })
			if err := v.MkdirSized(d, stamp, slots); err != nil {
				return err
			}
			continue
		}
		w, err := v.Create(e.name, e.size, stamp)
		if err != nil {
			return err
		}
		if _, err := w.Write(make([]byte, e.size)); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return v.Commit()
}

// SizeFor finds the smallest size (in steps) whose volume holds a tree:
// the tree is written into a volume of that size without error, and
// TreeSize says one step less does not fit, for each FAT type and
// exFAT, with headroom, and with a root that limits the size (FAT12/16)
// or a cluster size that does.
func TestSizeFor(t *testing.T) {
	many := sizeTree{{"d/", 0}}
	for i := range 300 {
		many = append(many, sizeEntry{fmt.Sprintf("d/a long file name number %03d.txt", i), int64(i * 37)})
	}
	boot := sizeTree{{"overlays/", 0}, {"kernel8.img", 8 << 20}, {"start4.elf", 2 << 20}, {"config.txt", 1500},
		{"overlays/a.dtbo", 3000}, {"overlays/README", 40000}, {"bcm2711-rpi-4-b.dtb", 52000}}
	// Folders of many names and no data: the tally is the directories'
	// clusters as fcp makes them (whole, records never straddling a
	// sector), which a size step of 2 KiB shows.
	folders := sizeTree{}
	for d := range 20 {
		folders = append(folders, sizeEntry{fmt.Sprintf("folder %02d/", d), 0})
		for i := range 150 {
			folders = append(folders, sizeEntry{fmt.Sprintf("folder %02d/an empty file with a long name %03d", d, i), 0})
		}
	}
	rootful := sizeTree{}
	for i := range 600 {
		rootful = append(rootful, sizeEntry{fmt.Sprintf("F%d", i), 10})
	}
	for _, c := range []struct {
		name  string
		exFAT bool
		p     fat.FormatParams
		x     exfat.FormatParams
		tree  sizeTree
		head  Headroom
		step  int64  // the size step (default 64 KiB)
		want  string // the type chosen
		err   bool   // refused at every size
	}{
		{name: "FAT12", p: fat.FormatParams{Type: fat.FAT12}, tree: boot[2:4], want: "FAT12"},
		{name: "FAT16 boot tree", p: fat.FormatParams{Type: fat.FAT16}, tree: boot, want: "FAT16"},
		{name: "FAT16 with 10% and 1 MiB free", p: fat.FormatParams{Type: fat.FAT16}, tree: boot, head: Headroom{Bytes: 1 << 20, Percent: 10}, want: "FAT16"},
		{name: "mkfs.fat's choice", p: fat.FormatParams{Label: "BOOT"}, tree: many, want: "FAT12"},
		{name: "FAT32 ESP", p: fat.FormatParams{Type: fat.FAT32, SectorsPerCluster: 1}, tree: boot, want: "FAT32"},
		{name: "FAT32 4K clusters", p: fat.FormatParams{Type: fat.FAT32, ClusterSize: 4096}, tree: many, want: "FAT32"},
		// The default root of 512 slots is too small: the size grows to where
		// the data's alignment gives the root more.
		{name: "FAT16 root grows", p: fat.FormatParams{Type: fat.FAT16}, tree: rootful, want: "FAT16"},
		{name: "FAT12 root too small", p: fat.FormatParams{Type: fat.FAT12, RootEntries: 512, SectorsPerCluster: 1}, tree: rootful, err: true},
		{name: "FAT16 root made larger", p: fat.FormatParams{Type: fat.FAT16, RootEntries: 1024}, tree: rootful, want: "FAT16"},
		{name: "exFAT", exFAT: true, tree: boot, want: "exFAT"},
		{name: "FAT16 folders", p: fat.FormatParams{Type: fat.FAT16, SectorsPerCluster: 1, RootEntries: 512}, tree: folders, step: 2048, want: "FAT16"},
		{name: "exFAT folders", exFAT: true, x: exfat.FormatParams{ClusterSize: 512}, tree: folders, step: 2048, want: "exFAT"},
		{name: "exFAT many", exFAT: true, x: exfat.FormatParams{ClusterSize: 4096}, tree: many, head: Headroom{Percent: 5}, want: "exFAT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := c.tree.tally(c.exFAT)
			plan := func(size int64) (Geometry, error) {
				if c.exFAT {
					x := c.x
					x.Size, x.SectorSize = size, 512
					_, l, err := exfat.Plan(x)
					if err != nil {
						return Geometry{}, err
					}
					return ExFATGeometry(l), nil
				}
				p := c.p
				p.Size, p.SectorSize, p.AlignData = size, 512, true
				_, l, err := fat.Plan(p)
				if err != nil {
					return Geometry{}, err
				}
				return FATGeometry(l, p.Label != ""), nil
			}
			step := int64(64 << 10)
			if c.step != 0 {
				step = c.step
			}
			size, g, err := SizeFor(ts, SizeOptions{Plan: plan, Step: step, Min: step, Max: 4 << 30, Headroom: c.head})
			if c.err {
				if !errors.Is(err, ErrTreeTooBig) {
					t.Fatalf("SizeFor: %d, %v; want ErrTreeTooBig", size, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Type != c.want || g.Size > size {
				t.Fatalf("SizeFor: %d bytes, %+v; want %s", size, g, c.want)
			}
			// One step less does not fit (or makes no volume).
			if g2, err := plan(size - step); err == nil {
				if err := ts.Fits(g2, c.head); err == nil {
					t.Fatalf("SizeFor: %d bytes, but %d fit too (%+v)", size, size-step, g2)
				}
			}
			// The tree goes into a volume of that size, with the headroom
			// left free.
			dev := fio.NewMemDevice(size, 512)
			o := FormatOptions{Now: stamp}
			if c.exFAT {
				x := c.x
				o.ExFAT = &x
			} else {
				p := c.p
				p.AlignData = true
				o.FAT = &p
			}
			if _, err := Format(dev, o); err != nil {
				t.Fatal(err)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.tree.fill(v); err != nil {
				t.Fatalf("the tree does not go into %d bytes: %v", size, err)
			}
			free := int64(v.FreeClusters()) * v.ClusterSize()
			if want := c.head.Bytes; free < want {
				t.Fatalf("%d bytes left free, want %d at least", free, want)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Need counts each cluster size apart, FAT's "." and ".." and exFAT's
// system entries, and refuses a directory no volume can hold.
func TestTreeSizeNeed(t *testing.T) {
	ft := NewTreeSize(false)
	ft.AddFile(513)
	ft.AddFile(0)
	ft.AddDir("d", 15*ft.Slots("a")) // 15 + 2 slots: 544 bytes
	ft.AddDir("", ft.Slots("d"))
	for _, c := range []struct {
		g    Geometry
		want int64
	}{
		{Geometry{Type: "FAT16", ClusterSize: 512, RootEntries: 512}, 2 + 2},
		{Geometry{Type: "FAT16", ClusterSize: 1024, RootEntries: 512}, 1 + 1},
		{Geometry{Type: "FAT32", ClusterSize: 512}, 2 + 2 + 0},
	} {
		if n, err := ft.Need(c.g); err != nil || n != c.want {
			t.Errorf("FAT Need(%+v) = %d, %v; want %d", c.g, n, err, c.want)
		}
	}
	if _, err := ft.Need(Geometry{Type: "FAT16", ClusterSize: 512, RootEntries: 1, Label: true}); !errors.Is(err, ErrTreeTooBig) {
		t.Errorf("a root of one slot with a label and a member: %v", err)
	}
	xt := NewTreeSize(true)
	xt.AddDir("", 29*3) // 29 members of 3 entries, and 3 system entries: 2880 bytes, 6 clusters
	if n, err := xt.Need(Geometry{Type: "exFAT", ClusterSize: 512}); err != nil || n != 7 {
		t.Errorf("exFAT root of 90 entries in 512-byte clusters: %d more clusters, %v; want 7 (grown 1, 2, 4: 8)", n, err)
	}
	big := NewTreeSize(false)
	big.AddDir("huge", fat.MaxDirEntries)
	if _, err := big.Need(Geometry{Type: "FAT32", ClusterSize: 4096}); !errors.Is(err, ErrTreeTooBig) || !strings.Contains(err.Error(), "huge") {
		t.Errorf("a directory of 65,538 slots: %v", err)
	}
}

// A FAT tally given the same tree's exFAT tally (SetExFAT, for a size
// whose file system depends on it: fmkfs --sd) measures exFAT geometries
// by the exFAT one, FAT geometries by its own; so does RootClusters.
func TestTreeSizeSetExFAT(t *testing.T) {
	ft, xt := NewTreeSize(false), NewTreeSize(true)
	for _, tt := range []*TreeSize{ft, xt} {
		// A directory of 70,000 slots on FAT (too many for one: 7 per
		// 78-character name), of 10,000 sets of 8 entries on exFAT.
		var slots int64
		for range 10000 {
			slots += tt.Slots(strings.Repeat("a long name ", 7)[:78])
		}
		tt.AddDir("big", slots)
		tt.AddDir("", tt.Slots("big"))
	}
	ft.SetExFAT(xt)
	x := Geometry{Type: "exFAT", ClusterSize: 4096}
	want, err := xt.Need(x)
	if err != nil || want < 625 {
		t.Fatalf("exFAT Need: %d, %v; want 625 clusters or more (2,560,000 bytes of entries)", want, err)
	}
	if n, err := ft.Need(x); err != nil || n != want {
		t.Errorf("exFAT Need through the FAT tally: %d, %v; want that of the exFAT tally (%d)", n, err, want)
	}
	if got, want := ft.RootClusters(x), xt.RootClusters(x); got != want {
		t.Errorf("exFAT RootClusters through the FAT tally: %d, want %d", got, want)
	}
	if _, err := ft.Need(Geometry{Type: "FAT32", ClusterSize: 4096}); !errors.Is(err, ErrTreeTooBig) {
		t.Errorf("FAT32 Need of a directory of 70,000 slots: %v, want ErrTreeTooBig", err)
	}
}

// A directory is counted as the writers grow it: one cluster, then as
// many more as it has, up to 32 at a time.
func TestGrownClusters(t *testing.T) {
	for n, want := range map[int64]int64{0: 1, 1: 1, 2: 2, 3: 4, 5: 8, 17: 32, 19: 32, 33: 64, 65: 96, 100: 128} {
		if got := grownClusters(n); got != want {
			t.Errorf("grownClusters(%d) = %d, want %d", n, got, want)
		}
	}
}

// TreeSize counts a directory at least as large as fcp makes it (DirSlots,
// in the order fcp places the names), whatever the names' lengths.
func TestTreeSizeDirSlotsBound(t *testing.T) {
	for typ, v := range volumes(t) {
		for _, long := range []int{0, 12, 13, 40, 180, 250} {
			var names []string
			for i := range 500 {
				names = append(names, fmt.Sprintf("%s%d", strings.Repeat("x", (i*7)%(long+1)), i))
			}
			ts := NewTreeSize(typ == "exFAT")
			var sum int64
			for _, n := range names {
				sum += ts.Slots(n)
			}
			if typ != "exFAT" {
				sum += 2
			}
			real := int64(DirSlots(v, len(names), func(i int) string { return names[i] }))
			if bound := ts.dirSlots(sum); real > bound || (long == 0 && typ != "exFAT" && bound != real) {
				t.Errorf("%s, names up to %d characters: TreeSize counts %d slots, fcp takes %d", typ, long, bound, real)
			}
		}
		v.Close()
	}
}

// A file over FAT's 4 GiB - 1 bytes is left out of a FAT tally (the copy
// refuses it), not of an exFAT one.
func TestTreeSizeTooLarge(t *testing.T) {
	for _, c := range []struct {
		exFAT         bool
		files, bytes  int64
		tooLarge      int64
		holds5G, hold bool
	}{
		{false, 1, fat.MaxFileSize, 1, false, true},
		{true, 2, fat.MaxFileSize + 5<<30, 0, true, true},
	} {
		ts := NewTreeSize(c.exFAT)
		ts.AddFile(fat.MaxFileSize)
		ts.AddFile(5 << 30)
		if ts.Files != c.files || ts.Bytes != c.bytes || ts.TooLarge != c.tooLarge || ts.Holds(5<<30) != c.holds5G || ts.Holds(fat.MaxFileSize) != c.hold {
			t.Errorf("exFAT %v: %d files, %d bytes, %d too large", c.exFAT, ts.Files, ts.Bytes, ts.TooLarge)
		}
	}
}

// RootEntries counts the root's members' slots and the label, in whole
// sectors of 16 entries.
func TestTreeSizeRootEntries(t *testing.T) {
	ts := NewTreeSize(false)
	ts.AddDir("", 600*ts.Slots("F.TXT")+ts.Slots("a long name.txt"))
	if got := ts.RootEntries(false); got != 608 {
		t.Errorf("600 short names and a long one: %d entries, want 608", got)
	}
	ts.AddDir("", 4)
	if got := ts.RootEntries(true); got != 608 {
		t.Errorf("and 4 more and the label: %d entries, want 608", got)
	}
	ts.AddDir("", 1)
	if got := ts.RootEntries(true); got != 624 {
		t.Errorf("and one more: %d entries, want 624", got)
	}
}
