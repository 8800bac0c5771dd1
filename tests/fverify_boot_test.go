package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bootPatch is a byte written at an offset of a fresh mkfs.fat image.
type bootPatch struct {
	off int
	val byte
}

// mkfsPatched makes an mkfs.fat image (with a file, and a label if label
// is set) and writes the patches.
func mkfsPatched(t *testing.T, fat, label string, patches ...bootPatch) string {
	t.Helper()
	need(t, "mkfs.fat", "mcopy")
	dir := t.TempDir()
	img := filepath.Join(dir, "v.img")
	args := []string{"-F", fat, "-C", img, "40000"}
	if label != "" {
		args = append([]string{"-n", label}, args...)
	}
	ok(t, "mkfs.fat", args...)
	src := filepath.Join(dir, "a.txt")
	writeFile(t, src, 3000, 3)
	ok(t, "mcopy", "-i", img, src, "::/A.TXT")
	patchFile(t, img, func(b []byte) {
		for _, p := range patches {
			b[p.off] = p.val
		}
	})
	return img
}

// The FAT32 backup boot sector is compared with the boot sector byte by
// byte, as fsck.fat compares them: the reserved bytes 52-63 and the
// signature at 510 too, which the boot sector's fields do not cover. Only
// the dirty bit is left to the dirty check. --repair copies every byte of
// the boot sector over the backup.
func TestFverifyBackupBootEveryByte(t *testing.T) {
	need(t, "fsck.fat")
	const backup = 6 * 512
	cases := []struct {
		name    string
		patches []bootPatch
		says    string // in fsck.fat's and fverify's report
	}{
		{"reserved-in-backup", []bootPatch{{backup + 56, 0x42}}, "56:00/42"},
		{"reserved-in-primary", []bootPatch{{52, 0x17}}, "52:17/00"},
		{"signature-in-backup", []bootPatch{{backup + 511, 0}}, "511:aa/00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := mkfsPatched(t, "32", "", c.patches...)
			if r := run(t, "fsck.fat", "-n", img); !strings.Contains(r.stdout, c.says) {
				t.Fatalf("fsck.fat -n does not report %s:\n%s", c.says, r.stdout)
			}
			out := verifyCode(t, img, 4)
			if !hasProblem(out, "backup-boot") || !strings.Contains(kinds(out), c.says) {
				t.Fatalf("fverify does not report %s:\n%s", c.says, kinds(out))
			}
			primary := readImage(t, img)[:512]
			verifyCode(t, img, 1, "--repair")
			after := readImage(t, img)
			if string(after[:512]) != string(primary) {
				t.Fatal("--repair changed the boot sector")
			}
			if string(after[backup:backup+512]) != string(primary) {
				t.Fatal("--repair did not copy every byte of the boot sector over its backup")
			}
			if r := run(t, "fsck.fat", "-n", img); r.code != 0 || !fsckQuiet(r.stdout) {
				t.Fatalf("after --repair fsck.fat -n says:\n%s", r.stdout)
			}
			verifyCode(t, img, 0)
		})
	}
}

