package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A refused fmkfs leaves the image as it was, its size too: --size used to
// extend the file before the refusals that follow it (a whole disk with a
// table, a table to replace without a terminal, an offset inside a
// partition), so a refused command grew the image, and a GPT's backup
// header no longer ended the disk. Growing a disk whose table would not
// grow with it is refused too, with --partition or without.
func TestFmkfsRefusedSizeLeavesFile(t *testing.T) {
	need(t, "sfdisk", "fsck.fat")
	for _, table := range []string{"mbr", "gpt"} {
		t.Run(table, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "disk.img")
			ok(t, "truncate", "-s", "64M", img)
			label := map[string]string{"mbr": "dos", "gpt": "gpt"}[table]
			runIn(t, "label: "+label+"\nstart=2048, size=40960\nstart=43008, size=40960\n", "sfdisk", "-q", img)
			ok(t, "fmkfs", "--partition", "1", img)
			before := imageSum(t, img)
			for _, args := range [][]string{
				{"--size", "128M", img},
				{"--size", "128M", "--table", "mbr", img},
				{"--size", "128M", "--offset", "50000", img},
				{"--size", "128M", "--partition", "1", img},
				{"--size", "128M", "--partition", "1", "--force", img},
			} {
				msg := fails(t, "fmkfs", args...)
				if !strings.Contains(msg, strings.ToUpper(table)+" table with partitions 1 (20.0 MiB, FAT16)") {
					t.Errorf("fmkfs %s: the refusal does not name the table: %q", strings.Join(args, " "), msg)
				}
				if fi, err := os.Stat(img); err != nil || fi.Size() != 64<<20 {
					t.Fatalf("fmkfs %s was refused but the image is now %v bytes (%v)", strings.Join(args, " "), fi.Size(), err)
				}
				if imageSum(t, img) != before {
					t.Fatalf("fmkfs %s was refused but changed the image", strings.Join(args, " "))
				}
			}
			if out := runIn(t, "", "sfdisk", "--verify", img); !strings.Contains(out, "No errors detected") {
				t.Fatalf("sfdisk --verify after the refusals: %s", out)
			}
			fsckClean(t, img, 1<<20)
			// The whole disk with --force formats over the table and may
			// grow the file; a new table may too.
			ok(t, "fmkfs", "--size", "96M", "--force", "--table", table, img)
			if fi, _ := os.Stat(img); fi.Size() != 96<<20 {
				t.Fatalf("fmkfs --size 96M --force --table: image is %d bytes", fi.Size())
			}
			fsckClean(t, img, 1<<20)
		})
	}
}

// A device path that is not there (a card not inserted, a partition node
// not made yet) is named as a missing device: fmkfs --size used to create
// a regular file in /dev, filling memory and hiding the mistake, and
// without --size the hint said to give it.
func TestFmkfsMissingDeviceIsNoImage(t *testing.T) {
	dev := "/dev/ftools-qa-missing-disk"
	t.Cleanup(func() { os.Remove(dev) })
	for _, args := range [][]string{
		{"--size", "1M", dev},
		{"-C", dev, "1440"},
		{dev},
	} {
		msg := fails(t, "fmkfs", args...)
		if !strings.Contains(msg, "no such device") || strings.Contains(msg, "give --size") {
			t.Errorf("fmkfs %s: %q", strings.Join(args, " "), msg)
		}
		if _, err := os.Lstat(dev); err == nil {
			t.Fatalf("fmkfs %s created %s", strings.Join(args, " "), dev)
		}
	}
}
