package tests

import (
	"encoding/json"
	"os"
	"os/exec"
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

// An image that is not a FAT or exFAT volume, or is cut short, is named in
// the user's terms by every command, with no package prefix ("fat: ",
// "io: "): fls, fcat, fmkdir, frm, frmdir, fmv and fattrib printed the
// library's error as it was, and put it so into --json's reasons.
func TestOpenErrorsInTheUsersTerms(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.img")
	writeFile(t, junk, 1<<20, 3)
	cut := filepath.Join(dir, "cut.img")
	ok(t, "fmkfs", "--size", "8M", cut)
	ok(t, "truncate", "-s", "1M", cut)
	internal := regexp.MustCompile(`\b(fat|exfat|io): `)
	for _, img := range []string{junk, cut} {
		cmds := [][]string{
			{"fmkdir", "-i", img, "::/D"},
			{"frm", "-i", img, "::/A.TXT"},
			{"frmdir", "-i", img, "::/D"},
			{"fmv", "-i", img, "::/A.TXT", "::/B.TXT"},
			{"fattrib", "-i", img, "::/A.TXT"},
			{"fattrib", "+h", "-i", img, "::/A.TXT"},
			{"flabel", img, "X"},
			{"ffallocate", "-l", "1K", "-i", img, "::/A.TXT"},
			{"fcp", "-i", img, junk, "::/"},
		}
		if img == junk { // the cut image still reads
			cmds = append(cmds, []string{"fls", "-i", img, "::/"}, []string{"fcat", "-i", img, "::/A.TXT"}, []string{"fsinfo", img})
		}
		for _, c := range cmds {
			msg := fails(t, c[0], c[1:]...)
			if internal.MatchString(msg) || !strings.HasPrefix(msg, c[0]+": ") {
				t.Errorf("%s: %q", strings.Join(c, " "), msg)
			}
		}
		for _, c := range [][]string{
			{"fmkdir", "--json", "-i", img, "::/D"},
			{"frm", "--json", "-i", img, "::/A.TXT"},
			{"fmv", "--json", "-i", img, "::/A.TXT", "::/B.TXT"},
		} {
			r := run(t, c[0], c[1:]...)
			var out struct {
				Failed []struct{ Reason string } `json:"failed"`
				Error  string                    `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code == 0 {
				t.Fatalf("%s: exit %d, %v: %q", strings.Join(c, " "), r.code, err, r.stdout)
			}
			if internal.MatchString(out.Error) {
				t.Errorf("%s: error %q", strings.Join(c, " "), out.Error)
			}
			for _, f := range out.Failed {
				if internal.MatchString(f.Reason) {
					t.Errorf("%s: reason %q", strings.Join(c, " "), f.Reason)
				}
			}
		}
	}
}

// Output that cannot be written is never lost in silence: fls, fsinfo and
// fverify ended 0 with standard output on a full disk (/dev/full), where
// ls and cat fail; fcat named the system's "/dev/stdout".
func TestLostOutputFails(t *testing.T) {
	img := filepath.Join(t.TempDir(), "o.img")
	ok(t, "fmkfs", "--size", "8M", img)
	src := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, src, 5000, 1)
	ok(t, "fcp", "-i", img, src, "::/A.TXT")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("/dev/full: %v", err)
	}
	defer full.Close()
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"fls", "-l", "-i", img, "::/"}, 1},
		{[]string{"fls", "--json", "-i", img, "::/"}, 1},
		{[]string{"fcat", "-i", img, "::/A.TXT"}, 1},
		{[]string{"fsinfo", img}, 1},
		{[]string{"fattrib", "-i", img, "::/A.TXT"}, 1},
		{[]string{"fverify", img}, 8},
	} {
		cmd := exec.Command(c.args[0], c.args[1:]...)
		var errb strings.Builder
		cmd.Stdout, cmd.Stderr = full, &errb
		err := cmd.Run()
		code := 0
		if ee, isExit := err.(*exec.ExitError); isExit {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		msg := errb.String()
		if code != c.code || !strings.Contains(msg, "standard output: no space left on device") || strings.Contains(msg, "/dev/stdout") {
			t.Errorf("%s > /dev/full: exit %d (want %d), %q", strings.Join(c.args, " "), code, c.code, msg)
		}
	}
}

// An attribute letter that no attribute has (+x, +rw) is refused naming
// the attributes, before anything is opened: fattrib took "+x" for a path
// ("+x: not a path inside an image") and then listed the files' attributes.
func TestFattribUnknownAttribute(t *testing.T) {
	img, _ := verbsImage(t, "16")
	for _, tok := range []string{"+x", "+rw"} {
		r := run(t, "fattrib", tok, "-i", img, "::/A.TXT")
		if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, tok+": not an attribute change") || !strings.Contains(r.stderr, "r (read-only)") {
			t.Errorf("fattrib %s: exit %d, stdout %q, stderr %q", tok, r.code, r.stdout, r.stderr)
		}
	}
	ok(t, "fattrib", "+h", "-i", img, "::/A.TXT")
	if out := ok(t, "fattrib", "-X", "-i", img, "::/A.TXT"); !strings.Contains(out, "H") {
		t.Errorf("fattrib +h then -X: %q", out)
	}
}

// rm's -i (ask first), typed out of habit, is mtools' -i IMAGE here: "frm
// -i card.img::/A card.img::/B" took the first path for the image, removed
// B alone and ended 0, saying nothing of A. An -i that names a path inside
// an image is refused before anything is opened.
func TestImageFlagIsNoPath(t *testing.T) {
	img, _ := verbsImage(t, "16")
	ok(t, "fcp", "-i", img, "::/A.TXT", "::/B.TXT")
	for _, c := range [][]string{
		{"frm", "-i", img + "::/A.TXT", img + "::/B.TXT"},
		{"fmv", "-i", img + "::/A.TXT", img + "::/C.TXT"},
		{"fls", "-i", img + "::/", img + "::/"},
		{"fcp", "-i", img + "::/A.TXT", img + "::/B.TXT", t.TempDir()},
	} {
		msg := fails(t, c[0], c[1:]...)
		if !strings.Contains(msg, "not a path inside one") {
			t.Errorf("%s: %q", strings.Join(c, " "), msg)
		}
	}
	out := ok(t, "fls", "-i", img, "::/")
	if !strings.Contains(out, "A.TXT") || !strings.Contains(out, "B.TXT") {
		t.Fatalf("a refused frm -i removed a file: %q", out)
	}
}

// fverify's summary counts problems with the right plural: a volume whose
// only fault is the dirty bit has "1 problem", not "1 problems".
func TestFverifySummaryPlural(t *testing.T) {
	img := filepath.Join(t.TempDir(), "d.img")
	ok(t, "fmkfs", "-F", "16", "--size", "16M", img)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, 37); err != nil { // FAT16: reserved byte, bit 0 is the dirty bit
		t.Fatal(err)
	}
	b[0] |= 1
	if _, err := f.WriteAt(b, 37); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r := run(t, "fverify", img)
	if !strings.Contains(r.stdout, ": 1 problem (dirty 1)") {
		t.Errorf("fverify on a volume with only the dirty bit set: want \"1 problem (dirty 1)\", got exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
