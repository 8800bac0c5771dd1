package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// -v is verbose (or refused with a sentence) in every command, never the
// version: a script carried over from mtools or dosfstools does the work
// or fails, never exits 0 having done nothing.
func TestVerboseNeverVersion(t *testing.T) {
	img, _ := verbsImage(t, "16")
	src := filepath.Join(t.TempDir(), "new.txt")
	writeFile(t, src, 100, 1)
	cases := []struct {
		args           []string
		ok             bool
		stderr, stdout string
	}{
		{[]string{"frm", "-v", "-i", img, "::/A.TXT"}, true, "removed '::/A.TXT'", ""},
		{[]string{"fmkdir", "-v", "-i", img, "::/NEW"}, true, "created directory '::/NEW'", ""},
		{[]string{"frmdir", "-v", "-i", img, "::/NEW"}, true, "removed directory '::/NEW'", ""},
		{[]string{"fmv", "-v", "-i", img, "::/DIR/B.BIN", "::/B2.BIN"}, true, "renamed '::/DIR/B.BIN' -> '::/B2.BIN'", ""},
		{[]string{"fattrib", "-v", "+r", "-i", img, "::/B2.BIN"}, true, "changed the attributes of '::/B2.BIN'", ""},
		{[]string{"flabel", "-v", img, "VERB"}, true, `label (none) -> "VERB"`, ""},
		{[]string{"ffallocate", "-v", "-l", "10K", "-i", img, "::/PRE.BIN"}, true, "", "  clusters "},
		{[]string{"fsinfo", "-v", img}, true, "", "000001f0  "},
		{[]string{"fcp", "-v", "-i", img, src, "::/"}, true, "-> '::/new.txt'", ""},
		{[]string{"fls", "-v", "-i", img}, false, "fls: -v: fls has no verbose mode", ""},
		{[]string{"fcat", "-v", "-i", img, "::/B2.BIN"}, false, "fcat: -v: fcat writes the files' bytes as they are", ""},
	}
	for _, tc := range cases {
		r := run(t, tc.args[0], tc.args[1:]...)
		if (r.code == 0) != tc.ok || !strings.Contains(r.stderr, tc.stderr) || !strings.Contains(r.stdout, tc.stdout) {
			t.Errorf("%s: exit %d\nstdout: %q\nstderr: %q", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, tc.args[0]+" version") {
			t.Errorf("%s printed the version", strings.Join(tc.args, " "))
		}
	}
	fsckClean(t, img, 0)
	// fverify's -v is its own helper's (fsck.fat -v); it is never the
	// version, and --version stays long only everywhere.
	for _, cmd := range commands {
		r := run(t, cmd, "-v", img)
		if strings.Contains(r.stdout, cmd+" version") {
			t.Errorf("%s -v printed the version: %q", cmd, r.stdout)
		}
		if out := ok(t, cmd, "--version"); !strings.HasPrefix(out, cmd+" version ") || strings.TrimSpace(out) == cmd+" version (devel)" {
			t.Errorf("%s --version: %q", cmd, out)
		}
	}
}

// --version names the commit and its date when built from a checkout (the
// Makefile stamps it where Go cannot, as in a git worktree).
func TestVersionNamesTheCommit(t *testing.T) {
	need(t, "make", "git")
	root := repoRoot(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("make", "-C", root, "build", "BUILDDIR="+dir).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "fls"), "--version").Output()
	want := regexp.MustCompile(`^fls version \S+ \(commit ` + string(head[:12]) + ` of \d{4}-\d\d-\d\dT`)
	if err != nil || !want.Match(out) {
		t.Errorf("fls --version from make: %q, %v; want %s", out, err, want)
	}
}

