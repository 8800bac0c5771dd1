package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Help shows one default at most per flag, never a misleading one (no
// "(default: 0)" for "chosen from the size", no "(default: false)"), and
// names each value's meaning, not "value".
func TestHelpShowsOneHonestDefault(t *testing.T) {
	bad := regexp.MustCompile(`\(default: (0|false|true|"")\)|--[a-z-]+ value\b|\[ --`)
	for _, cmd := range commands {
		out := ok(t, cmd, "--help")
		for _, l := range lines(out) {
			if bad.MatchString(l) || strings.Count(l, "(default") > 1 {
				t.Errorf("%s --help: %q", cmd, l)
			}
		}
	}
	out := ok(t, "fmkfs", "--help")
	for _, want := range []string{"-F, --fat TYPE ", "--sync POLICY ", "(default: close)", "--mbr[=MODE]", "-h, --hidden SECTORS"} {
		if !strings.Contains(out, want) {
			t.Errorf("fmkfs --help lacks %q", want)
		}
	}
	if out := ok(t, "fcp", "--help"); !regexp.MustCompile(`--preserve +keep modification times \(the default\)\n`).MatchString(out) {
		t.Errorf("fcp --help, --preserve:\n%s", out)
	}
}

// Flags are echoed as typed: "--invariantx", not "-invariantx"; a short
// flag with one dash.
func TestUnknownFlagsEchoedAsTyped(t *testing.T) {
	for _, cmd := range commands {
		for _, flag := range []string{"--no-such-flag", "-Z"} {
			msg := fails(t, cmd, flag, "x")
			if !strings.Contains(msg, "not defined: "+flag+" ") || strings.Contains(msg, " -no-such") {
				t.Errorf("%s %s: %q", cmd, flag, msg)
			}
		}
	}
	if msg := fails(t, "fmkfs", "x.img", "--sync"); !strings.Contains(msg, "needs an argument: --sync") {
		t.Errorf("fmkfs --sync without a value: %q", msg)
	}
	if msg := fails(t, "ffallocate", "-i", "x.img", "::/a"); !strings.Contains(msg, "missing --length: required") {
		t.Errorf("ffallocate without -l: %q", msg)
	}
}

// Every flag a message names exists in the command that prints it.
func TestHintsNameFlagsThatExist(t *testing.T) {
	need(t, "sfdisk")
	dir := t.TempDir()
	img, _ := verbsImage(t, "16")
	two := filepath.Join(dir, "two.img")
	ok(t, "truncate", "-s", "64M", two)
	runIn(t, "label: dos\n,20M,c\n,,c\n", "sfdisk", "-q", two)
	ok(t, "fmkfs", "--partition", "1", two)
	ok(t, "fmkfs", "--partition", "2", two)
	flagRE := regexp.MustCompile(`(?:^|[\s(,'])(--[a-z][a-z0-9-]*)`)
	calls := [][]string{
		{"fls", "-i", two}, {"fcat", two + "::/x"}, {"frm", "-i", two, "::/x"}, {"fsinfo", two},
		{"fcp", "-i", two, "::/x", dir}, {"flabel", two}, {"fattrib", "-i", two, "::/x"},
		{"fmkfs", "--size", "1M", "--table", "mbr", "--partition", "1", filepath.Join(dir, "n.img")},
		{"fmkfs", "--esp", "--size", "1M", filepath.Join(dir, "n.img")},
		{"fmkfs", "--disk-id", "1", "--size", "1M", filepath.Join(dir, "n.img")},
		{"fmkfs", filepath.Join(dir, "none.img")},
		{"flabel", img, ""},
		{"flabel", "-s", img, "X"},
		{"fsinfo", "--recount", "--free-count", "1", img},
		{"fls", "--partition", "0", "-i", img},
		{"fattrib", "-p", "+h", "-i", img, "::/A.TXT"},
		{"frm", "-i", img, "::/DIR"},
	}
	for _, c := range calls {
		msg := fails(t, c[0], c[1:]...)
		have := " " + strings.Join(helpFlags(t, c[0]), " ") + " "
		for _, m := range flagRE.FindAllStringSubmatch(msg, -1) {
			if !strings.Contains(have, " "+strings.TrimPrefix(m[1], "--")+" ") {
				t.Errorf("%s: the message names %s, which %s does not have: %q", strings.Join(c, " "), m[1], c[0], msg)
			}
		}
	}
}

// Messages name paths as the user wrote them (IMAGE::/path), without the
// library's own operations and paths ("stat /a.txt") or package prefixes;
// "no space left" names the file; counts are singular for one.
func TestMessagesInTheUsersTerms(t *testing.T) {
	img, _ := verbsImage(t, "12")
	internal := regexp.MustCompile(`(stat|open|lstat|rename|remove|mkdir|chattr) /|\bfat: |\bio: `)
	for _, c := range [][]string{
		{"fmv", "-i", img, "::/nope.txt", "::/b"},
		{"fmv", "-i", img, "::/A.TXT/", "::/b"},
		{"fcat", "-i", img, "::/A.TXT/"},
		{"fcat", "-i", img, "::/nope/x"},
		{"frm", "-i", img, "::/nope"},
		{"fls", "-i", img, "::/A.TXT/x"},
		{"fattrib", "+h", "-i", img, "::/nope"},
		{"fmkdir", "-i", img, "::/nope/x"},
		{"frmdir", "-i", img, "::/A.TXT"},
		{"fcp", "-i", img, "::/A.TXT/x", t.TempDir()},
		{"fsinfo", "--next-cluster", "1", img},
		{"fsinfo", filepath.Join(t.TempDir(), "missing.img")},
	} {
		msg := fails(t, c[0], c[1:]...)
		if internal.MatchString(msg) || !strings.Contains(msg, c[0]+": ") {
			t.Errorf("%s: %q", strings.Join(c, " "), msg)
		}
	}
	if msg := fails(t, "fmv", "-i", img, "::/nope.txt", "::/b"); !strings.Contains(msg, "cannot move '::/nope.txt': no such file or directory") {
		t.Errorf("fmv of a missing file: %q", msg)
	}
	if msg := fails(t, "fcat", "-i", img, "::/A.TXT/"); !strings.Contains(msg, "'::/A.TXT/': not a directory") {
		t.Errorf("fcat of file/: %q", msg)
	}
	// No space: the file is named.
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	big := int64(fi.FreeClusters+1) * fi.ClusterSize
	if msg := fails(t, "ffallocate", "-l", strconv.FormatInt(big, 10), "-i", img, "::/BIG.BIN"); !strings.Contains(msg, "cannot allocate '::/BIG.BIN': no space left on volume") {
		t.Errorf("ffallocate past the free space: %q", msg)
	}
	big2 := filepath.Join(t.TempDir(), "big2")
	writeFile(t, big2, int(big), 9)
	if msg := fails(t, "fcp", "-i", img, big2, "::/BIG2.BIN"); !strings.Contains(msg, "'::/BIG2.BIN': no space left on volume") {
		t.Errorf("fcp past the free space: %q", msg)
	}
	if out := ok(t, "ffallocate", "-l", "100", "-i", img, "::/ONE.BIN"); !strings.Contains(out, "in 1 run\n") {
		t.Errorf("ffallocate of one cluster: %q", out)
	}
	r := run(t, "fls", "--stats", "-i", img)
	if !strings.Contains(r.stderr, "1 request,") && !regexp.MustCompile(`\d+ requests,`).MatchString(r.stderr) || strings.Contains(r.stderr, "1 requests") {
		t.Errorf("fls --stats: %q", r.stderr)
	}
}

// Sizes read as truncate and dd read them: K/M/G/T and KiB/MiB/GiB/TiB
// (and Ki/Mi/Gi/Ti) binary, KB/MB/GB/TB decimal. Both progress and --stats
// count in binary units.
func TestSizeSuffixes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		size string
		want int64
	}{{"2GB", 2_000_000_000}, {"2Gi", 2 << 30}, {"2GiB", 2 << 30}, {"64M", 64 << 20}, {"70MB", 70_000_000}} {
		img := filepath.Join(dir, tc.size+".img")
		ok(t, "fmkfs", "--size", tc.size, img)
		fi, err := os.Stat(img)
		if err != nil || fi.Size() != tc.want {
			t.Errorf("fmkfs --size %s: %v bytes, want %d (%v)", tc.size, fi.Size(), tc.want, err)
		}
	}
	img := filepath.Join(dir, "64M.img")
	var res struct{ Size int64 }
	jsonOut(t, &res, "ffallocate", "--json", "-l", "1MB", "-i", img, "::/one.bin")
	if res.Size != 1_000_000 {
		t.Errorf("ffallocate -l 1MB: size %d", res.Size)
	}
	jsonOut(t, &res, "ffallocate", "--json", "-l", "1Mi", "-i", img, "::/two.bin")
	if res.Size != 1<<20 {
		t.Errorf("ffallocate -l 1Mi: size %d", res.Size)
	}
	part := filepath.Join(dir, "part.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", "--part-size", "20480KB", part)
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", part)
	if got := fi.TotalSectors * int64(fi.BytesPerSector); got > 20_480_000 || got < 20_000_000 {
		t.Errorf("--part-size 20480KB: a volume of %d bytes", got)
	}
	st := run(t, "fls", "--stats", "-i", img)
	if strings.Contains(st.stderr, "GB/s") || strings.Contains(st.stderr, "MB/s") || !regexp.MustCompile(`(KiB|MiB|GiB|\d B)/s`).MatchString(st.stderr) {
		t.Errorf("--stats units: %q", st.stderr)
	}
}

