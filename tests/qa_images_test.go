package tests

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// "card.img" (opened at its only FAT partition) and "card.img@@1M" name one
// volume, and a command opens it once: frm and fmkdir used to open it twice,
// and each handle's commit wrote back its own directory over the other's,
// so that 'frm card.img@@1M::/A card.img::/B' removed only B and
// 'fmkdir card.img@@1M::/D1 card.img::/D2' made only D2, both exiting 0;
// fcp did not see a file or a folder copied onto itself.
func TestOneVolumeTwoSpellingsOpenedOnce(t *testing.T) {
	need(t, "fsck.fat")
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", img)
	src := filepath.Join(dir, "x.txt")
	writeFile(t, src, 3000, 5)
	for _, name := range []string{"A.TXT", "B.TXT", "C.TXT"} {
		ok(t, "fcp", "-i", img, src, "::/"+name)
	}
	at := img + "@@1M"
	ok(t, "frm", at+"::/A.TXT", img+"::/B.TXT")
	ok(t, "fmkdir", at+"::/D1", img+"::/D2")
	ok(t, "fmkdir", img+"::/D3", at+"::/D4")
	got := strings.Fields(ok(t, "fls", "-i", img, "::/"))
	sort.Strings(got)
	want := []string{"C.TXT", "D1", "D2", "D3", "D4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after frm and fmkdir through two spellings: %v, want %v", got, want)
	}
	fsckClean(t, img, 1<<20)
	if msg := fails(t, "fcp", at+"::/C.TXT", img+"::/C.TXT"); !strings.Contains(msg, "are the same file") {
		t.Errorf("fcp of a file onto itself through two spellings: %q", msg)
	}
	if msg := fails(t, "fcp", "-r", at+"::/D1", img+"::/D1/SUB"); !strings.Contains(msg, "into itself") {
		t.Errorf("fcp of a folder into itself through two spellings: %q", msg)
	}
	fsckClean(t, img, 1<<20)
}

// fmv takes "card.img@@1M" and "card.img" (opened at that partition) for
// the one volume they are, and still refuses two volumes.
func TestFmvOneVolumeTwoSpellings(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", img)
	src := filepath.Join(dir, "x.txt")
	writeFile(t, src, 100, 1)
	ok(t, "fcp", "-i", img, src, "::/A.TXT")
	ok(t, "fmv", img+"@@1M::/A.TXT", img+"::/B.TXT")
	if got := strings.Fields(ok(t, "fls", "-i", img, "::/")); strings.Join(got, " ") != "B.TXT" {
		t.Fatalf("after fmv through two spellings: %v", got)
	}
	other := filepath.Join(dir, "other.img")
	ok(t, "fmkfs", "--size", "8M", other)
	if msg := fails(t, "fmv", img+"::/B.TXT", other+"::/B.TXT"); !strings.Contains(msg, "different images") {
		t.Errorf("fmv between two images: %q", msg)
	}
}

// A disk image cut short (its partition now ends past its end) is refused
// naming the partition and why it is unusable: the message read "it has
// partition : give --partition N".
func TestCutDiskNamesUnusablePartition(t *testing.T) {
	for _, table := range []string{"mbr", "gpt"} {
		img := filepath.Join(t.TempDir(), "cut.img")
		ok(t, "fmkfs", "--size", "64M", "--table", table, img)
		ok(t, "truncate", "-s", "60M", img)
		msg := fails(t, "fls", "-i", img, "::/")
		if !strings.Contains(msg, "partition 1 (unusable: ") {
			t.Errorf("%s cut short: %q", table, msg)
		}
	}
}
