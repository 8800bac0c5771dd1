package fat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// On FAT12/16 the bytes of DIR_FstClusHI are not part of the cluster; on
// FAT32 they are. Encode writes them as zero once dropped.
func TestParseDirHighWordByType(t *testing.T) {
	raw := make([]byte, 2*DirEntrySize)
	e := DirEntry{Name: sn("A       TXT"), Attr: AttrArchive, Cluster: 0x1234_0005, Size: 10}
	e.Encode(raw)
	for _, tc := range []struct {
		t    Type
		want Cluster
	}{{FAT12, 5}, {FAT16, 5}, {FAT32, 0x1234_0005}} {
		recs, _ := ParseDir(raw, tc.t)
		if len(recs) != 1 || recs[0].Entry.Cluster != tc.want {
			t.Fatalf("%s: cluster %#x, want %#x", tc.t, recs[0].Entry.Cluster, tc.want)
		}
	}
	recs, _ := ParseDir(raw, FAT16)
	out := make([]byte, DirEntrySize)
	recs[0].Entry.Encode(out)
	if hi := binary.LittleEndian.Uint16(out[direntClusterHigh:]); hi != 0 {
		t.Fatalf("re-encoded FAT16 entry has %#x at byte 20", hi)
	}
}

// Writer.Close gives the new file's clusters back when it fails (here: the
// replaced file's chain broke after Create checked it).
func TestWriterCloseReleasesOnError(t *testing.T) {
	v := openVerb(t, verbImage(t, "16"))
	free := v.FreeClusters()
	w, err := v.Create("A.TXT", 5000, time.Unix(1e9, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	v.table.Set(recOf(t, v, "A.TXT").Entry.Cluster, 0)
	err = w.Close()
	var de *DamageError
	if !errors.As(err, &de) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "fverify") {
		t.Fatalf("Close: %v, want a DamageError naming fverify", err)
	}
	// The damage itself freed one cluster (the count follows the FAT).
	if got := v.FreeClusters(); got != free+1 {
		t.Fatalf("free clusters %d after the failed Close, want %d", got, free+1)
	}
}

// Clusters marked free that a chain or a loaded directory entry uses are
// never handed out.
func TestAllocatorSkipsFreeClustersInUse(t *testing.T) {
	v := openVerb(t, verbImage(t, "16"))
	a := recOf(t, v, "A.TXT").Entry.Cluster // three clusters a, a+1, a+2
	l := recOf(t, v, "Long Name.bin").Entry.Cluster
	v.table.Set(a+1, 0)
	v.table.Set(l, 0)
	v.table.Set(l+1, 0)
	v.table.Set(l+2, 0)
	if _, err := v.loadDir(0); err != nil {
		t.Fatal(err)
	}
	free := v.allocatable()
	exts, err := v.allocate(free, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			if c == a+1 || c == l {
				t.Fatalf("cluster %d handed out; it is in use", c)
			}
		}
	}
	if _, err := v.allocate(1, 0); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("allocating past the usable clusters: %v", err)
	}
}

// A new entry right after orphaned LFN slots deletes them instead of taking
// their name.
func TestAddDropsOrphanLFN(t *testing.T) {
	slots, err := LongNameSlots("Secret name.txt", ShortNameChecksum(sn("NEW     TXT")))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 16*DirEntrySize)
	for i, s := range slots {
		copy(raw[i*DirEntrySize:], s[:])
	}
	raw[len(slots)*DirEntrySize] = SlotDeleted // their short entry, deleted
	v := openVerb(t, verbImage(t, "16"))
	d := &dir{v: v, first: 0, raw: raw, shorts: NewShortNameSet(), dirty: map[int]struct{}{}, end: len(slots) + 1}
	r, err := d.add("NEW.TXT", DirEntry{Attr: AttrArchive})
	if err != nil {
		t.Fatal(err)
	}
	if r.Slot != len(slots) {
		t.Fatalf("record at slot %d, want %d", r.Slot, len(slots))
	}
	recs, probs := ParseDir(d.raw, FAT16)
	if len(recs) != 1 || recs[0].Name != "NEW.TXT" || len(probs) != 0 {
		t.Fatalf("records %+v, problems %+v", recs, probs)
	}
}

