package tests

import (
	"encoding/json"
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
