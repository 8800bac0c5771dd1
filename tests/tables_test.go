package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wipefsSigs lists what wipefs -n finds on target, as "type@offset".
func wipefsSigs(t *testing.T, target string) []string {
	t.Helper()
	need(t, "wipefs")
	var out struct {
		Signatures []struct {
			Offset string `json:"offset"`
			Type   string `json:"type"`
		} `json:"signatures"`
	}
	raw := ok(t, "wipefs", "-n", "-J", target)
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("wipefs -J: %v\n%s", err, raw)
	}
	var s []string
	for _, sig := range out.Signatures {
		s = append(s, sig.Type+"@"+sig.Offset)
	}
	return s
}

// onlyTypes fails unless every signature is of one of the given types.
func onlyTypes(t *testing.T, what string, sigs []string, types ...string) {
	t.Helper()
	for _, s := range sigs {
		typ, _, _ := strings.Cut(s, "@")
		found := false
		for _, w := range types {
			found = found || typ == w
		}
		if !found {
			t.Errorf("%s: wipefs -n still finds %s (all: %q; want only %q)", what, s, sigs, types)
		}
	}
}

// blkidProbe is blkid -p's KEY=VALUE output for target.
func blkidProbe(t *testing.T, target string) map[string]string {
	t.Helper()
	need(t, "blkid")
	r := run(t, "blkid", "-p", "-o", "export", target)
	if r.code != 0 && r.code != 2 {
		t.Fatalf("blkid -p %s: exit %d\n%s", target, r.code, r.stderr)
	}
	m := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// partOf copies partition 1 of img (as ftools sees it) out for the
// tools that cannot take an offset.
func partOf(t *testing.T, img string) string {
	t.Helper()
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
	return extract(t, img, fi.VolumeStart)
}

// Replacing a GPT by an MBR and an MBR by a GPT leaves only the new table
// and file system for sfdisk, blkid and wipefs, and ftools finds the new
// partition, in an image and on a loop device with partition devices.
func TestTableReplacement(t *testing.T) {
	need(t, "sfdisk", "mkfs.ext4")
	cases := []struct{ old, new, label, pttype string }{
		{"label: gpt\nstart=4096, size=65536\nstart=69632\n", "mbr", "dos", "dos"},
		{"label: dos\nstart=4096, size=65536, type=c\nstart=69632, type=83\n", "gpt", "gpt", "gpt"},
	}
	for _, tc := range cases {
		for _, loop := range []bool{false, true} {
			t.Run(fmt.Sprintf("to-%s-loop-%v", tc.new, loop), func(t *testing.T) {
				img := filepath.Join(t.TempDir(), "disk.img")
				ok(t, "truncate", "-s", "128M", img)
				runIn(t, tc.old, "sfdisk", "-q", img)
				ok(t, "mkfs.ext4", "-q", "-E", "offset=2097152", img, "32M")
				target := img
				if loop {
					target = attachP(t, img)
				}
				var res mkfsResult
				jsonOut(t, &res, "fmkfs", "--json", "--force", "--table", tc.new, target)
				if res.VolumeStart != 1<<20 {
					t.Fatalf("new partition at byte %d", res.VolumeStart)
				}
				dump := ok(t, "sfdisk", "-d", target)
				if !strings.Contains(dump, "label: "+tc.label) || strings.Count(dump, "start=") != 1 || !strings.Contains(dump, "start=        2048") {
					t.Fatalf("sfdisk -d after --table %s:\n%s", tc.new, dump)
				}
				if got := blkidProbe(t, target)["PTTYPE"]; got != tc.pttype {
					t.Fatalf("blkid -p: PTTYPE %q, want %q", got, tc.pttype)
				}
				if tc.new == "mbr" {
					onlyTypes(t, "disk", wipefsSigs(t, target), "dos")
				} else {
					onlyTypes(t, "disk", wipefsSigs(t, target), "gpt", "PMBR")
				}
				part := partOf(t, img)
				if loop {
					partitionDevices(t, target)
					part = target + "p1"
				}
				if got := blkidProbe(t, part); got["TYPE"] != "vfat" || got["AMBIVALENT"] != "" {
					t.Fatalf("blkid -p on the new partition: %v", got)
				}
				onlyTypes(t, "partition", wipefsSigs(t, part), "vfat")
				var fi fsinfoJSON
				jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", target)
				if fi.VolumeStart != 1<<20 {
					t.Fatalf("ftools finds partition 1 at byte %d", fi.VolumeStart)
				}
				fsckClean(t, part, 0)
			})
		}
	}
}

// A format over ext4, exFAT, swap, ISO 9660 and an older FAT32 leaves no
// foreign signature for blkid or wipefs, and no old backup boot sector.
func TestFormatOverOtherFileSystems(t *testing.T) {
	need(t, "mkfs.ext4", "mkfs.fat", "mkswap", "mkfs.exfat")
	makers := map[string]func(img string){
		"ext4":  func(img string) { ok(t, "mkfs.ext4", "-q", "-F", img) },
		"exfat": func(img string) { ok(t, "mkfs.exfat", img) },
		"swap":  func(img string) { ok(t, "mkswap", img) },
		"fat32": func(img string) { ok(t, "mkfs.fat", "-F", "32", "-S", "4096", img) },
		"iso9660": func(img string) {
			f, err := os.OpenFile(img, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pvd := make([]byte, 2048)
			pvd[0], pvd[6] = 1, 1
			copy(pvd[1:], "CD001")
			copy(pvd[40:], "OLDDISC")
			end := make([]byte, 2048)
			end[0], end[6] = 255, 1
			copy(end[1:], "CD001")
			f.WriteAt(pvd, 32768)
			f.WriteAt(end, 34816)
		},
	}
	for name, mk := range makers {
		t.Run(name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "disk.img")
			ok(t, "truncate", "-s", "600M", img)
			mk(img)
			if typ := blkidProbe(t, img)["TYPE"]; typ == "" || typ == "vfat" && name != "fat32" {
				t.Fatalf("blkid does not see the %s fixture: %q", name, typ)
			}
			var res mkfsResult
			jsonOut(t, &res, "fmkfs", "--json", "--fat", "16", "--cluster-size", "16K", img)
			if len(res.Wiped) == 0 {
				t.Fatalf("fmkfs cleared nothing over %s", name)
			}
			if got := blkidProbe(t, img); got["TYPE"] != "vfat" || got["VERSION"] != "FAT16" || got["AMBIVALENT"] != "" {
				t.Fatalf("blkid -p after formatting over %s: %v", name, got)
			}
			onlyTypes(t, name, wipefsSigs(t, img), "vfat")
			raw, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			for _, off := range []int{6 * 4096, 12 * 512, 12 * 4096} {
				if raw[off+510] == 0x55 && raw[off+511] == 0xAA && (raw[off] == 0xEB || raw[off] == 0xE9) {
					t.Errorf("an old backup boot sector survives at byte %d", off)
				}
			}
			fsckClean(t, img, 0)
		})
	}
}

