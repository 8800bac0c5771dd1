package exfat

import (
	"errors"
	"testing"
	"time"
)

func TestDefaultUpcase(t *testing.T) {
	raw := DefaultUpcaseBytes()
	if len(raw) != DefaultUpcaseSize || UpcaseChecksum(raw) != DefaultUpcaseChecksum {
		t.Fatalf("default table: %d bytes, checksum %#08x; want %d and %#08x", len(raw), UpcaseChecksum(raw), DefaultUpcaseSize, uint32(DefaultUpcaseChecksum))
	}
	u, err := DecodeUpcase(raw)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[rune]rune{'a': 'A', 'z': 'Z', 'A': 'A', 'é': 'É', 'ÿ': 'Ÿ', 'ω': 'Ω', 'я': 'Я', 'ｚ': 'Ｚ', '1': '1', 'ß': 'ß'} {
		if got := u.ToUpper(uint16(c)); got != uint16(want) {
			t.Errorf("ToUpper(%q) = %q, want %q", c, rune(got), want)
		}
	}
	for _, bad := range [][]byte{nil, {1}, make([]byte, maxUpcaseBytes+2)} {
		if _, err := DecodeUpcase(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeUpcase(%d bytes): %v", len(bad), err)
		}
	}
	// A run past the last code unit is cut, never followed.
	if _, err := DecodeUpcase([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x41, 0x00, 0xFF, 0xFF, 0xFF, 0xFF}); err != nil {
		t.Fatal(err)
	}
}

func TestTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Time
	}{
		{time.Date(2024, 2, 29, 23, 59, 59, 990_000_000, time.UTC), time.Date(2024, 2, 29, 23, 59, 59, 990_000_000, time.UTC)},
		{time.Date(2001, 1, 1, 0, 0, 1, 5_000_000, time.FixedZone("", 3600)), time.Date(2000, 12, 31, 23, 0, 1, 0, time.UTC)},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2107, 12, 31, 23, 59, 59, 990_000_000, time.UTC)},
	} {
		ts := MakeTimestamp(tc.in)
		if got := ts.Time(); !got.Equal(tc.want) {
			t.Errorf("%v: round trip %v, want %v", tc.in, got, tc.want)
		}
		if ts.UTCOffset != utcOffValid {
			t.Errorf("%v: UTC offset %#x", tc.in, ts.UTCOffset)
		}
	}
	// A timestamp written with +02:00 reads back as the same instant.
	ts := Timestamp{Raw: MakeTimestamp(time.Date(2020, 6, 1, 12, 0, 0, 0, time.UTC)).Raw, UTCOffset: utcOffValid | 8}
	if got := ts.Time(); !got.Equal(time.Date(2020, 6, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("+02:00 timestamp reads as %v", got)
	}
	ts.UTCOffset = utcOffValid | 0x70 // -04:00: -16 quarters in 7 bits
	if got := ts.Time(); !got.Equal(time.Date(2020, 6, 1, 16, 0, 0, 0, time.UTC)) {
		t.Errorf("-04:00 timestamp reads as %v", got)
	}
	// Garbage fields are clamped, never a panic.
	_ = Timestamp{Raw: 0xFFFFFFFF, Ms10: 255, UTCOffset: 0xFF}.Time()
}

func TestBootSectorValidate(t *testing.T) {
	bs, _, err := Plan(FormatParams{Size: 64 << 20, Serial: 1})
	if err != nil {
		t.Fatal(err)
	}
	region := EncodeBootRegion(bs)
	if _, err := CheckBootRegion(region, 512, 0); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeBootSector(region)
	if err != nil || *got != *bs {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for _, tc := range []struct {
		field  string
		mutate func(b *BootSector)
	}{
		{"bytes per sector shift", func(b *BootSector) { b.SectorShift = 13 }},
		{"sectors per cluster shift", func(b *BootSector) { b.ClusterShift = 20 }},
		{"number of FATs", func(b *BootSector) { b.NumberOfFATs = 3 }},
		{"FAT offset", func(b *BootSector) { b.FATOffset = 12 }},
		{"FAT length", func(b *BootSector) { b.FATLength = 1 }},
		{"cluster heap offset", func(b *BootSector) { b.ClusterHeapOffset = b.FATOffset }},
		{"cluster count", func(b *BootSector) { b.ClusterCount = 16000 }},
		{"first cluster of root directory", func(b *BootSector) { b.RootCluster = 1 }},
		{"file system revision", func(b *BootSector) { b.Revision = 0x0200 }},
		{"volume length", func(b *BootSector) { b.VolumeLength = 100 }},
	} {
		c := *bs
		tc.mutate(&c)
		buf := make([]byte, 512)
		c.Encode(buf)
		_, err := DecodeBootSector(buf)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", tc.field, err)
		}
	}
	buf := make([]byte, 512)
	copy(buf[3:], "NTFS    ")
	if _, err := DecodeBootSector(buf); !errors.Is(err, ErrNotExFAT) {
		t.Errorf("NTFS boot sector: %v", err)
	}
	region[100] ^= 1
	if _, err := CheckBootRegion(region, 512, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad checksum: %v", err)
	}
	// VolumeFlags and PercentInUse are outside the checksum.
	region[100] ^= 1
	region[offVolumeFlags], region[offPercentInUse] = FlagVolumeDirty, 55
	if _, err := CheckBootRegion(region, 512, 0); err != nil {
		t.Errorf("flags changed the checksum: %v", err)
	}
}

func TestEntrySetRoundTrip(t *testing.T) {
	up := DefaultUpcase()
	for _, name := range []string{"a", "exactly15chars!", "sixteen chars!!!", string(make([]rune, 0)) + "日本語", longName(255)} {
		u, err := EncodeName(name)
		if err != nil {
			t.Fatal(err)
		}
		s := EntrySet{File: FileEntry{Attr: AttrArchive, Modify: MakeTimestamp(testTime)}, Stream: StreamEntry{Flags: streamAllocOK | streamNoFATChain, FirstCluster: 9, DataLength: 1234, ValidDataLength: 1000}, Name: u}
		b := s.Encode(up)
		if len(b) != (2+nameEntries(len(u)))*EntrySize {
			t.Fatalf("%q: %d bytes", name, len(b))
		}
		got, n, err := DecodeEntrySet(append(b, make([]byte, 64)...), 0)
		if err != nil || n != len(b)/EntrySize || decodeName(got.Name) != name || got.Stream != s.Stream || got.File != s.File {
			t.Fatalf("%q: decoded %+v %d %v", name, got, n, err)
		}
		if err := got.CheckNameHash(up, 0); err != nil {
			t.Error(err)
		}
		b[EntrySize+offDataLength] ^= 1
		if _, _, err := DecodeEntrySet(b, 0); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: damaged set decoded: %v", name, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a:b", "tab\there", longName(256), "\xff"} {
		if _, err := EncodeName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("EncodeName(%q): %v", bad, err)
		}
	}
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}