// fsinfo --next-cluster, --free-count and --recount print what they
// changed, old and new, not the whole volume.
func TestFsinfoPrintsTheChange(t *testing.T) {
	img := filepath.Join(t.TempDir(), "f.img")
	ok(t, "fmkfs", "--size", "64M", "--fat", "32", "--cluster-size", "512", img)
	out := ok(t, "fsinfo", "--next-cluster", "1000", img)
	if out != img+": FSINFO next cluster: 2 -> 1000\n" {
		t.Errorf("fsinfo --next-cluster 1000: %q", out)
	}
	out = ok(t, "fsinfo", "--free-count", "0xffffffff", "--next-cluster", "7", img)
	if !strings.Contains(out, "free count: 129021 -> unknown (0xffffffff)\n") || !strings.Contains(out, "next cluster: 1000 -> 7\n") || strings.Count(out, "\n") != 2 {
		t.Errorf("fsinfo --free-count --next-cluster: %q", out)
	}
	var js struct {
		Changes []struct {
			Field    string
			Old, New uint32
		}
	}
	jsonOut(t, &js, "fsinfo", "--json", "--recount", img)
	if len(js.Changes) != 2 || js.Changes[0].Field != "free_count" || js.Changes[0].Old != 0xffffffff || js.Changes[0].New != 129021 {
		t.Errorf("fsinfo --json --recount: %+v", js.Changes)
	}
}