// sfdiskDump is sfdisk -d's output with the device name left out.
func sfdiskDump(t *testing.T, img string) string {
	t.Helper()
	return strings.ReplaceAll(ok(t, "sfdisk", "-d", img), img, "IMG")
}

// Disk identifiers are random, derived from SOURCE_DATE_EPOCH when it is
// set (whole images then match byte for byte), or given with --disk-id.
func TestDiskIdentifiers(t *testing.T) {
	need(t, "sfdisk", "blkid")
	for _, table := range []string{"mbr", "gpt"} {
		t.Run(table, func(t *testing.T) {
			dir := t.TempDir()
			mk := func(name string, env []string, extra ...string) string {
				img := filepath.Join(dir, name)
				cmd := exec.Command("fmkfs", append(append([]string{"--size", "64M", "--table", table}, extra...), img)...)
				cmd.Env = append(os.Environ(), env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("fmkfs: %v\n%s", err, out)
				}
				return img
			}
			labelID := func(img string) string {
				for _, l := range strings.Split(ok(t, "sfdisk", "-d", img), "\n") {
					if v, ok := strings.CutPrefix(l, "label-id: "); ok {
						return v
					}
				}
				t.Fatalf("sfdisk -d %s shows no label-id", img)
				return ""
			}
			a, b := labelID(mk("a.img", nil)), labelID(mk("b.img", nil))
			if a == b || a == "0x00000000" {
				t.Fatalf("two plain runs gave disk ids %s and %s", a, b)
			}
			sde := []string{"SOURCE_DATE_EPOCH=1700000000"}
			c, d := mk("c.img", sde), mk("d.img", sde)
			if labelID(c) != labelID(d) || fileSHA(t, c) != fileSHA(t, d) {
				t.Fatalf("SOURCE_DATE_EPOCH: disk ids %s and %s, images equal %v", labelID(c), labelID(d), fileSHA(t, c) == fileSHA(t, d))
			}
			if table == "mbr" {
				e := mk("e.img", nil, "--disk-id", "DEADBEEF")
				if labelID(e) != "0xdeadbeef" {
					t.Fatalf("--disk-id DEADBEEF: %s", labelID(e))
				}
				if msg := fails(t, "fmkfs", "--size", "64M", "--disk-id", "1", filepath.Join(dir, "x.img")); !strings.Contains(msg, "--table") {
					t.Fatalf("--disk-id without a table: %q", msg)
				}
			} else {
				g := "3F2504E0-4F89-41D3-9A0C-0305E82C3301"
				e := mk("e.img", nil, "--disk-id", g)
				if labelID(e) != g {
					t.Fatalf("--disk-id %s: %s", g, labelID(e))
				}
			}
		})
	}
}

