package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// An image file that holds a partition table is a disk, as a card is:
// formatting it whole is refused without --force, in one line naming the
// table and its partitions and suggesting --partition N (the other writers
// take its only FAT partition and say so, as issue 13 asks); a new table
// over one whose partition holds a file system needs --force too (no
// terminal here to ask on). A table that holds no file system yet, as
// sfdisk leaves it, is replaced without --force, so that build pipelines
// keep working.
func TestFmkfsImageWithTableNeedsForce(t *testing.T) {
	need(t, "sfdisk", "fsck.fat")
	dir := t.TempDir()
	src := filepath.Join(dir, "x.txt")
	writeFile(t, src, 1000, 7)
	for _, table := range []string{"mbr", "gpt"} {
		t.Run(table, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			ok(t, "fmkfs", "--size", "64M", "--table", table, img)
			ok(t, "fcp", "-i", img, "--partition", "1", src, "::/X.TXT")
			before := imageSum(t, img)
			refusals := [][]string{
				{"fmkfs", img},
				{"fmkfs", "-F", "32", img},
			}
			for _, args := range refusals {
				msg := fails(t, args[0], args[1:]...)
				for _, want := range []string{strings.ToUpper(table) + " table", "partition 1", "--partition 1", "--force"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: refusal lacks %q: %q", strings.Join(args, " "), want, msg)
					}
				}
				if strings.Count(strings.TrimSpace(msg), "\n") != 0 {
					t.Errorf("%s: refusal is not one line: %q", strings.Join(args, " "), msg)
				}
			}
			for _, other := range []string{"mbr", "gpt"} {
				msg := fails(t, "fmkfs", "--table", other, img)
				for _, want := range []string{"partition 1", "FAT16", "--force"} {
					if !strings.Contains(msg, want) {
						t.Errorf("--table %s over a table with a file system: refusal lacks %q: %q", other, want, msg)
					}
				}
			}
			if imageSum(t, img) != before {
				t.Fatal("a refused command changed the image")
			}
			if got := ok(t, "fcat", "-i", img, "--partition", "1", "::/X.TXT"); len(got) != 1000 {
				t.Fatalf("X.TXT holds %d bytes after the refusals", len(got))
			}
			// A writer given the whole image takes its only FAT
			// partition and says so (issue 13), never the whole disk.
			if r := run(t, "fcp", "-i", img, src, "::/Y.TXT"); r.code != 0 || !strings.Contains(r.stderr, "partition 1") {
				t.Fatalf("fcp into the image's only partition: exit %d, %q", r.code, r.stderr)
			}
			if got := ok(t, "fcat", "-i", img, "--partition", "1", "::/Y.TXT"); len(got) != 1000 {
				t.Fatalf("Y.TXT holds %d bytes in partition 1", len(got))
			}
			ok(t, "fmkfs", "--force", "--table", "mbr", img)
			fsckClean(t, img, 1<<20)
		})
	}
	t.Run("empty-table", func(t *testing.T) {
		img := filepath.Join(t.TempDir(), "e.img")
		ok(t, "truncate", "-s", "64M", img)
		runIn(t, "label: dos\nstart=2048, type=c\n", "sfdisk", "-q", img)
		before := imageSum(t, img)
		if msg := fails(t, "fmkfs", img); !strings.Contains(msg, "--partition 1") {
			t.Fatalf("formatting a partitioned image whole: %q", msg)
		}
		if imageSum(t, img) != before {
			t.Fatal("the refused format changed the image")
		}
		ok(t, "fmkfs", "--table", "gpt", img)
		fsckClean(t, img, 1<<20)
	})
}
