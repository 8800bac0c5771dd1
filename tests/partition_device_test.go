package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// A partition device (/dev/sdb1, /dev/loop0p1) is not a card or a disk:
// --sd and --table there would write an MBR inside the partition, over its
// files. Both are refused, --force or not, with a sentence naming the
// whole device, and the partition is left byte-identical; formatting the
// partition itself still works.
func TestPartitionDeviceTable(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", img)
	host := filepath.Join(dir, "photo.jpg")
	writeFile(t, host, 100_000, 3)
	ok(t, "fcp", "-i", img, host, "::/")
	loop := attachP(t, img)
	part := loop + "p1"
	before := fileSum(t, img)
	for _, args := range [][]string{
		{"--sd"},
		{"--sd", "--force"},
		{"--sd", "-t", "exfat"},
		{"--table", "mbr"},
		{"--table", "gpt", "--force"},
		{"--table", "mbr", "-t", "exfat", "--force"},
	} {
		msg := fails(t, "fmkfs", append(args, part)...)
		if !strings.Contains(msg, part+" is partition 1 of "+loop) || !strings.Contains(msg, "give "+loop) {
			t.Errorf("fmkfs %s %s: %q, want a refusal naming the whole device %s", strings.Join(args, " "), part, msg, loop)
		}
		if fileSum(t, img) != before {
			t.Fatalf("fmkfs %s %s changed the card", strings.Join(args, " "), part)
		}
	}
	if out := ok(t, "fls", "-i", part, "::/"); !strings.Contains(out, "photo.jpg") {
		t.Fatalf("the partition's files after the refusals: %q", out)
	}
	// The partition alone is formatted as asked, and the whole device
	// takes --sd.
	ok(t, "fmkfs", part)
	fsckClean(t, part, 0)
	ok(t, "fmkfs", "--sd", "--force", loop)
}