// --esp gives the GPT partition the EFI System Partition type and a name.
func TestFmkfsESP(t *testing.T) {
	img := filepath.Join(t.TempDir(), "esp.img")
	ok(t, "fmkfs", "--size", "300M", "--table", "gpt", "--esp", "--label", "ESP", img)
	dump := ok(t, "sfdisk", "-d", img)
	if !strings.Contains(dump, "type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B") || !strings.Contains(dump, `name="EFI System Partition"`) {
		t.Fatalf("sfdisk -d:\n%s", dump)
	}
	fsckClean(t, img, 1<<20)
	if msg := fails(t, "fmkfs", "--size", "300M", "--table", "mbr", "--esp", filepath.Join(t.TempDir(), "x.img")); !strings.Contains(msg, "--table gpt") {
		t.Fatalf("--esp with an MBR: %q", msg)
	}
	// An ESP is FAT32 (UEFI; systemd and mkosi make it so), with clusters
	// small enough for FAT32's 65,525 where the default ones are not; a
	// partition too small for that is refused with the size that would
	// do, and --fat 16 still makes a FAT16 ESP.
	for _, tc := range []struct {
		size, fat, want string
	}{{"512M", "", "FAT32"}, {"300M", "", "FAT32"}, {"40M", "", "FAT32"}, {"20M", "16", "FAT16"}} {
		img := filepath.Join(t.TempDir(), "esp.img")
		args := []string{"--json", "--size", tc.size, "--table", "gpt", "--esp", img}
		if tc.fat != "" {
			args = append([]string{"--fat", tc.fat}, args...)
		}
		var res mkfsResult
		jsonOut(t, &res, "fmkfs", args...)
		if res.FATType != tc.want {
			t.Errorf("--esp --size %s: %s, want %s", tc.size, res.FATType, tc.want)
		}
		fsckClean(t, img, 1<<20)
	}
	msg := fails(t, "fmkfs", "--size", "20M", "--table", "gpt", "--esp", filepath.Join(t.TempDir(), "small.img"))
	for _, want := range []string{"FAT32", "65,525", "--part-size 33M", "--fat 16"} {
		if !strings.Contains(msg, want) {
			t.Errorf("--esp on 20M: %q lacks %q", msg, want)
		}
	}
}

// --part-size leaves the rest of the disk unallocated, and sfdisk --append
// adds a second partition there.
func TestFmkfsPartSize(t *testing.T) {
	for _, table := range []string{"mbr", "gpt"} {
		t.Run(table, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "pi.img")
			var res mkfsResult
			jsonOut(t, &res, "fmkfs", "--json", "--size", "512M", "--table", table, "--part-size", "128M", img)
			if res.VolumeSize > 128<<20 || res.VolumeSize < 127<<20 {
				t.Fatalf("volume of %d bytes in a 128 MiB partition", res.VolumeSize)
			}
			runIn(t, ",,\n", "sfdisk", "-q", "--append", img)
			dump := ok(t, "sfdisk", "-d", img)
			if strings.Count(dump, "start=") != 2 || !strings.Contains(dump, fmt.Sprintf("start=%12d", (1<<20+128<<20)/512)) {
				t.Fatalf("sfdisk -d after --append:\n%s", dump)
			}
			fsckClean(t, img, 1<<20)
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
			if len(fi.Warnings) != 0 {
				t.Fatalf("fsinfo: %q", fi.Warnings)
			}
			if msg := fails(t, "fmkfs", "--size", "64M", "--table", table, "--part-size", "100M", filepath.Join(t.TempDir(), "x.img")); !strings.Contains(msg, "--part-size") {
				t.Fatalf("--part-size larger than the disk: %q", msg)
			}
		})
	}
}

