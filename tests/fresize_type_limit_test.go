package tests

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A size whose cluster count the FAT type cannot have is refused, the
// image kept, with the limit named and the two commands that work: a
// fresize to the nearest size the layout holds (with --force --undo when
// that moves the data area) and the fmkfs line that makes a file system of
// the size asked for with a cluster size or type that fits. Both are run
// as the message words them, and fsck.fat finds each result clean.
func TestFresizeTypeLimitAdvice(t *testing.T) {
	need(t, "fsck.fat")
	nearest := regexp.MustCompile(`holds: (fresize .*? \d+)\. `)
	remake := regexp.MustCompile(`with: (fmkfs .*)$`)
	for _, tc := range []struct {
		name, fat, size, asked, limit string
	}{
		{"FAT16 shrunk below 4085 clusters", "16", "32M", "7M", "FAT16 counts at least 4085"},
		{"FAT16 grown past 65524 clusters", "16", "100M", "3G", "FAT16 counts at most 65524"},
		{"FAT12 grown past 4084 clusters", "12", "4M", "40M", "FAT12 counts at most 4084"},
		{"FAT32 shrunk below 65525 clusters", "32", "600M", "100M", "fewer than FAT32's 65525"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "a.img")
			ok(t, "fmkfs", "--fat", tc.fat, "--size", tc.size, img)
			ok(t, "fcp", "-r", "-i", img, hostFiles(t, dir, "f", 3, 5000, 70000), "::/f")
			same := imageKept(t, img)
			msg := strings.TrimSpace(fails(t, "fresize", img, tc.asked))
			same("the refusal")
			if !strings.Contains(msg, tc.limit) {
				t.Errorf("the refusal does not name the limit (%s): %s", tc.limit, msg)
			}
			m, r := nearest.FindStringSubmatch(msg), remake.FindStringSubmatch(msg)
			if m == nil || r == nil {
				t.Fatalf("the refusal does not give both commands: %s", msg)
			}
			args := strings.Fields(strings.Replace(m[1], "FILE", filepath.Join(dir, "undo"), 1))
			ok(t, args[0], args[1:]...)
			fsckClean(t, img, 0)
			args = strings.Fields(strings.Replace(r[1], img, filepath.Join(dir, "new.img"), 1))
			ok(t, args[0], args[1:]...)
			fsckClean(t, filepath.Join(dir, "new.img"), 0)
		})
	}
}
