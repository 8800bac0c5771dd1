package fat

import (
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/sdcard"
)

// The SD layout for 2, 8 and 32 GB cards (and a few small ones) follows the
// specification's table and rules, and Plan builds exactly that layout.
func TestPlanSD(t *testing.T) {
	cases := []struct {
		sectors int64
		typ     Type
		cluster int64
		bu      int64
		mbr     byte
	}{
		{3862528, FAT16, 32 << 10, 64 << 10, 0x06},      // 2 GB
		{15523840, FAT32, 32 << 10, 4 << 20, 0x0B},      // 8 GB
		{62333952, FAT32, 32 << 10, 4 << 20, 0x0C},      // 32 GB
		{15360, FAT12, 8 << 10, 8 << 10, 0x01},          // 7.5 MiB
		{122880, FAT12, 16 << 10, 16 << 10, 0x01},       // 60 MiB
		{131072, FAT16, 16 << 10, 32 << 10, 0x06},       // exactly 64 MiB: too many clusters for FAT12
		{1000000, FAT16, 16 << 10, 64 << 10, 0x06},      // 488 MiB
		{60000, FAT12, 16 << 10, 16 << 10, 0x01},        // 29 MiB
		{500000, FAT16, 16 << 10, 32 << 10, 0x06},       // 244 MiB
		{30000, FAT12, 16 << 10, 16 << 10, 0x01},        // 14.6 MiB
		{16450560, FAT32, 32 << 10, 4 << 20, 0x0B},      // the CHS limit
		{16450561, FAT32, 32 << 10, 4 << 20, 0x0C},      // one past it
		{4194304 + 128, FAT32, 32 << 10, 4 << 20, 0x0B}, // just over 2 GiB
	}
	for _, tc := range cases {
		l, err := PlanSD(tc.sectors, false)
		if err != nil {
			t.Fatalf("%d sectors: %v", tc.sectors, err)
		}
		if l.Type != tc.typ || l.ClusterSize != tc.cluster || l.BU != tc.bu || l.MBRType != tc.mbr {
			t.Errorf("%d sectors: %s, %d-byte clusters, BU %d, MBR 0x%02x; want %s, %d, %d, 0x%02x",
				tc.sectors, l.Type, l.ClusterSize, l.BU, l.MBRType, tc.typ, tc.cluster, tc.bu, tc.mbr)
			continue
		}
		bs, lay, err := Plan(l.Params)
		if tc.sectors == 4194304+128 {
			// The table's FAT32 just over 2 GiB has fewer than 65,525
			// clusters: refused as any small FAT32 is, unless allowed.
			if err == nil || !strings.Contains(err.Error(), "FAT32 needs at least 65,525 clusters") {
				t.Errorf("%d sectors: small SD FAT32 planned without AllowSmallFAT32: %v", tc.sectors, err)
			}
			p := l.Params
			p.AllowSmallFAT32 = true
			bs, lay, err = Plan(p)
		}
		if err != nil {
			t.Fatalf("%d sectors: Plan: %v", tc.sectors, err)
		}
		start := l.PartitionStart * sdcard.Sector
		if start%l.BU != 0 && l.Type == FAT32 {
			t.Errorf("%d sectors: FAT32 partition at byte %d, not on a BU", tc.sectors, start)
		}
		if (start+lay.DataOffset)%l.BU != 0 {
			t.Errorf("%d sectors: data area at byte %d of the card, not on a %d-byte BU", tc.sectors, start+lay.DataOffset, l.BU)
		}
		if lay.Type != tc.typ || lay.ClusterSize != tc.cluster || bs.HiddenSectors != uint32(l.PartitionStart) {
			t.Errorf("%d sectors: Plan made %s with %d-byte clusters, hidden %d", tc.sectors, lay.Type, lay.ClusterSize, bs.HiddenSectors)
		}
		if l.PartitionStart+lay.TotalSize/sdcard.Sector > tc.sectors {
			t.Errorf("%d sectors: the volume ends past the card", tc.sectors)
		}
		if l.Type == FAT32 {
			if bs.FSInfoSector != 1 || bs.BackupBootSector != 6 || bs.ReservedSectors < 9 {
				t.Errorf("%d sectors: FSINFO %d, backup %d, reserved %d", tc.sectors, bs.FSInfoSector, bs.BackupBootSector, bs.ReservedSectors)
			}
		} else if bs.ReservedSectors != 1 || bs.RootEntries != 512 || bs.NumFATs != 2 {
			t.Errorf("%d sectors: reserved %d, root entries %d, FATs %d", tc.sectors, bs.ReservedSectors, bs.RootEntries, bs.NumFATs)
		}
	}
}

// Over 32 GiB the specification asks for exFAT: refused unless FAT32 is
// asked for, which then gets the 32 GiB row's layout.
func TestPlanSDLarge(t *testing.T) {
	const sectors = 64 << 30 / sdcard.Sector
	if _, err := PlanSD(sectors, false); err == nil {
		t.Fatal("a 64 GiB card got a FAT layout without --fat 32")
	}
	l, err := PlanSD(sectors, true)
	if err != nil {
		t.Fatal(err)
	}
	if l.Type != FAT32 || l.ClusterSize != 32<<10 || l.BU != 4<<20 || l.PartitionStart != 8192 || l.MBRType != 0x0C {
		t.Fatalf("64 GiB with FAT32: %+v", l)
	}
}

// One rule gives every MBR type: by FAT type, size and whether the
// partition ends past the CHS limit.
func TestMBRType(t *testing.T) {
	cases := []struct {
		typ       Type
		size, end int64
		want      byte
	}{
		{FAT12, 2880, 2880, 0x01},
		{FAT16, 65535, 67583, 0x04},
		{FAT16, 65536, 67584, 0x06},
		{FAT16, 4 << 20, chsSectors + 1, 0x0E},
		{FAT32, 1 << 20, chsSectors, 0x0B},
		{FAT32, 1 << 20, chsSectors + 1, 0x0C},
	}
	for _, tc := range cases {
		if got := MBRType(tc.typ, tc.size, tc.end); got != tc.want {
			t.Errorf("MBRType(%s, %d, %d) = 0x%02x, want 0x%02x", tc.typ, tc.size, tc.end, got, tc.want)
		}
	}
}
