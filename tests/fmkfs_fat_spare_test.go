package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// fmkfs --fat-spare sizes the FATs for a larger volume, so that fresize
// grows the volume that far in the crash-safe way: no --force, no undo
// file, the data area where it was. Without it the same growth is refused
// (it would move the data area). fsck.fat -n finds each result clean.
func TestFmkfsFATSpareKeepsGrowthSafe(t *testing.T) {
	need(t, "fsck.fat")
	for _, tc := range []struct {
		name, fat, size, spare, grow string
	}{
		{"FAT12", "12", "2M", "3x", "6M"},
		{"FAT16", "16", "20M", "4x", "80M"},
		{"FAT32", "32", "1G", "8G", "8G"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := hostFiles(t, dir, "f", 9, 100, 5000, 40000)
			plain := filepath.Join(dir, "plain.img")
			ok(t, "fmkfs", "--fat", tc.fat, "--size", tc.size, plain)
			if msg := fails(t, "fresize", plain, tc.grow); !strings.Contains(msg, "FAT sectors") {
				t.Errorf("without --fat-spare, the growth is not refused for its FATs: %s", msg)
			}
			img := filepath.Join(dir, "a.img")
			ok(t, "fmkfs", "--fat", tc.fat, "--size", tc.size, "--fat-spare", tc.spare, img)
			fsckClean(t, img, 0)
			ok(t, "fcp", "-r", "-i", img, files, "::/f")
			out := ok(t, "fresize", img, tc.grow)
			if strings.Contains(out, "not crash-safe") || strings.Contains(out, "FAT: ") {
				t.Errorf("the growth changed the FATs:\n%s", out)
			}
			fsckClean(t, img, 0)
			if got := ok(t, "fcat", "-i", img, "::/f/file with a long name 01.bin"); got != string(readImage(t, filepath.Join(files, "file with a long name 01.bin"))) {
				t.Error("a file does not read back after the growth")
			}
		})
	}
}