// fls as mdir: -b lists full paths as mdir -b does, -w names across the
// page, -/ is recursive, -l and -w end with mdir's totals and free space.
func TestFlsAsMdir(t *testing.T) {
	img, _ := verbsImage(t, "16")
	for _, dir := range []string{"::/", "::/DIR"} {
		got := ok(t, "fls", "-b", "-a", "-i", img, dir)
		want := ok(t, "mdir", "-b", "-a", "-i", img, dir)
		if got != want {
			t.Errorf("fls -b -a %s:\n%s\nmdir -b -a:\n%s", dir, got, want)
		}
	}
	if got, want := ok(t, "fls", "-b", "-/", "-a", "-i", img), ok(t, "mdir", "-b", "-/", "-a", "-i", img, "::/"); got != want {
		t.Errorf("fls -b -/ -a:\n%s\nmdir -b -/ -a:\n%s", got, want)
	}
	// The totals and free-space lines carry mdir's numbers.
	numbers := regexp.MustCompile(`(?m)^ +([\d ]+) (files?) +([\d ]+) bytes$|^ +([\d ]+) bytes free$`)
	pick := func(out string) []string {
		var s []string
		for _, m := range numbers.FindAllStringSubmatch(out, -1) {
			s = append(s, strings.Join(strings.Fields(strings.Join(m[1:], " ")), ""))
		}
		return s
	}
	// (In the root: mdir also counts the "." and ".." it lists in other
	// directories, which fls leaves out.)
	for _, args := range [][]string{{"-l"}, {"-w"}, {"-l", "-a"}, {"-l", "::/A.TXT"}} {
		mdirArgs := []string{"-i", img}
		if len(args) > 1 && args[1] == "-a" {
			mdirArgs = append(mdirArgs, "-a")
		}
		if len(args) > 1 && strings.HasPrefix(args[1], "::") {
			mdirArgs = append(mdirArgs, args[1])
			args = args[:1]
		} else {
			mdirArgs = append(mdirArgs, "::/")
		}
		got := ok(t, "fls", append(args, mdirArgs...)...)
		want := ok(t, "mdir", mdirArgs...)
		if g, w := pick(got), pick(want); strings.Join(g, "|") != strings.Join(w, "|") || len(g) != 2 {
			t.Errorf("fls %s totals %q, mdir %q\n%s", strings.Join(args, " "), g, w, got)
		}
	}
	wide := ok(t, "fls", "-w", "-a", "-i", img)
	if !strings.Contains(wide, "[DIR]") || !regexp.MustCompile(`A\.TXT +`).MatchString(wide) {
		t.Errorf("fls -w:\n%s", wide)
	}
	rec := ok(t, "fls", "-/", "-i", img)
	if !strings.Contains(rec, "::/DIR/SUB:\nC.TXT\n") {
		t.Errorf("fls -/:\n%s", rec)
	}
}

