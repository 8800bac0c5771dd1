package fat

import (
	"bytes"
	"strings"
	"testing"
)

// buildDir encodes records for names (each a file of size i+1) into a
// directory of slots slots; it returns the bytes and the short names used.
func buildDir(t testing.TB, slots int, names ...string) []byte {
	t.Helper()
	raw := make([]byte, slots*DirEntrySize)
	used := NewShortNameSet()
	for i, n := range names {
		info, err := MakeShortName(n, used)
		if err != nil {
			t.Fatal(err)
		}
		used.Add(info.Short)
		rec, err := EncodeRecord(n, info, DirEntry{Attr: AttrArchive, Size: uint32(i + 1), Cluster: Cluster(i + 2)})
		if err != nil {
			t.Fatal(err)
		}
		at := FindFreeSlots(raw, len(rec)/DirEntrySize, 0)
		if at < 0 {
			t.Fatalf("no room for %q", n)
		}
		copy(raw[at*DirEntrySize:], rec)
	}
	return raw
}

func recordNames(recs []Record) []string {
	var s []string
	for _, r := range recs {
		s = append(s, r.Name)
	}
	return s
}

func TestParseDirRoundTrip(t *testing.T) {
	names := []string{"readme.txt", "Readme2.TXT", "long file name.html", "Ünïcødé.txt", "😀 smile",
		strings.Repeat("n", 255), "A.B", "abcdefghijklm", "x+y=z"}
	raw := buildDir(t, 64, names...)
	recs, probs := ParseDir(raw, FAT32)
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	if got := recordNames(recs); strings.Join(got, "/") != strings.Join(names, "/") {
		t.Fatalf("names %q\nwant %q", got, names)
	}
	next := 0
	for i, r := range recs {
		if r.Slot != next || r.Entry.Size != uint32(i+1) || r.Entry.Cluster != Cluster(i+2) {
			t.Errorf("%q: slot %d (want %d) size %d cluster %d", r.Name, r.Slot, next, r.Entry.Size, r.Entry.Cluster)
		}
		wantLong := names[i] != "readme.txt" && names[i] != "A.B"
		if r.HasLong != wantLong || (r.Slots > 1) != wantLong || r.Short != ShortName(r.Entry.Name) {
			t.Errorf("%q: HasLong %v Slots %d", r.Name, r.HasLong, r.Slots)
		}
		next += r.Slots
	}
	if recs[7].Slots != 2 || recs[5].Slots != 21 {
		t.Errorf("slots: 13 units %d, 255 units %d", recs[7].Slots, recs[5].Slots)
	}
	if DirEnd(raw) != next {
		t.Errorf("DirEnd %d, want %d", DirEnd(raw), next)
	}
}

func TestParseDirSpecialEntries(t *testing.T) {
	raw := make([]byte, 8*DirEntrySize)
	for i, e := range []DirEntry{
		{Name: DotName, Attr: AttrDirectory, Cluster: 5},
		{Name: DotDotName, Attr: AttrDirectory},
		{Name: sn("MY VOLUME  "), Attr: AttrVolumeID},
		{Name: sn("\x05BC     TXT"), Attr: AttrArchive},
	} {
		e.Encode(raw[i*DirEntrySize:])
	}
	raw[5*DirEntrySize] = 'Z' // after the end marker: ignored
	recs, probs := ParseDir(raw, FAT32)
	if len(probs) != 0 {
		t.Fatalf("problems %+v", probs)
	}
	if got := strings.Join(recordNames(recs), "/"); got != "./../MY VOLUME/ÕBC.TXT" {
		t.Errorf("names %q", got)
	}
	if !recs[2].Entry.IsLabel() || !recs[0].Entry.IsDir() {
		t.Error("label/dir flags lost")
	}
}

func problemKinds(probs []DirProblem) string {
	var s []string
	for _, p := range probs {
		s = append(s, p.Kind)
	}
	return strings.Join(s, ",")
}

