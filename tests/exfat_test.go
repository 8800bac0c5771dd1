package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The exFAT end-to-end tests: every command on exFAT volumes, held against
// exfatprogs (fsck.exfat -n after every write, exfatlabel and dump.exfat
// for what they show), and what mkfs.exfat makes held against ftools.

// fsckExFAT runs fsck.exfat -n on an image or device and fails the test
// unless it is clean. A volume at an offset is checked through a loop
// device (fsck.exfat takes no offset, and copying out a sparse SDXC
// volume is slow).
func fsckExFAT(t *testing.T, img string, offset int64) {
	t.Helper()
	need(t, "fsck.exfat")
	target := img
	if offset != 0 {
		need(t, "losetup")
		target = strings.TrimSpace(ok(t, "losetup", "-o", fmt.Sprint(offset), "-f", "--show", img))
		defer run(t, "losetup", "-d", target)
	}
	r := run(t, "fsck.exfat", "-n", target)
	if r.code != 0 || !strings.Contains(r.stdout, "clean") {
		t.Fatalf("fsck.exfat -n %s (offset %d): exit %d\n%s%s", img, offset, r.code, r.stdout, r.stderr)
	}
}

// newExFAT makes an exFAT image of the given size with fmkfs.
func newExFAT(t *testing.T, size string, args ...string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "x.img")
	ok(t, "fmkfs", append(append([]string{"--type", "exfat", "--size", size}, args...), img)...)
	fsckExFAT(t, img, 0)
	return img
}

