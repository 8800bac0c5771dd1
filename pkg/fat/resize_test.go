package fat

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/ftools/ftools/pkg/internal/resize"
)

// clearEntries frees the entries of the clusters a growth adds, keeping
// bad marks, the neighbours' nibbles (FAT12) and FAT32's high bits.
func TestClearEntries(t *testing.T) {
	for _, tc := range []struct {
		typ      Type
		raw      []byte
		from, to uint32
		want     []byte
		changed  bool
	}{
		{FAT12, []byte{0xFF, 0xFF, 0xFF, 0x34, 0x12, 0x00}, 2, 4, []byte{0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00}, true},
		{FAT12, []byte{0xFF, 0xFF, 0xFF, 0x34, 0x12, 0x00}, 3, 4, []byte{0xFF, 0xFF, 0xFF, 0x34, 0x02, 0x00}, true},
		{FAT12, []byte{0xFF, 0xFF, 0xFF, 0xF7, 0x0F, 0x00}, 2, 3, []byte{0xFF, 0xFF, 0xFF, 0xF7, 0x0F, 0x00}, false}, // bad
		{FAT16, []byte{0xF8, 0xFF, 0xFF, 0xFF, 0x05, 0x00, 0xF7, 0xFF}, 2, 4, []byte{0xF8, 0xFF, 0xFF, 0xFF, 0, 0, 0xF7, 0xFF}, true},
		{FAT32, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0, 0, 0xF0, 0xF7, 0xFF, 0xFF, 0x0F}, 2, 4, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xF0, 0xF7, 0xFF, 0xFF, 0x0F}, true},
	} {
		b := append([]byte(nil), tc.raw...)
		if got := clearEntries(tc.typ, b, 0, tc.from, tc.to); got != tc.changed || string(b) != string(tc.want) {
			t.Errorf("%s %d-%d: % x (changed %v), want % x (%v)", tc.typ, tc.from, tc.to, b, got, tc.want, tc.changed)
		}
	}
}

// typeLimits: FAT12 and FAT16 keep their cluster-count ranges; FAT32
// stays within its own, or below FAT16's limit only if it was already.
func TestResizeTypeLimits(t *testing.T) {
	for _, tc := range []struct {
		typ      Type
		old, new uint32
		ok       bool
	}{
		{FAT12, 4000, 4084, true},
		{FAT12, 4000, 4085, false},
		{FAT16, 5000, 4085, true},
		{FAT16, 5000, 4084, false},
		{FAT16, 5000, 65524, true},
		{FAT16, 5000, 65525, false},
		{FAT32, 70000, 65525, true},
		{FAT32, 70000, 65524, false},
		{FAT32, 1000, 900, true},
		{FAT32, 70000, MaxClusters32 + 1, false},
	} {
		r := &resizer{l: &Layout{Type: tc.typ, Clusters: tc.old, ClusterSize: 512}, newCount: tc.new}
		err := r.typeLimits()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, resize.ErrTypeLimit)) {
			t.Errorf("%s %d -> %d clusters: %v, want ok %v", tc.typ, tc.old, tc.new, err, tc.ok)
		}
	}
}

// renumber takes k from every first cluster, "." and ".." included, but
// not a ".." of 0 (the root), deleted entries, or what follows the end.
func TestRenumber(t *testing.T) {
	entry := func(name string, attr Attr, c Cluster) []byte {
		b := make([]byte, DirEntrySize)
		copy(b, name)
		b[direntAttr] = byte(attr)
		binary.LittleEndian.PutUint16(b[direntClusterLow:], uint16(c))
		binary.LittleEndian.PutUint16(b[direntClusterHigh:], uint16(c>>16))
		return b
	}
	var raw []byte
	raw = append(raw, entry(".          ", AttrDirectory, 0x10050)...)
	raw = append(raw, entry("..         ", AttrDirectory, 0)...)
	raw = append(raw, entry("FILE    TXT", 0, 0x10060)...)
	del := entry("GONE    TXT", 0, 0x10070)
	del[0] = SlotDeleted
	raw = append(raw, del...)
	raw = append(raw, entry("EMPTY   TXT", 0, 0)...)
	raw = append(raw, make([]byte, DirEntrySize)...)
	raw = append(raw, entry("AFTER   TXT", 0, 0x10080)...)
	out := renumber(raw, 0x10, FAT32)
	for i, want := range []Cluster{0x10040, 0, 0x10050, 0x10070, 0, 0, 0x10080} {
		e := DecodeDirEntry(out[i*DirEntrySize:])
		if e.Cluster != want {
			t.Errorf("entry %d: cluster %#x, want %#x", i, e.Cluster, want)
		}
	}
}

// A refusal at the type's limits names the nearest size the layout holds
// (past the FATs' spare sectors: the data area would move) and a type and
// cluster size that a new file system of the size asked for could have.
func TestResizeTypeLimitAdvice(t *testing.T) {
	l := &Layout{Type: FAT16, Clusters: 5000, ClusterSize: 2048, SectorSize: 512, NumFATs: 2, DataOffset: 100 * 512, FATSize: 20 * 512}
	for _, tc := range []struct {
		count     uint32
		size      int64
		nearest   int64
		movesData bool
		makeType  string
		makeCS    int64
	}{
		{70000, 100*512 + 70000*2048, 100*512 + 65524*2048, true, "16", 4096},
		{4000, 100*512 + 4000*2048, 100*512 + 4085*2048, false, "12", 2048},
	} {
		r := &resizer{l: l, newCount: tc.count, o: resize.Options{Size: tc.size}}
		var e *resize.TypeLimitError
		if err := r.typeLimits(); !errors.As(err, &e) || !errors.Is(err, resize.ErrTypeLimit) {
			t.Fatalf("%d clusters: %v, want a TypeLimitError", tc.count, err)
		}
		if e.Nearest != tc.nearest || e.NearestMovesData != tc.movesData || e.MakeType != tc.makeType || e.MakeClusterSize != tc.makeCS {
			t.Errorf("%d clusters: %+v; want nearest %d (moves data %v), FAT%s with %d-byte clusters", tc.count, e, tc.nearest, tc.movesData, tc.makeType, tc.makeCS)
		}
	}
}