func TestParseDirProblems(t *testing.T) {
	const long = "a long name of 27 characters" // 3 slots + short entry
	good := buildDir(t, 8, long)
	slot := func(raw []byte, i int) []byte { return raw[i*DirEntrySize : (i+1)*DirEntrySize] }
	for _, tc := range []struct {
		name  string
		edit  func(raw []byte)
		kinds string
		slot  int
	}{
		{"intact", func([]byte) {}, "", 0},
		{"bad checksum", func(raw []byte) {
			for i := 0; i < 3; i++ {
				slot(raw, i)[13]++
			}
		}, ProblemLFNChecksum, 0},
		{"renamed short entry", func(raw []byte) { slot(raw, 3)[0] = 'Q' }, ProblemLFNChecksum, 0},
		{"missing middle slot", func(raw []byte) { slot(raw, 1)[0] = SlotDeleted }, ProblemOrphanLFN + "," + ProblemOrphanLFN, 0},
		{"missing first slot", func(raw []byte) { slot(raw, 0)[0] = SlotDeleted }, ProblemOrphanLFN + "," + ProblemOrphanLFN, 1},
		{"swapped slots", func(raw []byte) {
			a := bytes.Clone(slot(raw, 1))
			copy(slot(raw, 1), slot(raw, 2))
			copy(slot(raw, 2), a)
		}, ProblemOrphanLFN + "," + ProblemLFNSequence + "," + ProblemOrphanLFN, 0},
		{"sequence 0", func(raw []byte) { slot(raw, 2)[0] = 0 | 0x80 }, ProblemOrphanLFN + "," + ProblemLFNSequence, 0},
		{"sequence too big", func(raw []byte) { slot(raw, 0)[0] = 0x40 | 21 }, ProblemLFNSequence + "," + ProblemOrphanLFN + "," + ProblemOrphanLFN, 0},
		{"short entry missing", func(raw []byte) { slot(raw, 3)[0] = 0 }, ProblemOrphanLFN, 0},
		{"empty name", func(raw []byte) {
			for i := 0; i < 3; i++ {
				slot(raw, i)[1], slot(raw, i)[2] = 0, 0
			}
		}, ProblemLFNName, 0},
		{"last slot missing sequence 1", func(raw []byte) {
			copy(slot(raw, 2), slot(raw, 3))
			slot(raw, 3)[0] = 0
		}, ProblemLFNSequence, 0},
	} {
		raw := bytes.Clone(good)
		tc.edit(raw)
		recs, probs := ParseDir(raw, FAT32)
		if got := problemKinds(probs); got != tc.kinds {
			t.Errorf("%s: problems %q, want %q: %+v", tc.name, got, tc.kinds, probs)
			continue
		}
		if len(probs) > 0 && probs[0].Slot != tc.slot {
			t.Errorf("%s: problem at slot %d, want %d", tc.name, probs[0].Slot, tc.slot)
		}
		for _, p := range probs {
			if p.Msg == "" {
				t.Errorf("%s: empty message", tc.name)
			}
		}
		if tc.kinds == "" {
			if len(recs) != 1 || recs[0].Name != long || !recs[0].HasLong || recs[0].Slots != 4 {
				t.Errorf("%s: %+v", tc.name, recs)
			}
			continue
		}
		for _, r := range recs {
			if r.HasLong || r.Slots != 1 || r.Name != r.Short.String() {
				t.Errorf("%s: record %+v should fall back to its short name", tc.name, r)
			}
		}
	}
}

func TestFindFreeSlots(t *testing.T) {
	raw := buildDir(t, 10, "A", "B", "C", "D", "E") // slots 0-4 used, 5-9 never used
	raw[1*DirEntrySize] = SlotDeleted
	raw[3*DirEntrySize] = SlotDeleted
	raw[4*DirEntrySize] = SlotDeleted
	for _, tc := range []struct{ n, from, want int }{
		{1, 0, 1},
		{1, 2, 3},
		{2, 0, 3},
		{3, 0, 3}, // 3, 4 deleted and 5 never used
		{7, 0, 3},
		{8, 0, -1},
		{5, 5, 5},
		{1, 9, 9},
		{1, 10, -1},
		{1, -4, 1},
		{0, 0, -1},
	} {
		if got := FindFreeSlots(raw, tc.n, tc.from); got != tc.want {
			t.Errorf("FindFreeSlots(n=%d, from=%d) = %d, want %d", tc.n, tc.from, got, tc.want)
		}
	}
	if got := FindFreeSlots(make([]byte, 3*DirEntrySize+5), 3, 0); got != 0 {
		t.Errorf("empty dir: %d", got)
	}
}

