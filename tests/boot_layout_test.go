package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A boot sector whose reserved-sector count is damaged puts both FATs
// where no FAT begins. fsck.fat then says "Both FATs appear to be
// corrupt" and gives up; so does fverify --repair (exit 8, nothing
// written) instead of rewriting FATs over the volume, readers fail with
// the reason instead of showing an empty volume with exit 0, and writers
// refuse without a write. FAT12, FAT16, and FAT32 without a backup boot
// sector (which alone would know the layout).
func TestBootSectorNotDescribingTheVolume(t *testing.T) {
	need(t, "fsck.fat")
	dir := t.TempDir()
	src := filepath.Join(dir, "f")
	writeFile(t, src, 21000, 3)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"fat12", []string{"--size", "4M", "--fat", "12"}},
		{"fat16", []string{"--size", "16M", "--fat", "16"}},
		{"fat32-no-backup", []string{"--size", "64M", "--fat", "32", "-b", "0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := filepath.Join(dir, c.name+".img")
			ok(t, "fmkfs", append(c.args, img)...)
			ok(t, "fcp", "-i", img, src, "::/f")
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			b[14]++ // reserved sectors, low byte
			if err := os.WriteFile(img, b, 0o644); err != nil {
				t.Fatal(err)
			}
			sum := fileSum(t, img)
			const why = "does not describe this volume"
			r := run(t, "fverify", "--repair", img)
			if r.code != 8 || !strings.Contains(r.stdout+r.stderr, why) {
				t.Errorf("fverify --repair: exit %d, want 8 naming the boot sector\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := run(t, "fverify", img); r.code == 0 || !strings.Contains(r.stdout, why) {
				t.Errorf("fverify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			for _, args := range [][]string{
				{"fls", "-l", img},
				{"fcat", "-i", img, "::/f"},
				{"fcp", "-i", img, "::/f", filepath.Join(dir, "out-"+c.name)},
				{"fcp", "-i", img, src, "::/g"},
				{"fmkdir", "-i", img, "::/d"},
				{"frm", "-i", img, "::/f"},
			} {
				if r := run(t, args[0], args[1:]...); r.code != 1 || !strings.Contains(r.stderr, why) {
					t.Errorf("%s: exit %d, want 1 naming the boot sector\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
				}
			}
			if got := fileSum(t, img); got != sum {
				t.Fatal("a refusal changed the image")
			}
			if _, err := os.Stat(filepath.Join(dir, "out-"+c.name)); err == nil {
				t.Error("fcp left a host file")
			}
			// Put the byte back: the file is whole, as before.
			b[14]--
			if err := os.WriteFile(img, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.name != "fat32-no-backup" { // fsck.fat wants a backup there
				fsckClean(t, img, 0)
			}
			want, _ := os.ReadFile(src)
			if got := ok(t, "fcat", "-i", img, "::/f"); got != string(want) {
				t.Error("the file changed")
			}
		})
	}
}

// A FAT32 boot sector whose FAT size is damaged while its backup is whole
// (the damage of the repair test in fverify_boot_backup_test.go): readers
// read through the backup, which describes the volume, instead of an empty
// root with exit 0; writers refuse.
func TestReadersUseTheSoundBackupBoot(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "d.img")
	ok(t, "fmkfs", "--size", "64M", "--fat", "32", img)
	src := filepath.Join(dir, "h")
	data := writeFile(t, src, 5000, 9)
	ok(t, "fcp", "-i", img, src, "::/h")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	b[37] ^= 0x20 // BPB_FATSz32
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, img)
	if out := ok(t, "fls", img); !strings.Contains(out, "h") {
		t.Errorf("fls does not list h:\n%s", out)
	}
	if got := ok(t, "fcat", "-i", img, "::/h"); got != string(data) {
		t.Errorf("fcat gave %d bytes, want the %d written", len(got), len(data))
	}
	if r := run(t, "fcp", "-i", img, src, "::/g"); r.code != 1 || !strings.Contains(r.stderr, "does not describe the volume") {
		t.Errorf("fcp into it: exit %d\n%s", r.code, r.stderr)
	}
	if fileSum(t, img) != sum {
		t.Error("the image changed")
	}
}
