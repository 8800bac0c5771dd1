package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fat32WithFiles makes a FAT32 image of size with fmkfs, copies a few files
// into it with fcp, checks that byte 37 (the second byte of BPB_FATSz32)
// is want, and returns the image's path and bytes.
func fat32WithFiles(t *testing.T, size string, want byte) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "v.img")
	ok(t, "fmkfs", "-F", "32", "--size", size, img)
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		writeFile(t, filepath.Join(src, fmt.Sprintf("f%d.bin", i)), 100000+i*777, byte(i+1))
	}
	ok(t, "fcp", "-r", src, img+"::/")
	good := readImage(t, img)
	if good[37] != want {
		t.Fatalf("byte 37 of the boot sector is %#02x, want %#02x", good[37], want)
	}
	return img, good
}

// A FAT32 boot sector with BPB_FATSz32 damaged (byte 37, 0x02 -> 0x22)
// still holds together on paper, but its second FAT lies in the data area.
// fverify --repair must not panic, must leave the backup boot sector as it
// was, and must restore the boot sector from it: the image ends up as it
// was before the damage, and fsck.fat -n finds it clean.
func TestFverifyRepairFATSizeKeepsBackup(t *testing.T) {
	need(t, "fsck.fat")
	const backup = 6 * 512
	for _, c := range []struct {
		size     string
		old, new byte
	}{{"48M", 0x02, 0x22}, {"64M", 0x03, 0x23}} {
		t.Run(c.size, func(t *testing.T) {
			img, good := fat32WithFiles(t, c.size, c.old)
			patchFile(t, img, func(b []byte) { b[37] = c.new })
			out := verifyCode(t, img, 4)
			if !hasProblem(out, "boot-sector") || hasProblem(out, "backup-boot") || hasProblem(out, "fat-copies") {
				t.Fatalf("fverify: want the boot sector reported, checked with the backup:\n%s", kinds(out))
			}
			r := run(t, "fverify", "--repair", img)
			if strings.Contains(r.stderr, "panic") || r.code != 1 {
				t.Fatalf("fverify --repair: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
			}
			after := readImage(t, img)
			if !bytes.Equal(after[backup:backup+512], good[backup:backup+512]) {
				t.Fatal("--repair changed the backup boot sector")
			}
			if !bytes.Equal(after, good) {
				t.Fatalf("the repaired image differs from the undamaged one, first at byte %d", firstByteDiff(after, good))
			}
			if r := run(t, "fsck.fat", "-n", img); r.code != 0 || !fsckQuiet(r.stdout) {
				t.Fatalf("after --repair fsck.fat -n says:\n%s", r.stdout)
			}
			verifyCode(t, img, 0)
		})
	}
}

// When the backup is damaged too (another value), neither describes the
// volume: fverify --repair refuses with an error that says so and leaves
// the image byte-identical (no dirty bit).
func TestFverifyRepairBootNeitherSound(t *testing.T) {
	const backup = 6 * 512
	img, _ := fat32WithFiles(t, "48M", 0x02)
	patchFile(t, img, func(b []byte) {
		b[37] = 0x22
		b[backup+37] = 0x32
	})
	out := verifyCode(t, img, 4)
	if !hasProblem(out, "boot-sector") || !strings.Contains(kinds(out), "neither describes the volume") {
		t.Fatalf("fverify: want the conflict reported:\n%s", kinds(out))
	}
	before := readImage(t, img)
	r := run(t, "fverify", "--repair", img)
	if r.code != 8 || strings.Contains(r.stderr, "panic") || !strings.Contains(r.stderr, "not repaired") {
		t.Fatalf("fverify --repair: exit %d, want 8 and a refusal\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := readImage(t, img); !bytes.Equal(after, before) {
		t.Fatalf("a refused repair changed byte %d", firstByteDiff(after, before))
	}
}

// A writer refuses the volume with the damaged BPB_FATSz32: it would put
// its FAT 2 in the data area. Reading it still works.
func TestFcpRefusesUnsoundBootSector(t *testing.T) {
	img, _ := fat32WithFiles(t, "48M", 0x02)
	patchFile(t, img, func(b []byte) { b[37] = 0x22 })
	before := readImage(t, img)
	src := filepath.Join(t.TempDir(), "new.bin")
	writeFile(t, src, 5000, 9)
	if msg := fails(t, "fcp", src, img+"::/new.bin"); !strings.Contains(msg, "does not describe the volume") {
		t.Fatalf("fcp: want a refusal naming the boot sector, got %s", msg)
	}
	if after := readImage(t, img); !bytes.Equal(after, before) {
		t.Fatalf("a refused fcp changed byte %d", firstByteDiff(after, before))
	}
	ok(t, "fls", img+"::/")
}

// firstByteDiff is the first offset where a and b differ.
func firstByteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
