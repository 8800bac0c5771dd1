package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// attach makes a loop device for img (with the given logical sector size)
// and detaches it when the test ends.
func attach(t *testing.T, img string, sectorSize int) string {
	t.Helper()
	need(t, "losetup")
	out := ok(t, "losetup", "-b", fmt.Sprint(sectorSize), "-f", "--show", img)
	dev := strings.TrimSpace(out)
	t.Cleanup(func() { run(t, "losetup", "-d", dev) })
	return dev
}

// fmkfs and fsinfo take the size and sector size from a block device, and
// fsck.fat accepts the result.
func TestLoopDevices(t *testing.T) {
	need(t, "fsck.fat", "truncate")
	for _, ss := range []int{512, 4096} {
		t.Run(fmt.Sprintf("sector-%d", ss), func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			ok(t, "truncate", "-s", "600M", img)
			dev := attach(t, img, ss)
			var res mkfsResult
			jsonOut(t, &res, "fmkfs", "--json", dev)
			if res.SectorSize != int64(ss) || res.FATType != "FAT32" {
				t.Fatalf("fmkfs on %s: %s with %d-byte sectors, want FAT32 with %d", dev, res.FATType, res.SectorSize, ss)
			}
			fsckClean(t, dev, 0)
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", dev)
			if fi.TotalSectors*int64(fi.BytesPerSector) > 600<<20 || fi.TotalSectors*int64(fi.BytesPerSector) < 599<<20 {
				t.Fatalf("fsinfo: %d sectors of %d bytes on a 600 MiB device", fi.TotalSectors, fi.BytesPerSector)
			}
			if fi.BytesPerSector != ss {
				t.Fatalf("fsinfo: %d-byte sectors on a %d-byte device", fi.BytesPerSector, ss)
			}
		})
	}
}

// A partition table on a 4096-byte-sector device: go-diskfs reports MBR
// starts in 512-byte units there, which pkg/io converts.
func TestLoopPartitioned(t *testing.T) {
	for _, table := range []string{"mbr", "gpt"} {
		for _, ss := range []int{512, 4096} {
			t.Run(fmt.Sprintf("%s-%d", table, ss), func(t *testing.T) {
				img := filepath.Join(t.TempDir(), "card.img")
				ok(t, "truncate", "-s", "300M", img)
				dev := attach(t, img, ss)
				var res mkfsResult
				jsonOut(t, &res, "fmkfs", "--json", "--table", table, dev)
				if res.VolumeStart != 1<<20 || res.SectorSize != int64(ss) {
					t.Fatalf("volume at byte %d with %d-byte sectors", res.VolumeStart, res.SectorSize)
				}
				var fi fsinfoJSON
				jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", dev)
				if fi.VolumeStart != 1<<20 || fi.HiddenSectors != uint32((1<<20)/ss) {
					t.Fatalf("fsinfo --partition 1: start %d, hidden %d", fi.VolumeStart, fi.HiddenSectors)
				}
				// The whole disk now holds a table: formatting it needs --force.
				if msg := fails(t, "fmkfs", dev); !strings.Contains(msg, "--force") {
					t.Fatalf("formatting a partitioned disk whole: %q", msg)
				}
				// fsck.fat on the partition through a second loop device.
				part := strings.TrimSpace(ok(t, "losetup", "-b", fmt.Sprint(ss), "-o", "1048576", "-f", "--show", img))
				t.Cleanup(func() { run(t, "losetup", "-d", part) })
				fsckClean(t, part, 0)
			})
		}
	}
}

// fcp writes and reads a card through a block device with 512- and
// 4096-byte sectors (O_DIRECT at the device's alignment), and fsck.fat
// accepts the result.
func TestLoopCopy(t *testing.T) {
	for _, ss := range []int{512, 4096} {
		t.Run(fmt.Sprintf("sector-%d", ss), func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "card.img")
			ok(t, "truncate", "-s", "300M", img)
			dev := attach(t, img, ss)
			ok(t, "fmkfs", "--fat", "32", dev)
			src := filepath.Join(dir, "src")
			bigTree(t, src, 30, 300_001) // odd sizes: partial last blocks
			r := run(t, "fcp", "-r", "--json", "--stats", "-i", dev, src, "::/")
			if r.code != 0 || !strings.Contains(r.stdout, `"direct": true`) {
				t.Fatalf("fcp to %s: exit %d, want O_DIRECT\n%s%s", dev, r.code, r.stdout, r.stderr)
			}
			fsckClean(t, dev, 0)
			out := filepath.Join(dir, "out")
			ok(t, "fcp", "-r", "-i", dev, "::/src", out)
			ok(t, "diff", "-r", src, out)
		})
	}
}
