package tests

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fresize keeps to maxRSS on a sparse FAT32 grown to 2 TiB, whose FATs
// are 256 MiB each: a shrink that moves a tree from 600 GiB in, a growth
// to 2 TiB past the FATs' spare sectors (the data area moves: new FATs,
// every directory renumbered, the undo file written), and the undo
// file's application; fverify calls each result clean, the files read
// back, and fsck.fat checks the last. exFAT likewise: a 2 TiB volume
// shrunk with a tree to move from 1 TiB in, then grown back to its end.
func TestFresizeMemoryBoundedOnHugeVolumes(t *testing.T) {
	need(t, "fsck.fat", "fsck.exfat")
	dir := t.TempDir()
	tree := hostFiles(t, dir, "tree", 41, 100, 3000, 70000, 200000, 5000)
	if err := os.MkdirAll(filepath.Join(tree, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	var files [][2]string
	for i := 0; i < 40; i++ {
		p := filepath.Join(tree, "sub", "deeper", "file "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".bin")
		writeFile(t, p, 1000+i*9000, byte(i))
		files = append(files, [2]string{p, "::/late/sub/deeper/" + filepath.Base(p)})
	}
	readBack := func(t *testing.T, img string) {
		t.Helper()
		for _, f := range files[:5] {
			want, _ := os.ReadFile(f[0])
			if got := lean(t, "fcat", "-i", img, f[1]); got != string(want) {
				t.Errorf("%s: read back %d bytes, not the %d written", f[1], len(got), len(want))
			}
		}
	}
	clean := func(t *testing.T, img string) {
		t.Helper()
		if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
			t.Errorf("fverify:\n%s", out)
		}
	}

	t.Run("FAT32", func(t *testing.T) {
		img := filepath.Join(dir, "fat.img")
		defer os.Remove(img)
		ok(t, "fmkfs", "--size", "1T", "--label", "HUGE", img)
		ok(t, "fcp", "-r", "-i", img, tree, "::/early")
		// Allocation resumes after the hint: the next tree lies 600 GiB in.
		ok(t, "fsinfo", "--next-cluster", "19200000", img)
		ok(t, "fcp", "-r", "-i", img, tree, "::/late")
		out := lean(t, "fresize", img, "300G")
		if !strings.Contains(out, "moved: ") {
			t.Errorf("the shrink moved nothing:\n%s", out)
		}
		clean(t, img)
		readBack(t, img)
		undo := filepath.Join(dir, "undo")
		out = lean(t, "fresize", "--force", "--undo", undo, img, "2047G")
		if !strings.Contains(out, "not crash-safe") || !strings.Contains(out, "FAT: 523") {
			t.Errorf("the growth did not move the data area:\n%s", out)
		}
		clean(t, img)
		readBack(t, img)
		lean(t, "fresize", "--undo-apply", undo, img)
		clean(t, img)
		readBack(t, img)
		fsckClean(t, img, 0)
	})

	t.Run("exFAT", func(t *testing.T) {
		img := filepath.Join(dir, "exfat.img")
		defer os.Remove(img)
		ok(t, "fmkfs", "-t", "exfat", "--size", "2047G", img)
		// Clusters up to 1 TiB in are marked in use in the bitmap while
		// the tree is copied, so that it lands past them; then freed.
		hole := markExFATBitmap(t, img, 1<<40, 0xFF)
		ok(t, "fcp", "-r", "-i", img, tree, "::/late")
		markExFATBitmap(t, img, hole, 0)
		out := lean(t, "fresize", img, "500G")
		if !strings.Contains(out, "moved: ") {
			t.Errorf("the shrink moved nothing:\n%s", out)
		}
		clean(t, img)
		readBack(t, img)
		lean(t, "fresize", img, "max")
		clean(t, img)
		readBack(t, img)
		fsckExFAT(t, img, 0)
	})
}

// markExFATBitmap sets the allocation bitmap bytes of the exFAT volume img
// from the one after its system clusters' to the one of the cluster at
// byte upTo of the heap to val, and returns upTo.
func markExFATBitmap(t *testing.T, img string, upTo int64, val byte) int64 {
	t.Helper()
	f, boot := openBootSector(t, img)
	defer f.Close()
	le := binary.LittleEndian
	ss := int64(1) << boot[108]
	cs := ss << boot[109]
	heap := int64(le.Uint32(boot[88:])) * ss
	at := func(c uint32) int64 { return heap + int64(c-2)*cs }
	root := make([]byte, cs)
	if _, err := f.ReadAt(root, at(le.Uint32(boot[96:]))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+32 <= len(root); i += 32 {
		if root[i] != 0x81 {
			continue
		}
		bitmap := at(le.Uint32(root[i+20:]))
		// The system clusters (bitmap, up-case table, root) come first;
		// 4 bytes of bits cover them (32 clusters).
		fill := make([]byte, upTo/cs/8-4)
		for j := range fill {
			fill[j] = val
		}
		if _, err := f.WriteAt(fill, bitmap+4); err != nil {
			t.Fatal(err)
		}
		return upTo
	}
	t.Fatal("no bitmap entry in the root directory")
	return 0
}
