package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fverify -l --json prints each path as it is checked, as -l without
// --json does, rather than holding them all for the object at the end: on
// a volume of 40,000 files whose paths are some 430 bytes long (17 MiB of
// paths), its peak memory stays within a few MiB of fverify's without -l,
// on FAT and exFAT, and the object is still whole: "checked" lists every
// path, the rest as before.
func TestFverifyListJSONStreams(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const folders, per = 20, 2000
	long := strings.Repeat("a long folder name ", 11)
	for d := 0; d < folders; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("%s%02d", long, d))
		mustMkdir(t, sub)
		for f := 0; f < per; f++ {
			name := fmt.Sprintf("%s%05d.txt", strings.Repeat("a long file name ", 12), f)
			if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, fsType := range []string{"fat", "exfat"} {
		t.Run(fsType, func(t *testing.T) {
			img := filepath.Join(dir, fsType+".img")
			ok(t, "fmkfs", "--type", fsType, "--size", "256M", img)
			defer os.Remove(img)
			ok(t, "fcp", "-r", "-i", img, tree, "::/")
			_, plain := peakRSS(t, "fverify", img)
			r, listed := peakRSS(t, "fverify", "-l", "--json", img)
			t.Logf("fverify %.1f MiB, fverify -l --json %.1f MiB", float64(plain)/(1<<20), float64(listed)/(1<<20))
			if r.code != 0 {
				t.Fatalf("fverify -l --json: exit %d\n%s", r.code, r.stderr)
			}
			var out struct {
				Checked []string `json:"checked"`
				Summary struct {
					Clean bool `json:"clean"`
					Files int  `json:"files"`
				} `json:"summary"`
				ExitStatus *int `json:"exit_status"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("fverify -l --json: %v\n%s", err, tailOf(r.stdout))
			}
			// Each file and folder, /tree, and (FAT) the root.
			if n := len(out.Checked); n < folders*per+folders+1 || n > folders*per+folders+2 || !out.Summary.Clean || out.Summary.Files != folders*per || out.ExitStatus == nil {
				t.Errorf("fverify -l --json: %d paths checked, summary %+v, exit_status %v", n, out.Summary, out.ExitStatus)
			}
			last := fmt.Sprintf("/tree/%s%02d/%s%05d.txt", long, folders-1, strings.Repeat("a long file name ", 12), per-1)
			if !slices.Contains(out.Checked, last) {
				t.Errorf("fverify -l --json: %q not among the paths checked", last)
			}
			if listed > plain+4<<20 {
				t.Errorf("fverify -l --json: peak RSS %.1f MiB, %.1f MiB more than without -l: the paths are held, not streamed",
					float64(listed)/(1<<20), float64(listed-plain)/(1<<20))
			}
		})
	}
}
