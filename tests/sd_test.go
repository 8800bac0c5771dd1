package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

type sdMkfsJSON struct {
	FATType     string `json:"fat_type"`
	ClusterSize int64  `json:"cluster_size"`
	VolumeStart int64  `json:"volume_start"`
	SD          *struct {
		BU              int64 `json:"bu"`
		PartitionSector int64 `json:"partition_start_sector"`
		MBRType         int   `json:"mbr_type"`
		DataStart       int64 `json:"data_start"`
		DataAligned     bool  `json:"data_bu_aligned"`
	} `json:"sd"`
}

// fsckAt checks the volume at offset through a loop device (fsck.fat
// cannot take an offset, and copying out a 30 GB sparse volume is slow).
func fsckAt(t *testing.T, img string, offset int64) {
	t.Helper()
	need(t, "losetup", "fsck.fat")
	dev := strings.TrimSpace(ok(t, "losetup", "-o", fmt.Sprint(offset), "-f", "--show", img))
	defer run(t, "losetup", "-d", dev)
	fsckClean(t, dev, 0)
}

// fmkfs --sd lays out 2, 8 and 32 GB cards as the SD specification's table
// and rules say, and fsck.fat, minfo and mcopy accept the result.
func TestFmkfsSD(t *testing.T) {
	need(t, "sfdisk", "minfo", "mcopy")
	cases := []struct {
		sectors int64
		fat     string
		cluster int64
		bu      int64
		mbrType string
	}{
		{3862528, "FAT16", 32 << 10, 64 << 10, "6"},
		{15523840, "FAT32", 32 << 10, 4 << 20, "b"},
		{62333952, "FAT32", 32 << 10, 4 << 20, "c"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.sectors), func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			var res sdMkfsJSON
			jsonOut(t, &res, "fmkfs", "--json", "--sd", "--size", fmt.Sprint(tc.sectors*512), img)
			if res.FATType != tc.fat || res.ClusterSize != tc.cluster || res.SD == nil || res.SD.BU != tc.bu {
				t.Fatalf("fmkfs --sd: %+v, want %s with %d-byte clusters and BU %d", res, tc.fat, tc.cluster, tc.bu)
			}
			if res.SD.DataStart%tc.bu != 0 || !res.SD.DataAligned {
				t.Fatalf("data area at byte %d is not on a %d-byte BU", res.SD.DataStart, tc.bu)
			}
			if tc.fat == "FAT32" && res.SD.PartitionSector*512 != tc.bu {
				t.Fatalf("FAT32 partition starts at sector %d, want one BU (%d)", res.SD.PartitionSector, tc.bu/512)
			}
			dump := ok(t, "sfdisk", "--dump", img)
			want := fmt.Sprintf("start=%12d, size=%12d, type=%s", res.SD.PartitionSector, tc.sectors-res.SD.PartitionSector, tc.mbrType)
			if !strings.Contains(dump, want) {
				t.Fatalf("sfdisk --dump:\n%s\nwant a line with %q", dump, want)
			}
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
			if fi.FATType != tc.fat || fi.VolumeStart != res.VolumeStart {
				t.Fatalf("fsinfo --partition 1: %s at %d", fi.FATType, fi.VolumeStart)
			}
			out := ok(t, "fsinfo", "--partition", "1", img)
			if !strings.Contains(out, "data area at byte "+fmt.Sprint(res.SD.DataStart)+" (aligned)") {
				t.Fatalf("fsinfo does not report the aligned data area:\n%s", out)
			}
			fsckAt(t, img, res.VolumeStart)
			if info := ok(t, "minfo", "-i", mimg(img, res.VolumeStart), "::"); !strings.Contains(info, "sector size: 512") {
				t.Fatalf("minfo:\n%s", info)
			}
			roundTripMtools(t, img, res.VolumeStart)
		})
	}
}

// Over 32 GiB the standard asks for exFAT (tests/exfat_sd_test.go); --fat
// 32 makes FAT32 with the 32 GiB layout instead.
func TestFmkfsSDLarge(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "big.img")
	var res sdMkfsJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", "--fat", "32", "--size", "64G", img)
	if res.FATType != "FAT32" || res.SD.BU != 4<<20 || res.SD.PartitionSector != 8192 || !res.SD.DataAligned {
		t.Fatalf("64 GiB --sd --fat 32: %+v %+v", res, res.SD)
	}
	if msg := fails(t, "fmkfs", "--sd", "--cluster-size", "4K", "--size", "1G", filepath.Join(dir, "x.img")); !strings.Contains(msg, "--cluster-size") {
		t.Fatalf("--sd with --cluster-size: %q", msg)
	}
}

// On a block device the card's size comes from the device.
func TestFmkfsSDLoop(t *testing.T) {
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "truncate", "-s", "300M", img)
	dev := attach(t, img, 512)
	var res sdMkfsJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", dev)
	if res.FATType != "FAT16" || res.ClusterSize != 16<<10 || res.SD.BU != 64<<10 || !res.SD.DataAligned {
		t.Fatalf("fmkfs --sd on a 300 MiB device: %+v %+v", res, res.SD)
	}
	fsckAt(t, img, res.VolumeStart)
}

// fsinfo and fmkfs --sd agree on a card's BU (one source: a 64 MiB card
// takes the FAT16 row, BU 32 KiB, as its cluster count does not fit
// FAT12), and fsinfo judges what the specification asks to be aligned:
// the data area, and for FAT32 the partition's start; a FAT12/16
// partition starts wherever that puts it, which is not "not aligned".
func TestFsinfoSDAlignment(t *testing.T) {
	for _, size := range []string{"64M", "200M", "3G"} {
		t.Run(size, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			var res sdMkfsJSON
			jsonOut(t, &res, "fmkfs", "--json", "--sd", "--size", size, img)
			var fi struct {
				Alignment struct {
					BU          int64 `json:"sd_bu"`
					DataAligned bool  `json:"data_bu_aligned"`
				} `json:"alignment"`
			}
			jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
			if fi.Alignment.BU != res.SD.BU || !fi.Alignment.DataAligned {
				t.Fatalf("fsinfo: BU %d, data aligned %v; fmkfs --sd used BU %d", fi.Alignment.BU, fi.Alignment.DataAligned, res.SD.BU)
			}
			out := ok(t, "fsinfo", "--partition", "1", img)
			if !strings.Contains(out, fmt.Sprintf("BU %d bytes", res.SD.BU)) || strings.Contains(out, "not aligned") {
				t.Fatalf("fsinfo on an SD layout (fmkfs said BU %d):\n%s", res.SD.BU, out)
			}
		})
	}
}
