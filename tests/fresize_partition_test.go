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

// TestFresizeResizePartition shrinks and grows a FAT32 and an exFAT
// volume with its MBR or GPT partition: the entry follows the volume, the
// table stays valid (sfdisk --verify), the grown partition stops at the
// next one, fsck.fat or fsck.exfat and fverify find the volume clean, and
// mtools (FAT) and fcp -r read the files back. The partition fresize
// chooses is named once, though fresize opens the disk twice.
func TestFresizeResizePartition(t *testing.T) {
	need(t, "sfdisk")
	for _, tc := range []struct{ kind, typ string }{{"mbr", "32"}, {"gpt", "32"}, {"mbr", "exfat"}, {"gpt", "exfat"}} {
		t.Run(tc.kind+"-"+typeName(tc.typ), func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			src := resizeTree(t, dir, 4)
			if tc.typ == "exfat" {
				writeFile(t, filepath.Join(src, "set 1", "a big file.bin"), 5<<20+3, 7)
				ok(t, "fmkfs", "--size", "64M", "--table", tc.kind, "--type", "exfat", "--cluster-size", "4096", img)
			} else {
				need(t, "mcopy")
				ok(t, "fmkfs", "--size", "64M", "--table", tc.kind, "--fat", "32", "--cluster-size", "512", img)
			}
			ok(t, "fcp", "-r", "--no-progress", "-i", img, src, "::/keep")
			start := partitionOf(t, img, 1).Start

			r := run(t, "fresize", "--resize-partition", img, "40M")
			if r.code != 0 {
				t.Fatalf("fresize --resize-partition 40M: exit %d\n%s", r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, "using partition 1"); n != 1 {
				t.Errorf("fresize names the partition it chose %d times, want once:\n%s", n, r.stderr)
			}
			if p := partitionOf(t, img, 1); p.Start != start || p.Size != 40<<20 {
				t.Fatalf("after shrinking to 40M partition 1 is at byte %d, %d bytes", p.Start, p.Size)
			}
			if out := ok(t, "sfdisk", "--verify", img); !strings.Contains(out, "No errors") {
				t.Fatalf("sfdisk --verify:\n%s", out)
			}
			resizedClean(t, tc.typ, img, start)
			treeMatches(t, tc.typ, img, start, src)

			// A second partition after the first: growing stops there.
			script := fmt.Sprintf("start=%d", (start+50<<20)/512) + ", size=8192, type=" + map[string]string{"mbr": "83", "gpt": "0FC63DAF-8483-4772-8E79-3D69D8477DE4"}[tc.kind] + "\n"
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
			resizedClean(t, tc.typ, img, start)
			treeMatches(t, tc.typ, img, start, src)
		})
	}
}

// TestFresizeGrowsImageWithGPT grows the last partition of a GPT image
// file past the file's end: the file grows, the GPT's backup moves to its
// new end (sfdisk --verify finds the table whole), and the volume grows
// into the partition.
func TestFresizeGrowsImageWithGPT(t *testing.T) {
	need(t, "sfdisk", "fsck.fat", "mcopy")
	dir := t.TempDir()
	big := filepath.Join(dir, "big.img")
	img := filepath.Join(dir, "disk.img")
	src := resizeTree(t, dir, 2)
	// A FAT32 whose FATs count 64 MiB, in a 40 MiB partition of a 42 MiB
	// GPT disk (sfdisk writes the table for the smaller disk).
	ok(t, "fmkfs", "--size", "64M", "--table", "gpt", "--fat", "32", "--cluster-size", "512", big)
	ok(t, "fcp", "-r", "--no-progress", "-i", big, src, "::/keep")
	ok(t, "fresize", "--resize-partition", big, "40M")
	ok(t, "truncate", "-s", "42M", img)
	ok(t, "dd", "if="+big, "of="+img, "bs=1M", "count=41", "conv=notrunc", "status=none")
	p := partitionOf(t, big, 1)
	script := fmt.Sprintf("label: gpt\nstart=%d, size=%d, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7\n", p.Start/512, p.Size/512)
	if r := run(t, "sh", "-c", "printf '"+strings.ReplaceAll(script, "\n", "\\n")+"' | sfdisk -q "+img); r.code != 0 {
		t.Fatalf("sfdisk: %s", r.stderr)
	}
	ok(t, "fresize", "--resize-partition", img, "60M")
	if got := partitionOf(t, img, 1); got.Start != p.Start || got.Size != 60<<20 {
		t.Fatalf("partition 1 is at byte %d, %d bytes; want %d, %d", got.Start, got.Size, p.Start, 60<<20)
	}
	if size := fileSize(t, img); size <= p.Start+60<<20 {
		t.Fatalf("the image file has %d bytes: no room for the partition and the GPT's backup", size)
	}
	if out := ok(t, "sfdisk", "--verify", img); !strings.Contains(out, "No errors") {
		t.Fatalf("sfdisk --verify:\n%s", out)
	}
	fsckClean(t, img, p.Start)
	mtoolsMatches(t, mimg(img, p.Start), src)
}