// Logical partitions are formatted and found as 5 and up; the extended
// container is never offered.
func TestLogicalPartitions(t *testing.T) {
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "truncate", "-s", "128M", img)
	runIn(t, "label: dos\nstart=2048, size=32768, type=c\nstart=34816, type=5\nstart=36864, size=40960, type=c\nstart=79872, type=83\n", "sfdisk", "-q", img)
	var res mkfsResult
	jsonOut(t, &res, "fmkfs", "--json", "--partition", "5", img)
	if res.VolumeStart != 36864*512 || res.Hidden != 36864 {
		t.Fatalf("partition 5: volume at byte %d, %d hidden sectors", res.VolumeStart, res.Hidden)
	}
	fsckClean(t, img, res.VolumeStart)
	if msg := fails(t, "fsinfo", "--partition", "2", img); !strings.Contains(msg, "[1 5 6]") {
		t.Fatalf("the extended container: %q", msg)
	}
	if blkidProbe(t, extract(t, img, res.VolumeStart))["TYPE"] != "vfat" {
		t.Fatal("blkid does not see the FAT in partition 5")
	}
}

// --sd refuses FAT32 below 65,525 clusters with the sentence used without
// --sd, and --force allows it.
func TestFmkfsSDSmallFAT32(t *testing.T) {
	dir := t.TempDir()
	msg := fails(t, "fmkfs", "--sd", "--fat", "32", "--size", "64M", filepath.Join(dir, "a.img"))
	plain := fails(t, "fmkfs", "--fat", "32", "--cluster-size", "32K", "--size", "64M", filepath.Join(dir, "b.img"))
	cut := func(s string) string {
		_, after, _ := strings.Cut(s, "clusters would have")
		return strings.TrimLeft(after, " 0123456789,")
	}
	if !strings.Contains(msg, "FAT32 needs at least 65,525 clusters") || cut(msg) != cut(plain) {
		t.Fatalf("--sd: %q\nwithout --sd: %q", msg, plain)
	}
	var res sdMkfsJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", "--fat", "32", "--force", "--size", "64M", filepath.Join(dir, "c.img"))
	if res.FATType != "FAT32" {
		t.Fatalf("--sd --fat 32 --force: %+v", res)
	}
}

// fmkfs --sd on a card that holds a table: without a terminal it needs
// --force and says what is on the card in one sentence; on a terminal it
// asks once. Afterwards the kernel re-reads the table, and a partition in
// use is named.
func TestFmkfsSDOnPartitionedCard(t *testing.T) {
	need(t, "script")
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "truncate", "-s", "300M", img)
	runIn(t, "label: dos\nstart=8192, type=c\n", "sfdisk", "-q", img)
	dev := attachP(t, img)
	ok(t, "fmkfs", "--label", "HOLIDAY", dev+"p1")
	msg := fails(t, "fmkfs", "--sd", dev)
	for _, want := range []string{dev, "300.0 MiB", "MBR table with partition 1", "FAT16 \"HOLIDAY\"", "--force"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q: %q", want, msg)
		}
	}
	if strings.Count(strings.TrimSpace(msg), "\n") != 0 || strings.Count(msg, "--force") != 1 || strings.Contains(msg, "--partition") {
		t.Errorf("refusal is not one sentence: %q", msg)
	}
	// On a terminal: asked once; "n" leaves the card alone, "y" goes on.
	ask := func(answer string) result {
		cmd := exec.Command("script", "-qec", "fmkfs --sd "+dev, "/dev/null")
		cmd.Stdin = strings.NewReader(answer + "\n")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{stdout: string(out), code: code}
	}
	if r := ask("n"); r.code == 0 || strings.Count(r.stdout, "erase all of it") != 1 || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("answer n: exit %d\n%s", r.code, r.stdout)
	}
	if r := ask("y"); r.code != 0 || strings.Count(r.stdout, "erase all of it") != 1 || !strings.Contains(r.stdout, "SD layout") {
		t.Fatalf("answer y: exit %d\n%s", r.code, r.stdout)
	}
	partitionDevices(t, dev)
	fsckClean(t, dev+"p1", 0)
	// A partition held open: the table is written, and fmkfs says the
	// kernel could not re-read it.
	f, err := os.Open(dev + "p1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := run(t, "fmkfs", "--sd", "--force", dev)
	if r.code != 0 || !strings.Contains(r.stderr, "in use") {
		t.Fatalf("with a partition open: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