// fattrib as mattrib: -/ lists a tree as mattrib -/ does, -X as mattrib -X,
// and -p prints commands that, run on a fresh copy of the files, give them
// the attributes they have.
func TestFattribAsMattrib(t *testing.T) {
	need(t, "sh", "mattrib")
	img, _ := verbsImage(t, "16")
	fresh := filepath.Join(t.TempDir(), "fresh.img")
	data, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fresh, data, 0o644)
	ok(t, "mattrib", "-i", img, "-a", "+s", "::/DIR/B.BIN")
	ok(t, "mattrib", "-i", img, "+a", "+h", "::/DIR/SUB")
	for _, args := range [][]string{{"-/"}, {"-X"}} {
		got := ok(t, "fattrib", append(args, "-i", img, "::/")...)
		want := ok(t, "mattrib", append(args, "-i", img, "::/")...)
		if got != want {
			t.Errorf("fattrib %s ::/:\n%s\nmattrib:\n%s", args[0], got, want)
		}
	}
	// (mattrib's * also matches "." and "..", which fattrib leaves out.)
	if got, want := ok(t, "fattrib", "-X", "-i", img, "::/DIR/[BS]*"), ok(t, "mattrib", "-X", "-i", img, "::/DIR/[BS]*"); strings.Join(sorted(lines(got)), "|") != strings.Join(sorted(lines(want)), "|") {
		t.Errorf("fattrib -X ::/DIR/[BS]*:\n%s\nmattrib:\n%s", got, want)
	}
	replay := ok(t, "fattrib", "-p", "-/", "-i", img, "::/")
	if !strings.Contains(replay, "fattrib +s -a '"+img+"::/DIR/B.BIN'") {
		t.Errorf("fattrib -p -/:\n%s", replay)
	}
	script := strings.ReplaceAll(replay, "'"+img+"::", "'"+fresh+"::")
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("running fattrib -p's commands: %v\n%s\n%s", err, script, out)
	}
	// Read-only is left to tar, as mattrib -p leaves it.
	strip := func(s string) string { return strings.ReplaceAll(s, "R", " ") }
	if got, want := ok(t, "mattrib", "-/", "-i", fresh, "::/"), ok(t, "mattrib", "-/", "-i", img, "::/"); strip(got) != strip(want) {
		t.Errorf("after replaying fattrib -p:\n%s\nwant:\n%s", got, want)
	}
	// -/ with a change changes the whole tree.
	ok(t, "fattrib", "+r", "-/", "-i", img, "::/DIR")
	if out := ok(t, "mattrib", "-/", "-i", img, "::/DIR"); strings.Count(out, "R ") != 4 {
		t.Errorf("fattrib +r -/ ::/DIR:\n%s", out)
	}
	fsckClean(t, img, 0)
}

// flabel as mlabel: -s shows, -c clears, -N sets the serial number, -n
// picks a new one; an unlabelled volume says so.
func TestFlabelAsMlabel(t *testing.T) {
	need(t, "minfo", "mlabel")
	for _, bits := range []string{"12", "32"} {
		img, _ := verbsImage(t, bits)
		if out := ok(t, "flabel", "-s", img); out != img+" has no label\n" {
			t.Errorf("FAT%s: flabel -s of an unlabelled volume: %q", bits, out)
		}
		ok(t, "flabel", "-N", "1234ABCD", img, "SERIAL")
		fsckClean(t, img, 0)
		if out := ok(t, "minfo", "-i", img, "::"); !strings.Contains(out, "serial number: 1234ABCD") {
			t.Errorf("FAT%s: minfo after flabel -N:\n%s", bits, out)
		}
		if out := ok(t, "mlabel", "-s", "-i", img, "::"); !strings.Contains(out, "Volume label is SERIAL") {
			t.Errorf("FAT%s: mlabel -s: %q", bits, out)
		}
		ok(t, "flabel", "-n", img)
		fsckClean(t, img, 0) // on FAT32 the backup boot sector got the new serial too
		var js struct {
			VolumeID string `json:"volume_id"`
		}
		jsonOut(t, &js, "flabel", "--json", "-s", img)
		if js.VolumeID == "1234-ABCD" || len(js.VolumeID) != 9 {
			t.Errorf("FAT%s: serial after flabel -n: %q", bits, js.VolumeID)
		}
		if msg := fails(t, "flabel", "-n", "-N", "1", img); !strings.Contains(msg, "not both") {
			t.Errorf("-n with -N: %q", msg)
		}
		ok(t, "flabel", "-c", img)
		if out := ok(t, "flabel", img); out != img+" has no label\n" {
			t.Errorf("FAT%s: after -c: %q", bits, out)
		}
	}
}

