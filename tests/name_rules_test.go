package tests

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// One rule for names in every command that stores one, on FAT and exFAT
// alike: trailing dots and spaces are dropped with a note (as fcp, mcopy
// and Windows do), DOS device names and characters the file system cannot
// hold are refused with the reason, and a refusal changes nothing.
func TestNameRules(t *testing.T) {
	need(t, "fsck.fat", "fsck.exfat")
	src := filepath.Join(t.TempDir(), "src.txt")
	writeFile(t, src, 10, 1)
	for _, fsys := range []struct {
		name string
		mk   func(t *testing.T) string
	}{
		{"FAT", func(t *testing.T) string { return newImage(t, "--size", "16M") }},
		{"exFAT", func(t *testing.T) string { return newExFAT(t, "16M") }},
	} {
		t.Run(fsys.name, func(t *testing.T) {
			img := fsys.mk(t)
			ok(t, "fcp", "-i", img, src, "::/z")
			ok(t, "fcp", "-i", img, src, "::/z2")
			ok(t, "fmkdir", "-i", img, "::/d")
			// The four commands, and fcp, each given a name with
			// trailing dots or spaces: stored without them, said as such.
			for _, tc := range []struct {
				cmd    []string
				stored string
			}{
				{[]string{"fmkdir", "::/x."}, "::/x"},
				{[]string{"fmkdir", "::/y "}, "::/y"},
				{[]string{"fmkdir", "-p", "::/p. /q."}, "::/p/q"},
				{[]string{"fmv", "::/z", "::/q."}, "::/q"},
				{[]string{"ffallocate", "-l", "10", "::/fa."}, "::/fa"},
				{[]string{"fcp", src, "::/cp. "}, "::/cp"},
			} {
				r := run(t, tc.cmd[0], append([]string{"-i", img}, tc.cmd[1:]...)...)
				if r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", tc.cmd, r.code, r.stderr)
				}
				if !strings.Contains(r.stderr, tc.cmd[0]+": ") || !strings.Contains(r.stderr, "'"+tc.stored+"'") ||
					!strings.Contains(r.stderr, "dot or a space") {
					t.Errorf("%s: no note that the name is stored as %s:\n%s", tc.cmd, tc.stored, r.stderr)
				}
			}
			want := []string{"cp", "d", "fa", "p", "q", "x", "y", "z2"}
			if diff := cmp.Diff(want, lsNames(t, img, "::/")); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"q"}, lsNames(t, img, "::/p")); diff != "" {
				t.Errorf("::/p (-want +got):\n%s", diff)
			}
			// Refused with the reason, image untouched: a device name
			// (with an extension too) and a character neither holds.
			before, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				cmd []string
				why string
			}{
				{[]string{"fmkdir", "::/CON"}, "DOS device name"},
				{[]string{"fmkdir", "::/a*b"}, `holds '*'`},
				{[]string{"fmkdir", "-p", "::/d/aux.txt/e"}, "DOS device name"},
				{[]string{"fmv", "::/z2", "::/con.txt"}, "DOS device name"},
				{[]string{"fmv", "::/z2", "::/a*b"}, `holds '*'`},
				{[]string{"ffallocate", "-l", "10", "::/NUL"}, "DOS device name"},
				{[]string{"ffallocate", "-l", "10", "::/a<b"}, `holds '<'`},
				{[]string{"fcp", src, "::/lpt1"}, "DOS device name"},
				{[]string{"fcp", src, "::/a*b"}, `holds '*'`},
			} {
				r := run(t, tc.cmd[0], append([]string{"-i", img}, tc.cmd[1:]...)...)
				if r.code == 0 || !strings.Contains(r.stderr, tc.why) {
					t.Errorf("%s: exit %d, want a refusal saying %q:\n%s", tc.cmd, r.code, tc.why, r.stderr)
				}
				if after, _ := os.ReadFile(img); string(after) != string(before) {
					t.Fatalf("%s: the refusal changed the image", tc.cmd)
				}
			}
			if fsys.name == "FAT" {
				fsckClean(t, img, 0)
			} else {
				fsckExFAT(t, img, 0)
			}
		})
	}
}

// lsNames lists a volume directory's names with fls --json.
func lsNames(t *testing.T, img, dir string) []string {
	t.Helper()
	var ls flsJSON
	jsonOut(t, &ls, "fls", "--json", "-a", "-i", img, dir)
	var out []string
	for _, e := range ls.Entries {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}
