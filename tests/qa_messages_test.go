package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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

// fverify's summary counts problems with the right plural (issue 13: plurals
// right): a volume whose only fault is the dirty bit has "1 problem", not
// "1 problems".
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
