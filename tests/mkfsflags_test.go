package tests

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runInDir runs a command in dir and returns its stdout; it must succeed.
func runInDir(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// bootCodeArea is where a boot sector's code lies: the one part of
// fmkfs's boot sector that is its own (mkfs.fat's boot code prints
// mkfs.fat's message).
func bootCodeArea(is32 bool) (int, int) {
	if is32 {
		return 0x5A, 510
	}
	return 0x3E, 510
}

// The flags of mkfs.fat, given to fmkfs with --invariant, make mkfs.fat's
// image: the same bytes everywhere but the boot code (and the creation
// time mkfs.fat also stamps on the label entry); -v prints the layout in
// mkfs.fat -v's lines.
func TestFmkfsFlagsAsMkfsFat(t *testing.T) {
	need(t, "mkfs.fat", "fsck.fat")
	for _, tc := range []struct {
		name   string
		args   []string
		blocks string
	}{
		{"fat16", []string{"-F", "16"}, "70000"},
		{"fat32-label", []string{"-F", "32", "-n", "BOOT"}, "300000"},
		{"no-align", []string{"-a"}, "70000"},
		{"backup-sector", []string{"-F", "32", "-b", "2"}, "300000"},
		{"drive-geometry-hidden", []string{"-D", "0x81", "-g", "64/32", "-h", "63"}, "70000"},
		{"fat12-floppy", []string{"-F", "12", "-r", "224", "-s", "2"}, "1440"},
		{"one-fat-reserved-id", []string{"-f", "1", "-R", "8", "-i", "DEADBEEF", "-M", "0xF0"}, "40000"},
		{"grouped", []string{"-F32", "-nGROUPED"}, "300000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			want := runInDir(t, a, "mkfs.fat", append(append([]string{"-v", "--invariant"}, tc.args...), "-C", "x.img", tc.blocks)...)
			got := runInDir(t, b, "fmkfs", append(append([]string{"-v", "--invariant"}, tc.args...), "-C", "x.img", tc.blocks)...)
			wl, gl := lines(want), lines(got)
			if len(wl) < 2 || len(gl) < 2 || strings.Join(wl[1:], "\n") != strings.Join(gl[:len(gl)-1], "\n") {
				t.Errorf("fmkfs -v:\n%s\nmkfs.fat -v:\n%s", got, want)
			}
			wi, err := os.ReadFile(filepath.Join(a, "x.img"))
			if err != nil {
				t.Fatal(err)
			}
			gi, err := os.ReadFile(filepath.Join(b, "x.img"))
			if err != nil {
				t.Fatal(err)
			}
			if len(wi) != len(gi) {
				t.Fatalf("fmkfs made %d bytes, mkfs.fat %d", len(gi), len(wi))
			}
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", filepath.Join(b, "x.img"))
			mask(wi, gi, fi.FATType == "FAT32", labelEntry(t, filepath.Join(b, "x.img")))
			if i := firstDiff(wi, gi); i >= 0 {
				t.Errorf("images differ first at byte %d (0x%x): fmkfs %#02x, mkfs.fat %#02x", i, i, gi[i], wi[i])
			}
			fsckClean(t, filepath.Join(b, "x.img"), 0)
		})
	}
}

// mask zeroes in both images what may differ: the boot code (of the boot
// sector and the FAT32 backup), the creation and access stamps of the
// label entry at off (-1: none), and the FAT32 root directory's end mark.
func mask(a, b []byte, is32 bool, off int64) {
	from, to := bootCodeArea(is32)
	for _, img := range [][]byte{a, b} {
		clear(img[from:to])
		if is32 {
			bk := int64(binary.LittleEndian.Uint16(img[0x32:])) * int64(binary.LittleEndian.Uint16(img[11:]))
			if bk != 0 {
				clear(img[bk+int64(from) : bk+int64(to)])
			}
		}
		if off >= 0 {
			clear(img[off+13 : off+20])
		}
		if is32 {
			// The root directory's end of chain: mkfs.fat writes
			// 0x0FFFFFF8, fmkfs 0x0FFFFFFF; both end a chain.
			le := binary.LittleEndian
			ss, res, fat := int64(le.Uint16(img[11:])), int64(le.Uint16(img[14:])), int64(le.Uint32(img[36:]))
			for i := int64(0); i < int64(img[16]); i++ {
				e := (res+i*fat)*ss + 8
				clear(img[e : e+4])
			}
		}
	}
}