func TestEncodeRecord(t *testing.T) {
	info := NameInfo{Short: sn("README  TXT"), NTRes: NTLowerBase}
	rec, err := EncodeRecord("readme.TXT", info, DirEntry{Name: sn("IGNORED    "), Attr: AttrArchive, Size: 9})
	if err != nil || len(rec) != DirEntrySize {
		t.Fatalf("%d bytes, %v", len(rec), err)
	}
	if e := DecodeDirEntry(rec); e.Name != info.Short || e.NTRes != NTLowerBase || e.Size != 9 {
		t.Errorf("entry %+v", e)
	}
	info = NameInfo{Short: sn("LONGFI~1HTM"), NeedLong: true}
	rec, err = EncodeRecord("long file name.html", info, DirEntry{})
	if err != nil || len(rec) != 3*DirEntrySize {
		t.Fatalf("%d bytes, %v", len(rec), err)
	}
	// The same bytes mtools wrote for this name.
	if want := mustHex(t, "4265002e00680074006d000f00486c000000ffffffffffffffff0000ffffffff"); !bytes.Equal(rec[:32], want) {
		t.Errorf("first slot %x", rec[:32])
	}
	for _, bad := range []struct {
		long string
		info NameInfo
		e    DirEntry
	}{
		{"x", NameInfo{Short: sn("\xe5BC        ")}, DirEntry{}},
		{"x", NameInfo{}, DirEntry{}},
		{"x", NameInfo{Short: sn(" X         ")}, DirEntry{}},
		{"x", NameInfo{Short: sn("X          ")}, DirEntry{Attr: AttrLongName}},
		{"a?", NameInfo{Short: sn("A_~1       "), NeedLong: true}, DirEntry{}},
		{strings.Repeat("a", 256), NameInfo{Short: sn("AAAAAA~1   "), NeedLong: true}, DirEntry{}},
	} {
		if _, err := EncodeRecord(bad.long, bad.info, bad.e); err == nil {
			t.Errorf("EncodeRecord(%q, %q, attr %#x) succeeded", bad.long, bad.info.Short[:], uint8(bad.e.Attr))
		}
	}
}

func TestMarkDeleted(t *testing.T) {
	raw := buildDir(t, 16, "first long name", "B", "third long name")
	recs, _ := ParseDir(raw, FAT32)
	MarkDeleted(raw, recs[0])
	MarkDeleted(raw, Record{Slot: 15, Slots: 5}) // out of range: ignored
	after, probs := ParseDir(raw, FAT32)
	if len(probs) != 0 || strings.Join(recordNames(after), "/") != "B/third long name" {
		t.Fatalf("after delete: %q %+v", recordNames(after), probs)
	}
	if at := FindFreeSlots(raw, recs[0].Slots, 0); at != 0 {
		t.Errorf("freed slots not found: %d", at)
	}
}

func FuzzParseDir(f *testing.F) {
	f.Add(buildDir(f, 40, "readme.txt", "long file name.html", "Ünïcødé.txt", "😀", strings.Repeat("z", 200)))
	f.Add(mustHex(f, "4265002e00680074006d000f00486c000000ffffffffffffffff0000ffffffff"+
		"016c006f006e00670020000f0048660069006c00650020006e00000061006d00"+
		"4c4f4e4746497e3148544d2000008c72825d825d00008c72825d050006000000"))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0x41, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0f}, 20))
	addTestdataSeeds(f)
	addCorpusRootDirs(f) // the damaged-image corpus's root directories
	f.Fuzz(func(t *testing.T, raw []byte) {
		slots := len(raw) / DirEntrySize
		recs, probs := ParseDir(raw, FAT32)
		for _, r := range recs {
			if r.Slot < 0 || r.Slots < 1 || r.Slots > 21 || r.Slot+r.Slots > slots {
				t.Fatalf("record %+v out of bounds (%d slots)", r, slots)
			}
		}
		for _, p := range probs {
			if p.Slot < 0 || p.Slot >= slots || p.Kind == "" {
				t.Fatalf("problem %+v out of bounds (%d slots)", p, slots)
			}
		}
		recs16, _ := ParseDir(raw, FAT16)
		for i, r := range recs16 {
			if r.Entry.Cluster > 0xFFFF || r.Entry.Cluster != recs[i].Entry.Cluster&0xFFFF {
				t.Fatalf("FAT16 record %d has cluster %#x (FAT32: %#x)", i, r.Entry.Cluster, recs[i].Entry.Cluster)
			}
		}
		if at := FindFreeSlots(raw, 2, 0); at >= 0 && at+2 > slots {
			t.Fatalf("FindFreeSlots = %d with %d slots", at, slots)
		}
		for _, r := range recs {
			MarkDeleted(raw, r)
		}
		if after, _ := ParseDir(raw, FAT32); len(after) != 0 {
			t.Fatalf("%d records left after deleting all", len(after))
		}
	})
}