// exfatTree writes a host tree with the names and sizes that matter on
// exFAT: long and Unicode names, names differing only in case in separate
// folders, empty files, files at cluster boundaries, an empty folder.
func exfatTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string]int{
		"hello.txt":                         100,
		"A long file name with spaces.text": 5000,
		"Ünïcödé – naïve café.bin":          4096,
		"empty":                             0,
		"sub/cluster.bin":                   4096,
		"sub/cluster+1.bin":                 4097,
		"sub/deeper/leaf.TXT":               10,
		"sub/deeper/UPPER.txt":              7,
		"other/upper.txt":                   9,
		"big.bin":                           3 << 20,
	}
	out := map[string][]byte{}
	seed := byte(1)
	for name, n := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		out[name] = writeFile(t, p, n, seed)
		seed++
	}
	if err := os.MkdirAll(filepath.Join(root, "empty dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// catIs checks a file's bytes through fcat.
func catIs(t *testing.T, img, p string, want []byte) {
	t.Helper()
	if got := ok(t, "fcat", "-i", img, "::"+p); got != string(want) {
		t.Fatalf("fcat ::%s: %d bytes that differ from the %d expected", p, len(got), len(want))
	}
}

type exfatInfoJSON struct {
	FATType       string `json:"fat_type"`
	ClusterSize   int64  `json:"cluster_size"`
	Clusters      uint32 `json:"clusters"`
	FreeClusters  uint32 `json:"free_clusters"`
	PercentInUse  *uint8 `json:"percent_in_use"`
	VolumeID      string `json:"volume_id"`
	Label         string `json:"label"`
	Dirty         bool   `json:"dirty"`
	BitmapCluster uint32 `json:"bitmap_cluster"`
	UpcaseCluster uint32 `json:"upcase_cluster"`
	RootCluster   uint32 `json:"root_cluster"`
	FATSectors    int64  `json:"fat_sectors"`
	Regions       []struct {
		Name   string `json:"name"`
		Offset int64  `json:"offset"`
	} `json:"regions"`
	Alignment struct {
		BU               int64 `json:"sd_bu"`
		PartitionAligned bool  `json:"partition_bu_aligned"`
		DataAligned      bool  `json:"data_bu_aligned"`
	} `json:"alignment"`
}

type flsJSON struct {
	Entries []struct {
		Path       string `json:"path"`
		Name       string `json:"name"`
		ShortName  string `json:"short_name"`
		Size       int64  `json:"size"`
		Attributes string `json:"attributes"`
		First      uint32 `json:"first_cluster"`
		Runs       int    `json:"runs"`
		Dir        bool   `json:"dir"`
	} `json:"entries"`
}

// Every command on an exFAT volume: what it writes passes fsck.exfat -n,
// reads back through ftools, and shows in exfatlabel and dump.exfat.
func TestExFATCommands(t *testing.T) {
	need(t, "fsck.exfat", "exfatlabel", "dump.exfat")
	img := newExFAT(t, "64M", "--label", "Ünï Card")
	if got := ok(t, "exfatlabel", img); !strings.Contains(got, "Ünï Card") {
		t.Fatalf("exfatlabel after fmkfs --label: %q", got)
	}
	host := t.TempDir()
	want := exfatTree(t, filepath.Join(host, "tree"))

	// fcp in, with the tree's long, Unicode and case-differing names.
	ok(t, "fcp", "-r", "--no-progress", "-i", img, filepath.Join(host, "tree"), "::/")
	fsckExFAT(t, img, 0)
	ok(t, "fverify", "--compare", filepath.Join(host, "tree")+"=::/tree", img)
	for name, b := range want {
		catIs(t, img, "/tree/"+name, b)
	}
	var ls flsJSON
	jsonOut(t, &ls, "fls", "--json", "-R", "-a", "-i", img, "::/tree")
	if len(ls.Entries) != len(want)+4 { // + sub, sub/deeper, other, empty dir
		t.Fatalf("fls -R lists %d entries, want %d", len(ls.Entries), len(want)+4)
	}
	for _, e := range ls.Entries {
		if e.ShortName != "" {
			t.Fatalf("fls: %s has short name %q on exFAT", e.Path, e.ShortName)
		}
		if !e.Dir && e.Size > 0 && e.Runs != 1 {
			t.Fatalf("fls: %s in %d runs; fcp writes contiguous files", e.Path, e.Runs)
		}
	}
	if out := ok(t, "fls", "-l", "-i", img, "::/tree/sub"); !regexp.MustCompile(`A\s+4097 .* cluster\+1\.bin`).MatchString(out) {
		t.Fatalf("fls -l:\n%s", out)
	}
	// Names clash as exFAT compares them: without case.
	if msg := fails(t, "fcp", "-n", "-i", img, filepath.Join(host, "tree", "hello.txt"), "::/tree/HELLO.TXT"); !strings.Contains(msg, "HELLO.TXT") {
		t.Fatalf("fcp -n onto the same name in another case: %q", msg)
	}
	// Wildcards match without case.
	if out := ok(t, "fls", "-i", img, "::/tree/sub/deeper/*.txt"); !strings.Contains(out, "leaf.TXT") || !strings.Contains(out, "UPPER.txt") {
		t.Fatalf("fls with a wildcard:\n%s", out)
	}

	// fmkdir, fmv (across folders, and a change of case), frmdir, frm.
	ok(t, "fmkdir", "-p", "-i", img, "::/a/b/c")
	ok(t, "fmv", "-i", img, "::/tree/hello.txt", "::/a/b/c/")
	ok(t, "fmv", "-i", img, "::/tree/other", "::/tree/Other")
	fsckExFAT(t, img, 0)
	catIs(t, img, "/a/b/c/hello.txt", want["hello.txt"])
	if out := ok(t, "fls", "-i", img, "::/tree"); !strings.Contains(out, "Other\n") {
		t.Fatalf("fmv to another case:\n%s", out)
	}
	if msg := fails(t, "frmdir", "-i", img, "::/a/b"); !strings.Contains(msg, "not empty") {
		t.Fatalf("frmdir on a full folder: %q", msg)
	}
	ok(t, "frmdir", "-i", img, "::/tree/empty dir")
	ok(t, "frm", "-i", img, "::/tree/empty")
	ok(t, "frm", "-r", "-i", img, "::/tree/sub")
	fsckExFAT(t, img, 0)

	// fattrib: set, show, hide from fls.
	ok(t, "fattrib", "+r", "+h", "-i", img, "::/a/b/c/hello.txt")
	if out := ok(t, "fattrib", "-i", img, "::/a/b/c/hello.txt"); !strings.Contains(out, "  A   HR  ") {
		t.Fatalf("fattrib shows:\n%s", out)
	}
	if out := ok(t, "fls", "-i", img, "::/a/b/c"); strings.Contains(out, "hello") {
		t.Fatalf("fls lists a hidden file without -a:\n%s", out)
	}
	fsckExFAT(t, img, 0)

	// flabel: case kept, UTF-16, as exfatlabel reads it; the serial number.
	ok(t, "flabel", img, "Fotos 2026")
	if got := ok(t, "exfatlabel", img); !strings.Contains(got, "Fotos 2026") {
		t.Fatalf("exfatlabel after flabel: %q", got)
	}
	if got := ok(t, "flabel", img); got != "Fotos 2026\n" {
		t.Fatalf("flabel shows %q", got)
	}
	ok(t, "flabel", "-N", "1234ABCD", img)
	if got := ok(t, "exfatlabel", "-i", img); !strings.Contains(strings.ToLower(got), "0x1234abcd") {
		t.Fatalf("exfatlabel -i after flabel -N: %q", got)
	}
	if msg := fails(t, "flabel", img, "twelve chars"); !strings.Contains(msg, "11") {
		t.Fatalf("flabel with 12 characters: %q", msg)
	}
	fsckExFAT(t, img, 0)

	// ffallocate: contiguous, reads as zeros past the valid data length;
	// --keep-size is refused with the reason.
	ok(t, "ffallocate", "-l", "10M", "-i", img, "::/pre.bin")
	fsckExFAT(t, img, 0)
	catIs(t, img, "/pre.bin", make([]byte, 10<<20))
	if msg := fails(t, "ffallocate", "-n", "-l", "20M", "-i", img, "::/pre.bin"); !strings.Contains(msg, "exFAT") {
		t.Fatalf("ffallocate --keep-size on exFAT: %q", msg)
	}
	ok(t, "ffallocate", "-l", "12M", "-i", img, "::/a/b/c/hello.txt")
	catIs(t, img, "/a/b/c/hello.txt", append(append([]byte{}, want["hello.txt"]...), make([]byte, 12<<20-100)...))
	fsckExFAT(t, img, 0)

	// fsinfo: the regions, the free count, as dump.exfat sees them.
	var fi exfatInfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	dump := ok(t, "dump.exfat", img)
	for _, f := range []struct {
		key  string
		want int64
	}{
		{"Cluster Count", int64(fi.Clusters)},
		{"Free Cluster", int64(fi.FreeClusters)},
		{"Root Cluster", int64(fi.RootCluster)},
		{"FAT Length", fi.FATSectors},
	} {
		if got := dumpField(t, dump, f.key); got != f.want {
			t.Fatalf("dump.exfat %s %d, fsinfo %d\n%s", f.key, got, f.want, dump)
		}
	}
	if fi.FATType != "exFAT" || fi.Label != "Fotos 2026" || fi.VolumeID != "1234-ABCD" || fi.Dirty {
		t.Fatalf("fsinfo --json: %+v", fi)
	}
	if msg := fails(t, "fsinfo", "--next-cluster", "100", img); !strings.Contains(msg, "FSINFO") {
		t.Fatalf("fsinfo --next-cluster on exFAT: %q", msg)
	}

	// fverify: clean, and --compare finds a difference.
	ok(t, "fverify", img)
	os.WriteFile(filepath.Join(host, "tree", "big.bin"), []byte("changed"), 0o644)
	r := run(t, "fverify", "--compare", filepath.Join(host, "tree", "big.bin")+"=::/tree/big.bin", img)
	if r.code != 4 || !strings.Contains(r.stdout, "compare: /tree/big.bin: size differs") {
		t.Fatalf("fverify --compare of a changed file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// fcp out: the whole volume to the host, byte for byte.
	out := filepath.Join(host, "out")
	ok(t, "fcp", "-r", "--no-progress", "-i", img, "::/tree", out)
	for name, b := range want {
		if strings.HasPrefix(name, "sub/") || name == "empty" || name == "hello.txt" || strings.HasPrefix(name, "other/") || name == "big.bin" {
			continue
		}
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("fcp out %s: %v, %d bytes", name, err, len(got))
		}
	}
}

// dumpField reads "Key : value" from dump.exfat's output.
func dumpField(t *testing.T, out, key string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `[^:]*:\s*(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("dump.exfat prints no %q:\n%s", key, out)
	}
	var n int64
	fmt.Sscan(m[1], &n)
	return n
}

// What mkfs.exfat makes, ftools reads and writes: fsinfo and fverify
// agree with it, and what fcp, fmkdir and flabel write passes fsck.exfat.
func TestExFATMkfsExfat(t *testing.T) {
	need(t, "mkfs.exfat", "fsck.exfat", "exfatlabel")
	for _, args := range [][]string{{"-L", "MKFS"}, {"-c", "512", "-L", "small"}, {"-c", "128K", "--pack-bitmap", "-L", "packed"}} {
		t.Run(strings.Join(args, ""), func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "m.img")
			ok(t, "truncate", "-s", "200M", img)
			if r := run(t, "mkfs.exfat", append(args, img)...); r.code != 0 {
				t.Fatalf("mkfs.exfat: %s%s", r.stdout, r.stderr)
			}
			var fi exfatInfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			if fi.FATType != "exFAT" || fi.FreeClusters == 0 || fi.FreeClusters >= fi.Clusters {
				t.Fatalf("fsinfo on mkfs.exfat's volume: %+v", fi)
			}
			ok(t, "fverify", img)
			src := filepath.Join(t.TempDir(), "f.bin")
			b := writeFile(t, src, 300_000, 3)
			ok(t, "fmkdir", "-i", img, "::/Dir")
			ok(t, "fcp", "-i", img, src, "::/Dir/File Name.bin")
			ok(t, "flabel", img, "ftools")
			fsckExFAT(t, img, 0)
			catIs(t, img, "/dir/file name.BIN", b)
			if got := ok(t, "exfatlabel", img); !strings.Contains(got, "ftools") {
				t.Fatalf("exfatlabel: %q", got)
			}
		})
	}
}

// fcp copies trees between FAT and exFAT images in both directions, and
// within an exFAT image.
func TestExFATBetweenImages(t *testing.T) {
	need(t, "fsck.exfat", "fsck.fat")
	dir := t.TempDir()
	want := exfatTree(t, filepath.Join(dir, "tree"))
	x := newExFAT(t, "64M")
	f := filepath.Join(dir, "f.img")
	ok(t, "fmkfs", "--size", "64M", f)
	ok(t, "fcp", "-r", "--no-progress", "-i", f, filepath.Join(dir, "tree"), "::/")
	ok(t, "fcp", "-r", "--no-progress", f+"::/tree", x+"::/fromfat")
	ok(t, "fcp", "-r", "--no-progress", x+"::/fromfat", x+"::/within")
	f2 := filepath.Join(dir, "f2.img")
	ok(t, "fmkfs", "--size", "64M", "--fat", "16", f2)
	ok(t, "fcp", "-r", "--no-progress", x+"::/within", f2+"::/back")
	fsckExFAT(t, x, 0)
	fsckClean(t, f2, 0)
	for _, p := range []string{x + "::/fromfat", x + "::/within"} {
		img, vp, _ := strings.Cut(p, "::")
		ok(t, "fverify", "--compare", filepath.Join(dir, "tree")+"=::"+vp, img)
	}
	ok(t, "fverify", "--compare", filepath.Join(dir, "tree")+"=::/back", f2)
	for name, b := range want {
		catIs(t, x, "/within/"+name, b)
	}
}

// A file over 4 GiB goes into exFAT whole (sparse on the host, written
// through fcp's stream), reads back, and fsck.exfat accepts it; FAT
// refuses it before writing.
func TestExFATLargeFile(t *testing.T) {
	need(t, "fsck.exfat", "truncate")
	dir := t.TempDir()
	src := filepath.Join(dir, "video.mp4")
	const size = 4<<30 + 5<<20 + 123
	ok(t, "truncate", "-s", fmt.Sprint(size), src)
	marks := []int64{0, 1 << 32, size - 10}
	fh, err := os.OpenFile(src, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, off := range marks {
		fh.WriteAt([]byte(fmt.Sprintf("mark%d", i)), off)
	}
	fh.Close()
	img := filepath.Join(dir, "x.img")
	ok(t, "fmkfs", "--type", "exfat", "--size", "4200M", img)
	ok(t, "fcp", "--no-progress", "-i", img, src, "::/")
	fsckExFAT(t, img, 0)
	var ls flsJSON
	jsonOut(t, &ls, "fls", "--json", "-i", img, "::/video.mp4")
	if len(ls.Entries) != 1 || ls.Entries[0].Size != size || ls.Entries[0].Runs != 1 {
		t.Fatalf("fls: %+v", ls.Entries)
	}
	// The marks are where the file's one run puts them (reading all 4 GiB
	// back would double the test's time).
	var fi exfatInfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	heap := int64(-1)
	for _, r := range fi.Regions {
		if r.Name == "cluster heap" {
			heap = r.Offset
		}
	}
	raw, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for i, off := range marks {
		b := make([]byte, 5)
		at := heap + int64(ls.Entries[0].First-2)*fi.ClusterSize + off
		if _, err := raw.ReadAt(b, at); err != nil || string(b) != fmt.Sprintf("mark%d", i) {
			t.Fatalf("byte %d of the file (image byte %d): %q, %v", off, at, b, err)
		}
	}
	f := filepath.Join(dir, "f.img")
	ok(t, "fmkfs", "--size", "64M", f)
	if msg := fails(t, "fcp", "--no-progress", img+"::/video.mp4", f+"::/"); !strings.Contains(msg, "4 GiB") {
		t.Fatalf("fcp of a 4 GiB file into FAT: %q", msg)
	}
}

// A folder of 10,000 long names goes in with fcp -r and lists back whole.
func TestExFATManyNames(t *testing.T) {
	need(t, "fsck.exfat")
	dir := t.TempDir()
	tree := filepath.Join(dir, "many")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 10000
	for i := range n {
		name := fmt.Sprintf("a rather long file name shared by many photos %05d.jpeg", i)
		if err := os.WriteFile(filepath.Join(tree, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := newExFAT(t, "256M")
	ok(t, "fcp", "-r", "--no-progress", "-i", img, tree, "::/")
	fsckExFAT(t, img, 0)
	out := ok(t, "fls", "-i", img, "::/many")
	if got := strings.Count(out, "\n"); got != n {
		t.Fatalf("fls lists %d names, want %d", got, n)
	}
	catIs(t, img, "/many/A RATHER long file name shared by many photos 07777.JPEG", []byte("a rather long file name shared by many photos 07777.jpeg"))
	ok(t, "fverify", "--compare", tree+"=::/many", img)
}

// fmkfs --type exfat inside a table: MBR type 0x07 or a GPT basic data
// partition, fsck.exfat clean, the commands find the partition alone.
// Flags that shape only FAT are refused with the reason.
func TestExFATFmkfs(t *testing.T) {
	need(t, "sfdisk", "fsck.exfat")
	dir := t.TempDir()
	for _, tc := range []struct{ table, typ string }{{"mbr", "type=7"}, {"gpt", "type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"}} {
		img := filepath.Join(dir, tc.table+".img")
		var res mkfsResult
		jsonOut(t, &res, "fmkfs", "--json", "--type", "exfat", "--table", tc.table, "--size", "300M", img)
		if res.FATType != "exFAT" || res.VolumeStart != 1<<20 || res.Hidden != 2048 {
			t.Fatalf("fmkfs --type exfat --table %s: %+v", tc.table, res)
		}
		if dump := ok(t, "sfdisk", "--dump", img); !strings.Contains(dump, tc.typ) {
			t.Fatalf("sfdisk --dump:\n%s\nwant %s", dump, tc.typ)
		}
		fsckExFAT(t, img, res.VolumeStart)
		ok(t, "fmkdir", "-i", img, "::/DCIM")
		fsckExFAT(t, img, res.VolumeStart)
	}
	img := filepath.Join(dir, "x.img")
	for _, f := range [][]string{{"--fat", "32"}, {"--fats", "2"}, {"--root-entries", "512"}, {"--media", "0xf0"}, {"--esp", "--table", "gpt"}, {"--codepage", "437"}, {"--mbr"}} {
		msg := fails(t, "fmkfs", append(append([]string{"--type", "exfat", "--size", "64M"}, f...), img)...)
		if !strings.Contains(msg, f[0]) || !strings.Contains(msg, "exfat") {
			t.Errorf("fmkfs --type exfat %s: %q", strings.Join(f, " "), msg)
		}
	}
	if msg := fails(t, "fmkfs", "--type", "ntfs", "--size", "64M", img); !strings.Contains(msg, "exfat") {
		t.Errorf("--type ntfs: %q", msg)
	}
	// Old signatures in the range are cleared as for FAT.
	ok(t, "fmkfs", "--size", "64M", img)
	var res mkfsResult
	jsonOut(t, &res, "fmkfs", "--json", "--type", "exfat", img)
	if len(res.Wiped) == 0 {
		t.Fatalf("fmkfs --type exfat over a FAT volume cleared nothing: %+v", res)
	}
	fsckExFAT(t, img, 0)
	if r := run(t, "blkid", "-p", img); !strings.Contains(r.stdout, `TYPE="exfat"`) || strings.Contains(r.stdout, "ambivalent") {
		t.Fatalf("blkid -p: %s%s", r.stdout, r.stderr)
	}
}

// fverify on exFAT keeps FAT's flags, output, JSON and exit statuses:
// --dry-run plans, --repair fixes (exit 1) what fsck.exfat then finds
// clean, -l lists what is checked, --salvage is refused.
func TestExFATVerifyRepair(t *testing.T) {
	need(t, "fsck.exfat")
	for _, name := range []string{"lost", "bitmap-free-used", "boot-main-checksum", "backup-differs", "name-hash"} {
		t.Run(name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "d.img")
			gunzipTo(t, filepath.Join(exfatDamagedDir, name+".img.gz"), img)
			r := run(t, "fverify", "--dry-run", img)
			if r.code != 4 || !strings.Contains(r.stdout, "would fix: ") || !strings.Contains(r.stdout, ": exFAT, ") {
				t.Fatalf("fverify --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			var out struct {
				FATType  string `json:"fat_type"`
				Problems []struct {
					Kind string `json:"kind"`
				} `json:"problems"`
				Fixes   []string `json:"fixes"`
				Summary struct {
					Clean     bool `json:"clean"`
					Remaining int  `json:"remaining"`
				} `json:"summary"`
				ExitStatus *int `json:"exit_status"`
			}
			r = run(t, "fverify", "--json", "--repair", img)
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || out.FATType != "exFAT" || len(out.Fixes) == 0 || out.Summary.Remaining != 0 {
				t.Fatalf("fverify --json --repair: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
			}
			fsckExFAT(t, img, 0)
			if out := ok(t, "fverify", "-l", img); !strings.Contains(out, "checking /BIG.BIN") || !strings.Contains(out, ": clean") {
				t.Fatalf("fverify -l after the repair:\n%s", out)
			}
		})
	}
	img := newExFAT(t, "16M")
	if r := run(t, "fverify", "--salvage", "--repair", img); r.code != 16 || !strings.Contains(r.stderr, "exFAT") {
		t.Fatalf("fverify --salvage on exFAT: exit %d %s", r.code, r.stderr)
	}
}

// Paths inside an exFAT image complete as inside a FAT one, and a
// 4096-byte-sector device takes exFAT as it takes FAT.
func TestExFATCompletionAndLoop(t *testing.T) {
	img := newExFAT(t, "16M")
	ok(t, "fmkdir", "-i", img, "::/Videos", "::/Vacation 2026")
	if out := ok(t, "fls", "--complete", img+"::/Va"); !strings.Contains(out, "/Vacation 2026/") || strings.Contains(out, "Videos") {
		t.Fatalf("completing %s::/Va: %q", img, out)
	}
	need(t, "truncate", "fsck.exfat")
	card := filepath.Join(t.TempDir(), "card.img")
	ok(t, "truncate", "-s", "300M", card)
	dev := attach(t, card, 4096)
	var res mkfsResult
	jsonOut(t, &res, "fmkfs", "--json", "--type", "exfat", dev)
	if res.FATType != "exFAT" || res.SectorSize != 4096 {
		t.Fatalf("fmkfs --type exfat on a 4096-byte-sector device: %+v", res)
	}
	fsckExFAT(t, dev, 0)
	ok(t, "fmkdir", "-i", dev, "::/DCIM")
	fsckExFAT(t, dev, 0)
}

// A PercentInUse the bitmap contradicts is only a warning (fsck.exfat says
// nothing of it), but --repair sets it from the bitmap as the man page
// says, also when it is all that is wrong; --dry-run says it would.
func TestExFATVerifyRepairPercentInUse(t *testing.T) {
	img := newExFAT(t, "16M")
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{77}, 0x70); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r := run(t, "fverify", img); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "percent in use is 77") {
		t.Fatalf("fverify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "fverify", "--dry-run", img); r.code != 0 || !strings.Contains(r.stdout, "would fix: set percent in use to 0") {
		t.Fatalf("fverify --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "fverify", "--repair", img); r.code != 0 || !strings.Contains(r.stdout, "fixed: set percent in use to 0") {
		t.Fatalf("fverify --repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if b[0x70] != 0 {
		t.Fatalf("percent in use after --repair: %d, want 0", b[0x70])
	}
	if r := run(t, "fverify", img); r.code != 0 || strings.Contains(r.stdout+r.stderr, "percent in use") {
		t.Fatalf("fverify after the repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	fsckExFAT(t, img, 0)
}