// Every verb takes wildcards on volume paths, with fcp's rules: a name
// that exists as written wins, "\[" is a literal bracket, no match is an
// error.
func TestWildcardsInEveryVerb(t *testing.T) {
	need(t, "mcopy", "mdir")
	img, data := verbsImage(t, "32")
	src := filepath.Join(t.TempDir(), "s")
	writeFile(t, src, 10, 2)
	for _, n := range []string{"::/[1].txt", "::/1.txt", "::/x1.dtbo", "::/x2.dtbo", "::/e1", "::/e2"} {
		if strings.HasPrefix(n, "::/e") {
			ok(t, "fmkdir", "-i", img, n)
			continue
		}
		ok(t, "mcopy", "-i", img, src, n)
	}
	names := func() string { return strings.Join(sorted(mdirNames(t, img, "::/")), "|") }

	if got := ok(t, "fcat", "-i", img, "::/dir/sub/*.t?t"); got != string(data) {
		t.Errorf("fcat with a wildcard: %d bytes", len(got))
	}
	if got := lines(ok(t, "fls", "-i", img, "::/*.dtbo")); strings.Join(got, "|") != "::/x1.dtbo|::/x2.dtbo" && strings.Join(got, "|") != "x1.dtbo|x2.dtbo" {
		t.Errorf("fls ::/*.dtbo: %q", got)
	}
	ok(t, "fattrib", "+h", "-i", img, "::/x?.DTBO")
	if out := ok(t, "mattrib", "-i", img, "::/x1.dtbo"); !strings.Contains(out, "H") {
		t.Errorf("fattrib +h ::/x?.DTBO: %q", out)
	}
	// A hidden entry a wildcard matches is listed only with -a, as mdir.
	if out := ok(t, "fls", "-i", img, "::/x*"); out != "" {
		t.Errorf("fls ::/x* lists hidden files: %q", out)
	}
	// The literal name wins: [1].txt exists, so frm removes it, not 1.txt.
	ok(t, "frm", "-i", img, "::/[1].txt")
	if n := names(); strings.Contains(n, "[1].txt") || !strings.Contains(n, "1.txt") {
		t.Errorf("after frm ::/[1].txt: %s", n)
	}
	ok(t, "mcopy", "-i", img, src, "::/[1].txt")
	ok(t, "frm", "-i", img, `::/\[1].txt`)
	if n := names(); strings.Contains(n, "[1].txt") || !strings.Contains(n, "1.txt") {
		t.Errorf("after frm ::/\\[1].txt: %s", n)
	}
	ok(t, "fmv", "-i", img, "::/x*.dtbo", "::/DIR")
	if got := strings.Join(sorted(mdirNames(t, img, "::/DIR")), "|"); got != "B.BIN|SUB|x1.dtbo|x2.dtbo" {
		t.Errorf("after fmv ::/x*.dtbo ::/DIR: %s", got)
	}
	ok(t, "frmdir", "-i", img, "::/e?")
	ok(t, "frm", "-r", "-i", img, "::/D[I]R")
	if n := names(); n != "1.txt|A.TXT|HIDDEN.SYS|Long file name.txt" {
		t.Errorf("after frmdir ::/e? and frm -r ::/D[I]R: %s", n)
	}
	// ffallocate takes a wildcard that names one file.
	ok(t, "ffallocate", "-l", "64K", "-i", img, "::/A.T?T")
	if msg := fails(t, "ffallocate", "-l", "64K", "-i", img, "::/*.TXT"); !strings.Contains(msg, "matches 3 files") {
		t.Errorf("ffallocate ::/*.TXT: %q", msg)
	}
	if msg := fails(t, "frm", "-i", img, "::/nothing*"); !strings.Contains(msg, "no match for '::/nothing*'") {
		t.Errorf("frm of a pattern that matches nothing: %q", msg)
	}
	fsckClean(t, img, 0)
}

