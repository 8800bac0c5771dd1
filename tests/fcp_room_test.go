package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// When a directory or the volume fills partway through a copy, fcp names
// every file it did not copy, on stderr and in --json's "failed" with the
// reason (as mcopy reports each), copies what fits, and exits 1. Where the
// plan can see it coming (the fixed root's size, the free space) it names
// them before writing anything; where only the writing finds it (free
// slots scattered in a directory), each is named then.
func TestFcpNamesEveryFileNotCopied(t *testing.T) {
	need(t, "fsck.fat", "mdel")
	cases := []struct {
		name    string
		setup   func(t *testing.T, img, dir string) (srcs []string, dest string)
		planned bool   // found before anything is written
		reason  string // in every failure's reason
		fail    int    // files not copied; -1: some, not all
	}{
		{"full-root", func(t *testing.T, img, dir string) ([]string, string) {
			ok(t, "fmkfs", "--size", "8M", "-F", "12", img)
			var srcs []string
			for i := 1; i <= 520; i++ {
				srcs = append(srcs, filepath.Join(dir, fmt.Sprintf("F%d.TXT", i)))
				writeFile(t, srcs[len(srcs)-1], 0, 0)
			}
			return srcs, "::/"
		}, true, "the FAT12 root directory holds at most 512 entries", 8},
		{"full-volume", func(t *testing.T, img, dir string) ([]string, string) {
			ok(t, "fmkfs", "--size", "2M", "-F", "12", img)
			big := filepath.Join(dir, "big")
			writeFile(t, big, 1900000, 1)
			ok(t, "fcp", "-i", img, big, "::/")
			ok(t, "fmkdir", "-i", img, "::/d")
			var srcs []string
			for i := 1; i <= 111; i++ {
				srcs = append(srcs, filepath.Join(dir, fmt.Sprintf("f%03d", i)))
				writeFile(t, srcs[len(srcs)-1], 1000, byte(i))
			}
			return srcs, "::/d/"
		}, true, "no space left on volume", -1},
		{"scattered-slots", func(t *testing.T, img, dir string) ([]string, string) {
			// A full 512-entry root with every other entry deleted: 256
			// free slots, none two in a row, so no long name fits,
			// although the count says it would.
			ok(t, "fmkfs", "--size", "16M", "-F", "16", "--root-entries", "512", img)
			var fill, del []string
			for i := 0; i < 512; i++ {
				fill = append(fill, filepath.Join(dir, fmt.Sprintf("X%03d", i)))
				writeFile(t, fill[i], 0, 0)
				if i%2 == 0 {
					del = append(del, fmt.Sprintf("::/X%03d", i))
				}
			}
			ok(t, "fcp", append(append([]string{"-i", img}, fill...), "::/")...)
			ok(t, "mdel", append([]string{"-i", img}, del...)...)
			// A short name fits in one slot, and is copied first.
			srcs := []string{filepath.Join(dir, "A.TXT")}
			writeFile(t, srcs[0], 100, 1)
			for i := 0; i < 20; i++ {
				srcs = append(srcs, filepath.Join(dir, fmt.Sprintf("a long name that takes three slots %02d.txt", i)))
				writeFile(t, srcs[len(srcs)-1], 100, byte(i))
			}
			return srcs, "::/"
		}, false, "the FAT16 root directory holds at most 512 entries", 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "v.img")
			srcDir := filepath.Join(dir, "src")
			mustMkdir(t, srcDir)
			srcs, dest := tc.setup(t, img, srcDir)
			rep, r := fcpJSON(t, append(append([]string{"-v", "-i", img}, srcs...), dest)...)
			if r.code != 1 || rep.ExitStatus != 1 {
				t.Fatalf("exit %d (JSON %d), want 1\nstderr:\n%s", r.code, rep.ExitStatus, r.stderr)
			}
			if tc.fail >= 0 && len(rep.Failed) != tc.fail {
				t.Fatalf("--json lists %d failed, want %d: %+v", len(rep.Failed), tc.fail, rep.Failed)
			}
			if len(rep.Failed) == 0 || rep.Files+len(rep.Failed) != len(srcs) {
				t.Fatalf("%d copied and %d failed of %d sources\nstderr:\n%s", rep.Files, len(rep.Failed), len(srcs), r.stderr)
			}
			lines := strings.Split(r.stderr, "\n")
			firstCopy := len(lines)
			for i, l := range lines {
				if strings.Contains(l, "' -> '") {
					firstCopy = i
					break
				}
			}
			for _, f := range rep.Failed {
				if !strings.Contains(f.Reason, tc.reason) {
					t.Errorf("%s: reason %q does not say %q", f.Path, f.Reason, tc.reason)
				}
				at := -1
				for i, l := range lines {
					if strings.Contains(l, "cannot copy '"+f.Path+"'") && strings.Contains(l, tc.reason) {
						at = i
						break
					}
				}
				switch {
				case at < 0:
					t.Errorf("stderr does not name %s with its reason", f.Path)
				case tc.planned && at > firstCopy:
					t.Errorf("%s is named after copying began (line %d, first copy on line %d): the plan did not see it", f.Path, at, firstCopy)
				case !tc.planned && at < firstCopy:
					t.Errorf("%s is named before copying began: the plan refused what the count says fits", f.Path)
				}
			}
			fsckClean(t, img, 0)
			names := ok(t, "fls", "-i", img, dest)
			for _, f := range rep.Failed {
				if base := filepath.Base(f.Path); strings.Contains(names, base) {
					t.Errorf("%s is on the volume although named as not copied", base)
				}
			}
			if got := len(strings.Fields(strings.ReplaceAll(names, "\n", " "))); tc.name == "full-root" && got != 512 {
				t.Errorf("the root holds %d names, want the 512 that fit", got)
			}
		})
	}
}

// A folder that finds no room is named, and so is every file planned inside
// it: none is left out in silence.
func TestFcpNamesFilesInFolderNotMade(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "v.img")
	ok(t, "fmkfs", "--size", "2M", "-F", "12", img)
	big := filepath.Join(dir, "big")
	// 1014 clusters of 2 KiB: leave two free, for "tree" and "tree/a".
	writeFile(t, big, 1012*2048, 1)
	ok(t, "fcp", "-i", img, big, "::/")
	tree := filepath.Join(dir, "tree")
	mustMkdir(t, filepath.Join(tree, "a", "b"), filepath.Join(tree, "c"))
	for _, f := range []string{"a/x", "a/b/y", "c/z"} {
		writeFile(t, filepath.Join(tree, f), 10, 2)
	}
	rep, r := fcpJSON(t, "-r", "-i", img, tree, "::/")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	failed := map[string]string{}
	for _, f := range rep.Failed {
		failed[strings.TrimPrefix(f.Path, dir+"/")] = f.Reason
	}
	for _, p := range []string{"tree/a/b", "tree/a/b/y", "tree/a/x", "tree/c", "tree/c/z"} {
		if _, ok := failed[p]; !ok {
			t.Errorf("--json does not list %s as failed: %+v", p, rep.Failed)
		}
		if !strings.Contains(r.stderr, "cannot copy '"+filepath.Join(dir, p)+"'") && !strings.Contains(r.stderr, "cannot create directory '::/"+p+"'") {
			t.Errorf("stderr does not name %s:\n%s", p, r.stderr)
		}
	}
	if why := failed["tree/c/z"]; !strings.Contains(why, "'::/tree/c' was not created") {
		t.Errorf("tree/c/z's reason: %q", why)
	}
	fsckClean(t, img, 0)
}