// labelEntry is the byte offset of the root directory's first entry when
// it is the volume label, else -1.
func labelEntry(t *testing.T, img string) int64 {
	var out struct {
		FATType string `json:"fat_type"`
		Regions []struct {
			Name   string
			Offset int64
		}
	}
	jsonOut(t, &out, "fsinfo", "--json", img)
	for _, r := range out.Regions {
		if r.Name == "root directory" || (out.FATType == "FAT32" && r.Name == "data area") {
			b := make([]byte, 32)
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.ReadAt(b, r.Offset)
			if b[11] == 0x08 {
				return r.Offset
			}
			return -1
		}
	}
	t.Fatalf("fsinfo shows no root directory: %+v", out)
	return -1
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// -h is hidden sectors in fmkfs (help is --help), -C creates only a new
// file, -I is --force, -c and -l are refused with the reason, and the
// help shows no misleading default.
func TestFmkfsMkfsFatFlags(t *testing.T) {
	need(t, "minfo")
	dir := t.TempDir()
	img := filepath.Join(dir, "h.img")
	ok(t, "fmkfs", "-h", "2048", "--size", "64M", img)
	if out := ok(t, "minfo", "-i", img, "::"); !strings.Contains(out, "hidden sectors: 2048") {
		t.Errorf("fmkfs -h 2048: minfo says\n%s", out)
	}
	if out := ok(t, "fmkfs", "--help"); !strings.Contains(out, "-h, --hidden SECTORS") || strings.Contains(out, "--help, -h") {
		t.Errorf("fmkfs --help:\n%s", out)
	}
	if msg := fails(t, "fmkfs", "-C", img, "100"); !strings.Contains(msg, "-C: "+img+" exists") {
		t.Errorf("-C on an existing file: %q", msg)
	}
	if msg := fails(t, "fmkfs", "-C", filepath.Join(dir, "new.img")); !strings.Contains(msg, "needs BLOCK-COUNT") {
		t.Errorf("-C without BLOCK-COUNT: %q", msg)
	}
	// -I is --force: here, an explicitly asked-for small FAT32.
	small := filepath.Join(dir, "small.img")
	if msg := fails(t, "fmkfs", "-F", "32", "--size", "32M", small); !strings.Contains(msg, "--force") {
		t.Errorf("small FAT32 without -I: %q", msg)
	}
	ok(t, "fmkfs", "-F", "32", "-I", "--size", "32M", small)
	fsckClean(t, small, 0)
	for flag, want := range map[string]string{"-c": "-c: fmkfs does not test for bad blocks", "-l": "-l: fmkfs does not read a bad block list"} {
		args := []string{flag, img}
		if flag == "-l" {
			args = []string{flag, "bad.txt", img}
		}
		if msg := fails(t, "fmkfs", args...); !strings.Contains(msg, want) {
			t.Errorf("fmkfs %s: %q", flag, msg)
		}
	}
}

// -m puts boot code that prints the message (CR LF line ends, tabs
// expanded) in the boot sector: the code's SI operand points at the text.
// --mbr writes mkfs.fat's fake table: one partition from sector 0 over the
// volume, the disk id, and a boot sector readers still take for a volume.
func TestFmkfsBootMessageAndMBR(t *testing.T) {
	need(t, "sfdisk", "blkid", "mdir")
	dir := t.TempDir()
	msg := filepath.Join(dir, "msg.txt")
	if err := os.WriteFile(msg, []byte("Not bootable\tsorry\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fat := range []string{"16", "32"} {
		img := filepath.Join(dir, "m"+fat+".img")
		size := map[string]string{"16": "64M", "32": "600M"}[fat]
		ok(t, "fmkfs", "-F", fat, "-m", msg, "--mbr", "--disk-id", "1234ABCD", "--size", size, img)
		fsckClean(t, img, 0)
		sec := make([]byte, 512)
		f, err := os.Open(img)
		if err != nil {
			t.Fatal(err)
		}
		f.ReadAt(sec, 0)
		f.Close()
		from, _ := bootCodeArea(fat == "32")
		if sec[0] != 0xEB || int(sec[1])+2 != from {
			t.Errorf("FAT%s: jump %x does not reach the boot code at %#x", fat, sec[:3], from)
		}
		ptr := int(binary.LittleEndian.Uint16(sec[from+5:])) - 0x7C00
		want := "Not bootable    sorry\r\nline two\r\n\x00"
		if ptr < from || ptr+len(want) > 440 || string(sec[ptr:ptr+len(want)]) != want {
			t.Errorf("FAT%s: the code's text pointer %#x does not point at the message: %q", fat, ptr, sec[from:440])
		}
		if binary.LittleEndian.Uint32(sec[440:]) != 0x1234ABCD || sec[446] != 0x80 || binary.LittleEndian.Uint32(sec[446+8:]) != 0 {
			t.Errorf("FAT%s: fake MBR entry %x, disk id %x", fat, sec[446:462], sec[440:444])
		}
		if out := ok(t, "sfdisk", "-d", img); !strings.Contains(out, "label-id: 0x1234abcd") || !strings.Contains(out, "start=           0") {
			t.Errorf("FAT%s: sfdisk -d:\n%s", fat, out)
		}
		if out := ok(t, "blkid", "-p", img); !strings.Contains(out, `TYPE="vfat"`) {
			t.Errorf("FAT%s: blkid -p: %s", fat, out)
		}
		ok(t, "mdir", "-i", img, "::/")
		// ftools itself takes sector 0 for the volume's, not for a table.
		ok(t, "fls", "-i", img)
	}
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, bytes.Repeat([]byte("x"), 400), 0o644)
	if msg := fails(t, "fmkfs", "-F", "32", "-m", long, "--size", "600M", filepath.Join(dir, "l.img")); !strings.Contains(msg, "at most 389 fit") {
		t.Errorf("a 400-byte message on FAT32: %q", msg)
	}
}

// fmkfs --invariant gives byte-identical images, volume id 1234-ABCD.
func TestFmkfsInvariant(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.img"), filepath.Join(dir, "b.img")
	ok(t, "fmkfs", "--invariant", "--table", "mbr", "--label", "SAME", "--size", "64M", a)
	ok(t, "fmkfs", "--invariant", "--table", "mbr", "--label", "SAME", "--size", "64M", b)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Errorf("two fmkfs --invariant runs differ at byte %d", firstDiff(ab, bb))
	}
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", a)
	if fi.VolumeID != "1234-ABCD" {
		t.Errorf("volume id %s, want 1234-ABCD", fi.VolumeID)
	}
}
