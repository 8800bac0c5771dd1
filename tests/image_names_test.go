package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
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

// One image named two ways in one command is opened once: it neither fails
// on its own lock nor, with --wait, waits for itself. Two volumes in one
// file share the file's lock.
func TestOneImageNamedTwoWays(t *testing.T) {
	dir, img, src, want := smallImage(t, 3000)
	ok(t, "fcp", src, img+"::/A.BIN")
	link := filepath.Join(dir, "link.img")
	if err := os.Symlink("a.img", link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for i, other := range []string{"./a.img", link, "a.img@@0", img + "@@0x0"} {
		for _, wait := range []bool{false, true} {
			dst := fmt.Sprintf("::/C%d%v.BIN", i, wait)
			args := []string{img + "::/A.BIN", other + dst}
			if wait {
				args = append([]string{"--wait"}, args...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := exec.CommandContext(ctx, "fcp", args...).CombinedOutput()
			late := ctx.Err() != nil
			cancel()
			if late {
				t.Fatalf("fcp %q: still waiting after 30 s (for its own lock)", args)
			}
			if err != nil {
				t.Fatalf("fcp %q: %v\n%s", args, err, out)
			}
			if got := ok(t, "fcat", img+dst); got != string(want) {
				t.Fatalf("%s differs", dst)
			}
		}
	}
	// fmv moves within "one" image named two ways.
	ok(t, "fmv", img+"::/C0false.BIN", "./a.img::/MOVED.BIN")
	if got := ok(t, "fcat", "./a.img@@0::/MOVED.BIN"); got != string(want) {
		t.Fatal("MOVED.BIN differs")
	}
	fsckClean(t, img, 0)

	// Two volumes, at 0 and at 4 MiB, of one file.
	two := filepath.Join(dir, "two.img")
	ok(t, "fmkfs", "--size", "4M", two)
	ok(t, "fmkfs", "--size", "8M", two+"@@4M")
	ok(t, "fcp", src, two+"::/A.BIN")
	ok(t, "fcp", two+"::/A.BIN", two+"@@4M::/B.BIN")
	if got := ok(t, "fcat", two+"@@4M::/B.BIN"); got != string(want) {
		t.Fatal("copy between two volumes of one file differs")
	}
}