// growthFor says how much a directory must grow for a name, and refuses a
// full fixed root.
func TestGrowthFor(t *testing.T) {
	v := openVerb(t, verbImage(t, "16"))
	if err := v.Mkdir("D", time.Unix(1e9, 0)); err != nil {
		t.Fatal(err)
	}
	d, err := v.loadDir(recOf(t, v, "D").Entry.Cluster) // 512-byte clusters: 16 slots
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 14; i++ {
		if n, err := d.growthFor("F" + string(rune('A'+i)) + ".TXT"); n != 0 || err != nil {
			t.Fatalf("entry %d: growth %d, %v; want 0", i, n, err)
		}
		if _, err := d.add("F"+string(rune('A'+i))+".TXT", DirEntry{Attr: AttrArchive}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := d.growthFor("G.TXT"); n != 1 || err != nil {
		t.Fatalf("full directory: growth %d, %v; want 1", n, err)
	}
	if n, err := d.growthFor(strings.Repeat("long ", 50) + "x"); n != 2 || err != nil {
		t.Fatalf("a 251-character name (21 slots): growth %d, %v; want 2", n, err)
	}
	root, _ := v.rootDir()
	for i := 0; len(root.raw)/DirEntrySize > len(root.list())+1; i++ {
		if _, err := root.add("R"+strings.Repeat("x", i%5)+string(rune('A'+i%26))+string(rune('A'+i/26)), DirEntry{Attr: AttrArchive}); err != nil {
			break
		}
	}
	if _, err := root.growthFor("ONE.MORE.NAME.txt"); !errors.Is(err, ErrDirFull) {
		t.Fatalf("full fixed root: %v, want ErrDirFull", err)
	}
}

// A path ending in a slash must name a directory.
func TestTrailingSlash(t *testing.T) {
	v := openVerb(t, verbImage(t, "16"))
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"Stat file/", ErrNotDir, func() error { _, err := v.Stat("A.TXT/"); return err }},
		{"Open file/", ErrNotDir, func() error { _, err := v.Open("A.TXT/"); return err }},
		{"Remove file/", ErrNotDir, func() error { return v.Remove("A.TXT/") }},
		{"RemoveAll file/", ErrNotDir, func() error { return v.RemoveAll("A.TXT/") }},
		{"SetAttr file/.", ErrNotDir, func() error { return v.SetAttr("A.TXT/.", AttrHidden, 0) }},
		{"Create new/", ErrIsDir, func() error { _, err := v.Create("NEW/", 0, time.Now()); return err }},
		{"Create file/", ErrNotDir, func() error { _, err := v.Create("A.TXT/", 0, time.Now()); return err }},
		{"Rename file to new/", ErrNotDir, func() error { return v.Rename("A.TXT", "B/") }},
		{"Fallocate new/", ErrIsDir, func() error { _, err := v.Fallocate("N/", 10, FallocateOptions{}); return err }},
		{"Stat dir/", nil, func() error { _, err := v.Stat("SUB/"); return err }},
		{"Mkdir new/", nil, func() error { return v.Mkdir("NEWDIR/", time.Now()) }},
	} {
		if err := tc.fn(); !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	if _, err := v.Stat("A.TXT"); err != nil {
		t.Fatalf("A.TXT: %v", err)
	}
	if _, err := v.Stat("NEWDIR"); !errors.Is(err, nil) {
		t.Fatalf("NEWDIR: %v", err)
	}
	if _, err := v.Stat("NEW"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("NEW: %v", err)
	}
}

// A boot sector without the 55 aa signature decodes, with a warning.
func TestBootSectorWithoutSignature(t *testing.T) {
	for _, f := range []string{"boot-fat16.bin", "boot-fat32.bin"} {
		b := readTestdata(t, f)
		b[510], b[511] = 0, 0
		bs, err := DecodeBootSector(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !bs.NoSignature || !strings.Contains(strings.Join(bs.Warnings(), "\n"), "signature") {
			t.Fatalf("%s: NoSignature %v, warnings %q", f, bs.NoSignature, bs.Warnings())
		}
		out := make([]byte, 512)
		bs.Encode(out)
		if out[510] != 0x55 || out[511] != 0xAA {
			t.Fatalf("%s: Encode wrote no signature", f)
		}
	}
}

// The end marker a directory tracks stays where DirEnd finds it, through
// adds, removes and growth, so that lookups for free slots need not scan
// from slot 0.
func TestDirEndTracked(t *testing.T) {
	v := openVerb(t, verbImage(t, "16"))
	if err := v.Mkdir("D", time.Unix(1e9, 0)); err != nil {
		t.Fatal(err)
	}
	d, err := v.loadDir(recOf(t, v, "D").Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	for i := 0; i < 200; i++ {
		name := strings.Repeat("n", 1+i%40) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		r, err := d.add(name, DirEntry{Attr: AttrArchive})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
		if i%3 == 0 {
			d.remove(recs[i/2])
		}
		if d.end != DirEnd(d.raw) {
			t.Fatalf("after %d adds: end %d, DirEnd %d", i+1, d.end, DirEnd(d.raw))
		}
	}
}

// A folder of names that take three slots each holds 20,479 of them: five
// to a 512-byte sector, since no name straddles one, and "." and ".."
// first. The refusal past that speaks of slots, not of 65,536 entries
// the user cannot see.
func TestDirFullOfThreeSlotNames(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a folder of 20,480 names")
	}
	_, v := formatMem(t, FormatParams{Size: 64 << 20, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 4096}, checkClock)
	defer v.Close()
	if err := v.Mkdir("/d", checkClock); err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; ; n++ {
		w, err := v.Create(fmt.Sprintf("/d/a file name of 25 %05d", n), 0, checkClock)
		if err != nil {
			if !errors.Is(err, ErrDirFull) || !strings.Contains(err.Error(), "65536 slots") || !strings.Contains(err.Error(), "straddles a sector") {
				t.Fatalf("name %d: %v, want ErrDirFull speaking of slots", n, err)
			}
			break
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n != 20479 {
		t.Fatalf("the folder took %d names of three slots, want 20,479", n)
	}
}
