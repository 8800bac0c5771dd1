package tests

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
)

// FAT images with odd fields or damage that fsck.fat and mtools take in
// their stride (a high cluster word on FAT12/16, no boot signature, orphan
// long-name slots, a free cluster inside a chain): ftools reads and
// writes them as those tools do.

// On FAT12/16, bytes 20-21 of an entry are OS/2's extended-attribute
// handle, not the high word of the first cluster: fsck.fat, mtools and Linux
// ignore them there. ftools reads the file, fverify finds nothing wrong, and
// when ftools rewrites the entry it writes them as zero, as Linux does.
func TestFAT1216IgnoresHighClusterWord(t *testing.T) {
	need(t, "mtype")
	for _, bits := range []string{"12", "16"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, data := verbsImage(t, bits)
			var off int
			patchImage(t, img, func(v *gvol) {
				off = v.find(0, "A       TXT")
				v.put16(off+20, 0x3412)
			})
			fsckClean(t, img, 0)
			if got := ok(t, "mtype", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatal("mtype does not read the oracle's own file")
			}
			if got := ok(t, "fcat", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatalf("fcat read %d bytes that differ from the %d written", len(got), len(data))
			}
			if c := firstCluster(t, img, "A.TXT"); c > 0xFFFF {
				t.Fatalf("first cluster %#x takes bytes 20-21 as its high word", c)
			}
			if out := ok(t, "fverify", img); !strings.Contains(out, "clean") {
				t.Fatalf("fverify:\n%s", out)
			}
			// Rewriting the entry writes zero there, as Linux does.
			ok(t, "fattrib", "-i", img, "+r", "::/A.TXT")
			if hi := binary.LittleEndian.Uint16(readImage(t, img)[off+20:]); hi != 0 {
				t.Fatalf("bytes 20-21 after fattrib: %#04x, want 0", hi)
			}
			fsckClean(t, img, 0)
		})
	}
}

// A cluster wrongly marked free inside another file's chain is never handed
// out, by either allocation policy: a new cross-link would make fsck.fat
// truncate both files.
func TestFreeClusterInsideChainNotReused(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "fsck.fat")
	for _, alloc := range []string{"contiguous", "first-fit"} {
		t.Run(alloc, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "x.img")
			ok(t, "mkfs.fat", "-F", "16", "-s", "1", "-C", img, "20480")
			src := filepath.Join(dir, "a.bin")
			writeFile(t, src, 1500, 4) // three clusters, 2-4
			ok(t, "mcopy", "-i", img, src, "::/A.BIN")
			patchImage(t, img, func(v *gvol) { v.set(3, 0) })
			ok(t, "fcp", "--alloc", alloc, src, img+"::/NEW.BIN")
			ok(t, "fmkdir", "-i", img, "::/D")
			for _, p := range []string{"NEW.BIN", "D"} {
				if c := firstCluster(t, img, p); c == 3 {
					t.Fatalf("%s was given cluster 3, which A.BIN's chain runs through", p)
				}
			}
			r := run(t, "fsck.fat", "-n", img)
			if strings.Contains(r.stdout, "share clusters") || !strings.Contains(r.stdout, "Contains a free cluster (3)") {
				t.Fatalf("fsck.fat -n:\n%s", r.stdout)
			}
		})
	}
}

// Long-name slots whose short entry was deleted are orphans; a new entry
// placed right after them must not take them for its own long name.
func TestNewEntryAfterOrphanLFN(t *testing.T) {
	need(t, "mdir", "fsck.fat")
	img, _ := verbsImage(t, "16")
	patchImage(t, img, func(v *gvol) {
		// The short entry and the chain go, the LFN slots stay.
		off := v.find(0, "LONGFI~1TXT")
		for _, c := range v.chain(v.cluster(off)) {
			v.set(c, 0)
		}
		v.b[off] = 0xE5
	})
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, 100, 1)
	ok(t, "fcp", src, img+"::/LONGFI~1.TXT")
	got := lines(ok(t, "fls", "-i", img))
	for _, n := range got {
		if strings.HasPrefix(n, "Long file name") {
			t.Fatalf("the new entry inherited the orphaned long name: %q", got)
		}
	}
	if want := mdirNames(t, img, "::/"); !strings.Contains(strings.Join(want, "|"), "LONGFI~1.TXT") {
		t.Fatalf("mdir: %q", want)
	}
	fsckClean(t, img, 0)
}

// A FAT volume without the 55 aa boot signature is used, as fsck.fat and
// mtools use it, with a warning from fverify.
func TestMissingBootSignature(t *testing.T) {
	need(t, "mdir", "mcopy")
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, data := verbsImage(t, bits)
			patchImage(t, img, func(v *gvol) { v.put16(510, 0) })
			ok(t, "mdir", "-i", img, "::/")
			if got := ok(t, "fcat", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatal("fcat read the wrong bytes")
			}
			if bits != "32" {
				out := ok(t, "fverify", img)
				if !strings.Contains(out, "signature") {
					t.Fatalf("fverify does not warn of the missing signature:\n%s", out)
				}
			} else {
				// The FAT32 backup boot sector keeps its signature: the
				// two differ in bytes 510-511, which fsck.fat reports too,
				// and --repair gives both the signature.
				out := verifyCode(t, img, 4)
				if !hasProblem(out, "backup-boot") || !strings.Contains(kinds(out), "510:00/55, 511:00/aa") {
					t.Fatalf("fverify:\n%s", kinds(out))
				}
				if r := run(t, "fsck.fat", "-n", img); !strings.Contains(r.stdout, "510:00/55, 511:00/aa") {
					t.Fatalf("fsck.fat -n:\n%s", r.stdout)
				}
				verifyCode(t, img, 1, "--repair")
				if b := readImage(t, img); binary.LittleEndian.Uint16(b[510:]) != 0xAA55 || binary.LittleEndian.Uint16(b[6*512+510:]) != 0xAA55 {
					t.Fatal("--repair left a boot sector without its signature")
				}
				fsckClean(t, img, 0)
				verifyCode(t, img, 0)
			}
			ok(t, "fcp", "-i", img, img+"::/A.TXT", "::/B.TXT")
			if got := ok(t, "mtype", "-i", img, "::/B.TXT"); got != string(data) {
				t.Fatal("mtype reads a different copy")
			}
		})
	}
}
