package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func TestFSInfoMkfs(t *testing.T) {
	raw := readTestdata(t, "fsinfo-fat32.bin")
	fi, err := DecodeFSInfo(raw)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := DecodeBootSector(readTestdata(t, "boot-fat32.bin"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := bs.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if fi.FreeCount != l.Clusters-1 || fi.NextFree != 2 {
		t.Errorf("mkfs.fat FSINFO = %+v, want free %d next 2", fi, l.Clusters-1)
	}
	out := make([]byte, 512)
	fi.Encode(out)
	if !bytes.Equal(out, raw) {
		t.Error("Encode differs from mkfs.fat's FSINFO sector")
	}
}

func TestFSInfoRoundTrip(t *testing.T) {
	for _, fi := range []FSInfo{{0, 0}, {12345, 678}, {FSInfoUnknown, FSInfoUnknown}} {
		b := bytes.Repeat([]byte{0xEE}, 4096)
		fi.Encode(b)
		got, err := DecodeFSInfo(b)
		if err != nil {
			t.Fatal(err)
		}
		if *got != fi {
			t.Errorf("round trip %+v -> %+v", fi, *got)
		}
		if b[4] != 0 || b[500] != 0 {
			t.Error("reserved areas not zeroed")
		}
		if b[512] != 0xEE || b[4095] != 0xEE {
			t.Error("bytes past 512 were touched")
		}
		if b[510] != 0x55 || b[511] != 0xAA {
			t.Errorf("trail bytes % x", b[508:512])
		}
	}
}

func TestFSInfoErrors(t *testing.T) {
	good := make([]byte, 512)
	(&FSInfo{1, 2}).Encode(good)
	for _, tc := range []struct {
		off  int
		text string
	}{
		{0, "fat: FSINFO: lead signature 0x41615253 at 0x00: want 0x41615252"},
		{484, "fat: FSINFO: structure signature 0x61417273 at 0x1e4: want 0x61417272"},
		{508, "fat: FSINFO: trail signature 0xaa550001 at 0x1fc: want 0xaa550000"},
	} {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[tc.off:], binary.LittleEndian.Uint32(b[tc.off:])+1)
		_, err := DecodeFSInfo(b)
		if !errors.Is(err, ErrCorrupt) || err.Error() != tc.text {
			t.Errorf("corrupt at %d: %v, want %s", tc.off, err, tc.text)
		}
	}
	if _, err := DecodeFSInfo(good[:511]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short sector: %v", err)
	}
}
