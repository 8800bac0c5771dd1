package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// exfatSDCase is an SDXC card and the layout the SD specification's table
// gives it (see pkg/exfat/sd.go): cluster size and boundary unit by
// capacity, the partition one BU in, the FAT in the second half of the
// partition's first BU, the cluster heap on the next BU boundary.
type exfatSDCase struct {
	name    string
	bytes   int64
	cluster int64
	bu      int64
}

var exfatSDCases = []exfatSDCase{
	{"64GB", 64_000_000_000, 128 << 10, 16 << 20},
	{"128GB", 128_000_000_000, 128 << 10, 16 << 20},
	{"256GB", 256_000_000_000, 256 << 10, 32 << 20},
	{"1TB", 1_000_000_000_000, 512 << 10, 64 << 20},
}

// checkSDXC holds fmkfs --sd's result on a card to the case's layout and
// the volume to fsck.exfat, fsinfo and a first write.
func checkSDXC(t *testing.T, tc exfatSDCase, img string, res sdMkfsJSON) {
	t.Helper()
	if res.FATType != "exFAT" || res.ClusterSize != tc.cluster || res.SD == nil || res.SD.BU != tc.bu {
		t.Fatalf("fmkfs --sd: %+v %+v, want exFAT with %d-byte clusters and BU %d", res, res.SD, tc.cluster, tc.bu)
	}
	if res.SD.PartitionSector*512 != tc.bu || res.VolumeStart != tc.bu || res.SD.MBRType != 7 {
		t.Fatalf("partition at sector %d (type 0x%02x), want one BU (%d), type 0x07", res.SD.PartitionSector, res.SD.MBRType, tc.bu/512)
	}
	if res.SD.DataStart != 2*tc.bu || !res.SD.DataAligned {
		t.Fatalf("cluster heap at byte %d, want the second BU boundary %d", res.SD.DataStart, 2*tc.bu)
	}
	dump := ok(t, "sfdisk", "--dump", img)
	want := fmt.Sprintf("start=%12d, size=%12d, type=7", tc.bu/512, tc.bytes/512-tc.bu/512)
	if !strings.Contains(dump, want) {
		t.Fatalf("sfdisk --dump:\n%s\nwant a line with %q", dump, want)
	}
	var fi exfatInfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
	if fi.FATType != "exFAT" || fi.ClusterSize != tc.cluster || !fi.Alignment.PartitionAligned || !fi.Alignment.DataAligned || fi.Alignment.BU != tc.bu {
		t.Fatalf("fsinfo --partition 1: %+v", fi)
	}
	// The FAT lies in the partition's first BU, after the boot regions.
	if fi.FATSectors*512 != tc.bu/2 {
		t.Fatalf("FAT of %d sectors, want half a BU (%d)", fi.FATSectors, tc.bu/1024)
	}
	out := ok(t, "fsinfo", "--partition", "1", img)
	if !strings.Contains(out, fmt.Sprintf("cluster heap at byte %d (aligned)", 2*tc.bu)) {
		t.Fatalf("fsinfo does not report the aligned cluster heap:\n%s", out)
	}
	fsckExFAT(t, img, tc.bu)
	ok(t, "fmkdir", "-i", img, "::/DCIM")
	fsckExFAT(t, img, tc.bu)
}

// fmkfs --sd lays out SDXC cards of 64 GB, 128 GB, 256 GB and 1 TB (sparse
// images) as exFAT, as the SD specification's table says.
func TestExFATSDXC(t *testing.T) {
	need(t, "sfdisk", "fsck.exfat")
	for _, tc := range exfatSDCases {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			var res sdMkfsJSON
			jsonOut(t, &res, "fmkfs", "--json", "--sd", "--size", fmt.Sprint(tc.bytes), "--label", "Card", img)
			checkSDXC(t, tc, img, res)
		})
	}
	// --sd --fat 32 keeps FAT32 over 32 GiB; --sd --type exfat under it is
	// refused with the reason.
	dir := t.TempDir()
	var res sdMkfsJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", "--fat", "32", "--size", "64G", filepath.Join(dir, "f32.img"))
	if res.FATType != "FAT32" {
		t.Fatalf("--sd --fat 32 on 64 GiB made %s", res.FATType)
	}
	if msg := fails(t, "fmkfs", "--sd", "--type", "exfat", "--size", "16G", filepath.Join(dir, "small.img")); !strings.Contains(msg, "SDXC") {
		t.Fatalf("--sd --type exfat on 16 GiB: %q", msg)
	}
}

// On a block device (a loop device standing in for a 64 GB card) the
// card's size comes from the device.
func TestExFATSDXCLoop(t *testing.T) {
	need(t, "sfdisk", "fsck.exfat", "truncate")
	tc := exfatSDCases[0]
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "truncate", "-s", fmt.Sprint(tc.bytes), img)
	dev := attach(t, img, 512)
	var res sdMkfsJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", "--force", dev)
	checkSDXC(t, tc, img, res)
}
