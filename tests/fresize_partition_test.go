package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// partitionOf reads partition n of img's table.
func partitionOf(t *testing.T, img string, n int) fio.Partition {
	t.Helper()
	pt, err := fio.ReadPartitions(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pt.Partitions {
		if p.Index == n {
			return p
		}
	}
	t.Fatalf("%s has no partition %d: %+v", img, n, pt.Partitions)
	return fio.Partition{}
}

// TestFresizeResizePartition shrinks and grows a FAT32 volume with its
// MBR or GPT partition: the entry follows the volume, the table stays
// valid (sfdisk --verify), the grown partition stops at the next one, and
// fsck.fat and mtools read the files back.
func TestFresizeResizePartition(t *testing.T) {
	need(t, "sfdisk", "fsck.fat", "mcopy")
	for _, kind := range []string{"mbr", "gpt"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			src := resizeTree(t, dir, 4)
			ok(t, "fmkfs", "--size", "64M", "--table", kind, "--fat", "32", "--cluster-size", "512", img)
			ok(t, "fcp", "-r", "--no-progress", "-i", img, src, "::/keep")
			start := partitionOf(t, img, 1).Start

			ok(t, "fresize", "--resize-partition", img, "40M")
			if p := partitionOf(t, img, 1); p.Start != start || p.Size != 40<<20 {
				t.Fatalf("after shrinking to 40M partition 1 is at byte %d, %d bytes", p.Start, p.Size)
			}
			if out := ok(t, "sfdisk", "--verify", img); !strings.Contains(out, "No errors") {
				t.Fatalf("sfdisk --verify:\n%s", out)
			}
			fsckClean(t, img, start)
			mtoolsMatches(t, mimg(img, start), src)

			// A second partition after the first: growing stops there.
			script := fmt.Sprintf("start=%d", (start+50<<20)/512) + ", size=8192, type=" + map[string]string{"mbr": "83", "gpt": "0FC63DAF-8483-4772-8E79-3D69D8477DE4"}[kind] + "\n"
			sfdisk := run(t, "sh", "-c", "printf '"+script+"' | sfdisk --append -q "+img)
			if sfdisk.code != 0 {
				t.Fatalf("sfdisk --append: %s", sfdisk.stderr)
			}
			msg := fails(t, "fresize", "--partition", "1", "--resize-partition", img, "60M")
			if !strings.Contains(msg, "next partition") {
				t.Errorf("growing over partition 2 is refused without naming it: %s", msg)
			}
			ok(t, "fresize", "--partition", "1", "--resize-partition", img, "max")
			if p := partitionOf(t, img, 1); p.Size != 50<<20 {
				t.Fatalf("after growing to max partition 1 has %d bytes, want %d (up to partition 2)", p.Size, 50<<20)
			}
			if out := ok(t, "sfdisk", "--verify", img); !strings.Contains(out, "No errors") {
				t.Fatalf("sfdisk --verify:\n%s", out)
			}
			fsckClean(t, img, start)
			mtoolsMatches(t, mimg(img, start), src)
		})
	}
}
