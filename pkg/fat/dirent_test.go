package fat

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeDirEntryMtools(t *testing.T) {
	// "README2 TXT" as mtools 4.0.32 wrote it: archive, cluster 2, 2 bytes.
	raw := mustHex(t, "524541444d4532205458542000008c72825d825d00008c72825d020002000000")
	e := DecodeDirEntry(raw)
	want := DirEntry{
		Name: [11]byte([]byte("README2 TXT")), Attr: AttrArchive,
		CreateTime: 0x728c, CreateDate: 0x5d82, AccessDate: 0x5d82,
		ModTime: 0x728c, ModDate: 0x5d82, Cluster: 2, Size: 2,
	}
	if e != want {
		t.Fatalf("got %+v\nwant %+v", e, want)
	}
	if e.IsDir() || e.IsLabel() || e.IsLongName() {
		t.Error("plain file reported as dir, label or LFN")
	}
	var out [DirEntrySize]byte
	e.Encode(out[:])
	if !bytes.Equal(out[:], raw) {
		t.Errorf("re-encoded\n%x\nwant\n%x", out, raw)
	}
}

func TestDirEntryRoundTrip(t *testing.T) {
	e := DirEntry{
		Name: [11]byte([]byte("BIGFILE BIN")), Attr: AttrDirectory | AttrHidden, NTRes: NTLowerExt,
		CreateTenth: 199, CreateTime: 0x1234, CreateDate: 0x5678, AccessDate: 0x9abc,
		Cluster: 0x0ABCDEF0, ModTime: 0xdef0, ModDate: 0x1357, Size: 0xFFFFFFFF,
	}
	var b [DirEntrySize]byte
	e.Encode(b[:])
	// FstClusHI at 20, FstClusLO at 26.
	if b[20] != 0xBC || b[21] != 0x0A || b[26] != 0xF0 || b[27] != 0xDE {
		t.Errorf("cluster bytes %x %x", b[20:22], b[26:28])
	}
	if got := DecodeDirEntry(b[:]); got != e {
		t.Errorf("round trip: got %+v, want %+v", got, e)
	}
	if !e.IsDir() || e.IsLabel() {
		t.Error("IsDir/IsLabel wrong")
	}
}

func TestDirEntryAttrPredicates(t *testing.T) {
	for _, tc := range []struct {
		a                  Attr
		dir, label, isLong bool
	}{
		{AttrLongName, false, false, true},
		{AttrLongName | 0xC0, false, false, true}, // the two reserved bits are ignored
		{AttrLongName | AttrArchive, false, true, false},
		{AttrLongName | AttrDirectory, true, true, false},
		{AttrVolumeID, false, true, false},
		{AttrVolumeID | AttrArchive, false, true, false},
		{AttrDirectory, true, false, false},
		{AttrArchive | AttrReadOnly, false, false, false},
	} {
		e := DirEntry{Attr: tc.a}
		if e.IsDir() != tc.dir || e.IsLabel() != tc.label || e.IsLongName() != tc.isLong {
			t.Errorf("attr %#02x: dir %v label %v long %v", uint8(tc.a), e.IsDir(), e.IsLabel(), e.IsLongName())
		}
	}
}

func TestDecodeDirEntryShort(t *testing.T) {
	e := DecodeDirEntry([]byte("ABC"))
	if string(e.Name[:3]) != "ABC" || e.Name[3] != 0 || e.Size != 0 {
		t.Errorf("got %+v", e)
	}
	_ = DecodeDirEntry(nil)
}

func TestDirEntryTimes(t *testing.T) {
	useZone(t, time.UTC)
	c := time.Date(2001, 2, 3, 4, 5, 7, 250_000_000, time.UTC)
	m := time.Date(2010, 11, 12, 13, 14, 16, 0, time.UTC)
	a := time.Date(2020, 5, 6, 22, 0, 0, 0, time.UTC)
	var e DirEntry
	e.SetTimes(c, m, a)
	if got := e.CreateTimeValue(); !got.Equal(time.Date(2001, 2, 3, 4, 5, 7, 250_000_000, time.UTC)) {
		t.Errorf("create %v", got)
	}
	if got := e.ModTimeValue(); !got.Equal(m) {
		t.Errorf("mod %v", got)
	}
	if got := e.AccessTimeValue(); !got.Equal(time.Date(2020, 5, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("access %v", got)
	}
	if e.CreateTenth != 125 {
		t.Errorf("tenths %d, want 125", e.CreateTenth)
	}
}