// A disk with a table and one FAT partition needs no --partition: every
// command uses it and says so once; several FAT partitions make the
// commands list them and ask for --partition N; --partition 0 is refused
// with the numbering rule.
func TestPartitionAutoChoice(t *testing.T) {
	need(t, "sfdisk")
	dir := t.TempDir()
	one := filepath.Join(dir, "card.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", "--part-size", "40M", "--label", "CARD", one)
	// A Linux partition next to the FAT one changes nothing.
	sfdisk(t, one, ",,83\n", "--append", "--no-reread")
	src := filepath.Join(dir, "note.txt")
	writeFile(t, src, 1000, 3)
	said := "using partition 1, the only FAT partition of its table"
	for _, args := range [][]string{
		{"fcp", "-i", one, src, "::/note.txt"},
		{"fls", "-i", one},
		{"fcat", one + "::/note.txt"},
		{"fsinfo", one},
		{"fverify", one},
		{"flabel", one},
		{"fattrib", "+r", "-i", one, "::/note.txt"},
		{"ffallocate", "-l", "4K", "-i", one, "::/pre"},
		{"fmkdir", "-i", one, "::/d"},
		{"fmv", "-i", one, "::/pre", "::/d"},
		{"frmdir", "-i", one, "::/e"},
	} {
		r := run(t, args[0], args[1:]...)
		if strings.Count(r.stderr, said) != 1 {
			t.Errorf("%s: stderr %q (exit %d)", strings.Join(args, " "), r.stderr, r.code)
		}
		if r.code != 0 && args[0] != "frmdir" {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if out := ok(t, "fls", "-i", one); !strings.Contains(out, "note.txt") || !strings.Contains(out, "d") {
		t.Errorf("fls of the card: %q", out)
	}
	fsckClean(t, one, 1<<20)
	if msg := fails(t, "fls", "--partition", "0", "-i", one); !strings.Contains(msg, "--partition 0: partitions are numbered from 1") {
		t.Errorf("--partition 0: %q", msg)
	}
	two := filepath.Join(dir, "two.img")
	ok(t, "truncate", "-s", "64M", two)
	sfdisk(t, two, "label: dos\n,20M,c\n,,c\n")
	ok(t, "fmkfs", "--partition", "1", two)
	ok(t, "fmkfs", "--partition", "2", two)
	msg := fails(t, "fsinfo", two)
	if !strings.Contains(msg, "2 FAT partitions, 1 (FAT16, 20.0 MiB) and 2 (FAT16, 43.0 MiB): give --partition N") || strings.Count(msg, "\n") != 1 {
		t.Errorf("two FAT partitions: %q", msg)
	}
	ok(t, "fsinfo", "--partition", "2", two)
}

// The README names the Go version go.mod asks for, and the demo says what
// it builds, with which Go, before the first (slow) build.
func TestGoVersionAndDemoBuildLine(t *testing.T) {
	root := repoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if m == nil || !strings.Contains(string(readme), "needs Go "+string(m[1])+" or newer") {
		t.Errorf("the README does not say that ftools needs Go %s", m[1])
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "demo"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/demo: %v\n%s", err, out)
	}
	first := lines(string(out))[0]
	if !regexp.MustCompile(`^demo: building the ftools commands into bin/ with go\d`).MatchString(first) {
		t.Errorf("the demo's first line: %q", first)
	}
	if !strings.Contains(string(out), "clean") {
		t.Errorf("the demo did not verify its copy:\n%s", out)
	}
}

// mkfs.exfat's -c (cluster size) and -L (label), typed to fmkfs --type
// exfat, are refused naming fmkfs's flags for them: -c said only that bad
// blocks are not tested, and -L was an unknown flag.
func TestFmkfsExfatHabits(t *testing.T) {
	img := filepath.Join(t.TempDir(), "x.img")
	if msg := fails(t, "fmkfs", "--type", "exfat", "--size", "64M", "-c", "128K", img); !strings.Contains(msg, "--cluster-size") {
		t.Errorf("fmkfs --type exfat -c 128K: %q", msg)
	}
	if msg := fails(t, "fmkfs", "--type", "exfat", "--size", "64M", "-L", "DATA", img); !strings.Contains(msg, "-n LABEL") {
		t.Errorf("fmkfs --type exfat -L DATA: %q", msg)
	}
	if _, err := os.Stat(img); err == nil {
		t.Error("a refused fmkfs left an image behind")
	}
}
