package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Writers change no FAT window whose copies disagree. With FAT 1 damaged
// (a file's chain cut short there, FAT 2 whole), every writer used to copy
// FAT 1 over FAT 2 and could hand out the file's clusters, so the file
// fverify --repair restores from FAT 2 was lost for good. Now each writer
// refuses with the reason, the image byte-identical, and the repair still
// restores the file.
func TestWritersKeepTheSoundFATCopy(t *testing.T) {
	need(t, "fsck.fat")
	dir := t.TempDir()
	img := filepath.Join(dir, "b.img")
	ok(t, "fmkfs", "--size", "16M", "--fat", "16", img)
	big := filepath.Join(dir, "f3")
	data := writeFile(t, big, 40000, 5)
	small := filepath.Join(dir, "x")
	writeFile(t, small, 10, 6)
	ok(t, "fcp", "-i", img, big, "::/f3")
	ok(t, "fcp", "-i", img, small, "::/x")
	// FAT 1 begins at byte 2048 here: end f3's chain at its second cluster.
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if b[2048] != 0xF8 {
		t.Fatalf("FAT 1 is not at byte 2048: % x", b[2048:2052])
	}
	b[2048+8], b[2048+9] = 0xFF, 0xFF
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, img)
	for _, args := range [][]string{
		{"fmkdir", "-i", img, "::/d"},
		{"fcp", "-i", img, small, "::/other"},
		{"fcp", "-i", img, small, "::/f3"},
		{"frm", "-i", img, "::/x"},
		{"frm", "-i", img, "::/f3"},
		{"fmv", "-i", img, "::/x", "::/f3"},
		{"ffallocate", "-l", "100K", "-i", img, "::/pre"},
	} {
		r := run(t, args[0], args[1:]...)
		if r.code != 1 || !strings.Contains(r.stderr, "FAT 2 differs from FAT 1") {
			t.Errorf("%s: exit %d, want 1 naming the FAT copies\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		if fileSum(t, img) != sum {
			t.Fatalf("%s changed the image", strings.Join(args, " "))
		}
	}
	run(t, "fverify", "--repair", img)
	fsckClean(t, img, 0)
	if got := ok(t, "fcat", "-i", img, "::/f3"); got != string(data) {
		t.Errorf("f3 after the repair: %d bytes, want its %d", len(got), len(data))
	}
	// Repaired, the copies agree: writers work again.
	ok(t, "fmkdir", "-i", img, "::/d")
	fsckClean(t, img, 0)
}
