package tests

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A directory that fmkfs --from or fcp -r makes for a folder is made
// whole, ahead of its files' data: one run of clusters, however many
// names it takes (here ~30 KiB of long names in 4 KiB clusters, which a
// directory grown as it fills gets in several pieces between the files).
func TestTreeCopyDirsOneRun(t *testing.T) {
	need(t, "fsck.fat", "fsck.exfat")
	src := filepath.Join(t.TempDir(), "tree")
	for d := range 3 {
		folder := filepath.Join(src, fmt.Sprintf("folder %d", d))
		mustMkdir(t, filepath.Join(folder, "sub"))
		for f := range 300 {
			writeFile(t, filepath.Join(folder, fmt.Sprintf("a file with a long name %03d.dat", f)), 100+f, byte(f))
		}
		writeFile(t, filepath.Join(folder, "sub", "x.bin"), 5000, 1)
	}
	for _, c := range []struct {
		name  string
		args  []string
		exfat bool
	}{
		{name: "fat32", args: []string{"--fat", "32", "--cluster-size", "4096"}},
		{name: "exfat", args: []string{"--type", "exfat", "--cluster-size", "4096"}, exfat: true},
	} {
		check := func(t *testing.T, img string) {
			t.Helper()
			if c.exfat {
				fsckExFAT(t, img, 0)
			} else {
				fsckClean(t, img, 0)
			}
			var ls flsJSON
			jsonOut(t, &ls, "fls", "--json", "-R", img)
			dirs := 0
			for _, e := range ls.Entries {
				if e.Dir {
					dirs++
					if e.Runs != 1 {
						t.Errorf("%s: directory in %d runs, want 1", e.Path, e.Runs)
					}
				}
			}
			if dirs != 6 {
				t.Errorf("fls listed %d directories, want 6", dirs)
			}
		}
		t.Run(c.name+"/fmkfs-from", func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "disk.img")
			ok(t, "fmkfs", append(append([]string{}, c.args...), "--from", src, img)...)
			check(t, img)
		})
		t.Run(c.name+"/fcp-r", func(t *testing.T) {
			img := newImage(t, append([]string{"--size", "300M"}, c.args...)...)
			ok(t, "fcp", "-r", "-i", img, src+"/.", "::/")
			check(t, img)
		})
	}
}