// A boot sector fsck.fat refuses is not called clean. More than two FATs:
// fsck.fat gives up ("only 1 or 2 FATs are supported"), fverify fails with
// the field and offset, and writers refuse the volume (readers still read
// it, as Linux and mtools do); on FAT32 the sound backup boot sector is
// used and --repair restores the primary from it.
func TestFverifyTooManyFATs(t *testing.T) {
	need(t, "fsck.fat")
	t.Run("fat16", func(t *testing.T) {
		img := mkfsPatched(t, "16", "", bootPatch{16, 0xE5})
		if r := run(t, "fsck.fat", "-n", img); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "only 1 or 2 FATs are supported") {
			t.Fatalf("fsck.fat -n (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
		out := verifyCode(t, img, 8)
		if !strings.Contains(out.Error, "number of FATs 229 at 0x10") {
			t.Fatalf("fverify's error: %q", out.Error)
		}
		before := imageSum(t, img)
		src := filepath.Join(t.TempDir(), "n")
		writeFile(t, src, 10, 1)
		for _, args := range [][]string{
			{"fcp", "-i", img, src, "::/N.TXT"},
			{"fmkdir", "-i", img, "::/D"},
			{"fsinfo", "--recount", img},
			{"fverify", "--repair", img},
		} {
			if msg := fails(t, args[0], args[1:]...); !strings.Contains(msg, "1 or 2 FATs") {
				t.Errorf("%s: %q", strings.Join(args, " "), msg)
			}
		}
		if imageSum(t, img) != before {
			t.Fatal("a refused writer changed the image")
		}
		ok(t, "fsinfo", img)
	})
	t.Run("fat32", func(t *testing.T) {
		img := mkfsPatched(t, "32", "", bootPatch{16, 3})
		out := verifyCode(t, img, 4)
		if !hasProblem(out, "boot-sector") {
			t.Fatalf("fverify:\n%s", kinds(out))
		}
		verifyCode(t, img, 1, "--repair")
		if b := readImage(t, img); b[16] != 2 {
			t.Fatalf("--repair left %d FATs in the boot sector", b[16])
		}
		fsckClean(t, img, 0)
		verifyCode(t, img, 0)
	})
}

// An extended boot signature other than 0x29 means the boot sector has no
// label field: fsck.fat reports the label (the root's and the boot
// sector's differ, or the boot sector's is invalid) and -a sets the
// signature with the root's label, or NO NAME. fverify reports it as
// damage and repairs it the same way.
func TestFverifyExtendedBootSignature(t *testing.T) {
	need(t, "fsck.fat", "mlabel")
	cases := []struct {
		fat, label string
		sigOff     int
		sig        byte
	}{
		{"16", "MYLABEL", 38, 0xDD},
		{"16", "", 38, 0xDD},
		{"16", "MYLABEL", 38, 0x28},
		{"12", "", 38, 0x00},
		{"32", "LBL", 66, 0xDD},
	}
	for _, c := range cases {
		t.Run(c.fat+"-"+c.label+"-"+string("0123456789abcdef"[c.sig>>4])+string("0123456789abcdef"[c.sig&15]), func(t *testing.T) {
			patches := []bootPatch{{c.sigOff, c.sig}}
			if c.fat == "32" {
				patches = append(patches, bootPatch{6*512 + c.sigOff, c.sig})
			}
			img := mkfsPatched(t, c.fat, c.label, patches...)
			if r := run(t, "fsck.fat", "-n", img); r.code != 1 || !strings.Contains(r.stdout, "abel") {
				t.Fatalf("fsck.fat -n (exit %d):\n%s", r.code, r.stdout)
			}
			out := verifyCode(t, img, 4)
			if !hasProblem(out, "label") {
				t.Fatalf("fverify does not report the label:\n%s", kinds(out))
			}
			theirs := filepath.Join(t.TempDir(), "theirs.img")
			if err := os.WriteFile(theirs, readImage(t, img), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := run(t, "fsck.fat", "-a", theirs); r.code > 1 {
				t.Fatalf("fsck.fat -a: exit %d\n%s", r.code, r.stdout)
			}
			verifyCode(t, img, 1, "--repair")
			if r := run(t, "fsck.fat", "-n", img); r.code != 0 || !fsckQuiet(r.stdout) {
				t.Fatalf("after --repair fsck.fat -n says:\n%s", r.stdout)
			}
			verifyCode(t, img, 0)
			if b := readImage(t, img); b[c.sigOff] != 0x29 {
				t.Fatalf("extended boot signature %#02x after --repair", b[c.sigOff])
			}
			ours, want := run(t, "mlabel", "-s", "-i", img, "::").stdout, run(t, "mlabel", "-s", "-i", theirs, "::").stdout
			if ours != want {
				t.Fatalf("label after --repair %q, after fsck.fat -a %q", ours, want)
			}
		})
	}
}
