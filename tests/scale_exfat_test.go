package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exFAT's directories are held to FAT's bounds: a card's worth of
// folders (10,000, each one 128 KiB cluster on a 64 GiB exFAT, 1.25 GiB of
// directories) lists, checks and empties within maxRSS (fverify within
// maxVerifyRSS). exFAT used to keep every directory it had read, so fls -R
// alone needed more than the folders' size.
func TestExFATManyFoldersMemory(t *testing.T) {
	need(t, "fsck.exfat")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for p := 0; p < 10; p++ {
		for f := 0; f < 1000; f++ {
			if err := os.MkdirAll(filepath.Join(tree, fmt.Sprintf("p%02d", p), fmt.Sprintf("folder %04d", f)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "p09", "folder 0999", "last.txt"), []byte("last\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "x.img")
	ok(t, "fmkfs", "--type", "exfat", "--size", "64G", img)
	ok(t, "fcp", "-r", "-i", img, tree+"/.", "::/")
	if n := strings.Count(lean(t, "fls", "-R", "-i", img, "::/"), "folder "); n < 10000 {
		t.Errorf("fls -R listed %d folders, want 10,000", n)
	}
	if got := lean(t, "fcat", "-i", img, "::/p09/folder 0999/last.txt"); got != "last\n" {
		t.Errorf("fcat: %q", got)
	}
	if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.Contains(out, "10011 directories") || !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
		t.Errorf("fverify:\n%s", out)
	}
	lean(t, "frm", "-r", "-i", img, "::/p03")
	lean(t, "fmv", "-i", img, "::/p04/folder 0001", "::/p05/")
	fsckExFAT(t, img, 0)
}
