package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tree of 100,000 folders and a folder of 20,000 long names, and a
// folder of 60,000 files, are copied in, listed, copied out and checked
// within the commands' bounds: maxRSS for fcp and fls, maxVerifyRSS for
// fverify. fcp -r used to plan the whole tree before writing (110-160 MiB
// for the folders, in and out), and fls --json to hold every entry until
// the end (140 MiB). On exFAT, copying the 100,000 folders in peaked at
// 86-96 MiB (the new folders' parents waiting in the directory cache for a
// commit; now 55), and listing the whole volume recursively at 68-83 MiB
// (the folder of 20,000 long names kept, as the one used last, while the
// 60,000 files were read; now 54-59): both are held to the bound.
//
// One folder of many names is kept whole in memory (its entries and a
// record per name), and fcp's plan of it besides. exFAT indexed the names
// by a copy of each, up-cased, and fcp listed a folder whole, copied
// twice, and kept each file's full plan item until the folder was done:
// copying the long names in took 75 MiB and out 64.5-70, the 60,000 files
// in 104-106 and out 90-111; FAT copied them out in 68-70. With a name
// index by hash (fsutil.NameIndex), listings read a page at a time and
// compact plan records, the long names go in in 50-51 MiB and FAT's
// 60,000 files in 50. Still near or over the bound: exFAT's long names out
// (61-64 MiB), its 60,000 files in (62-67) and out (70-74), FAT's out
// (64-68). A copy out read its small files through the read-ahead's five
// 4 MiB buffers, a copy in queued the folder's 6 MiB of entries into the
// commit's batch as a copy, and fcp kept 85 bytes a file until the folder
// was done. With two 2 MiB buffers for small files
// (readahead.Options.Bytes), the entries queued uncopied
// (Batch.WriteShared), a 24-byte stream extension in each exFAT record and
// 50 bytes a kept file: exFAT's long names out in 45-47 MiB, its 60,000
// files in 52-54 and out 51-53, FAT's out 47-50; every copy is held to
// the bound.
func TestManyFoldersAndNamesMemory(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	mustMkdir(t, tree)
	for p := 0; p < 100; p++ {
		pd := filepath.Join(tree, fmt.Sprintf("p%02d", p))
		mustMkdir(t, pd)
		for f := 0; f < 1000; f++ {
			if err := os.Mkdir(filepath.Join(pd, fmt.Sprintf("folder %04d", f)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	last := filepath.Join("p99", "folder 0999", "last.txt")
	if err := os.WriteFile(filepath.Join(tree, last), []byte("last\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := func(name string, n int, nameOf func(int) string) string {
		d := filepath.Join(dir, name)
		mustMkdir(t, d)
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(d, nameOf(i)), []byte{byte(i)}, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	// A FAT folder holds 65,536 slots: 20,000 names of 26 characters
	// (three slots each) nearly fill it. exFAT's names are 40 to 60
	// characters long.
	fatNames := files("names", 20000, func(i int) string { return fmt.Sprintf("a long file name %05d.txt", i) })
	exNames := files("long names", 20000, func(i int) string {
		return fmt.Sprintf("%05d %s.txt", i, strings.Repeat("a long name ", 5)[:30+i%21])
	})
	many := files("many", 60000, func(i int) string { return fmt.Sprintf("F%05d.TXT", i) })
	for _, g := range []struct {
		name string
		mkfs []string
		srcs []string
	}{
		// A FAT folder takes the 60,000 short names too: one slot each.
		{"FAT32", []string{"-F", "32", "--size", "1G"}, []string{tree, fatNames, many}},
		{"exFAT", []string{"--type", "exfat", "--size", "4G", "--cluster-size", "4K"}, []string{tree, exNames, many}},
	} {
		t.Run(g.name, func(t *testing.T) {
			img := filepath.Join(dir, g.name+".img")
			ok(t, "fmkfs", append(g.mkfs, img)...)
			defer os.Remove(img)
			out := filepath.Join(dir, "out-"+g.name)
			mustMkdir(t, out)
			defer os.RemoveAll(out)
			want := 1 + 100 + 100000 + 1 // tree, p00..p99, the folders, last.txt
			for _, src := range g.srcs {
				lean(t, "fcp", "-r", "-i", img, src, "::/")
				if src != tree {
					want += 1 + len(mustReadDir(t, src))
				}
			}
			if n := strings.Count(lean(t, "fls", "-R", "-i", img, "::/"), "\n"); n < want {
				t.Errorf("fls -R listed %d lines, want the %d entries at least", n, want)
			}
			var all struct{ Entries []struct{ Path string } }
			if err := json.Unmarshal([]byte(lean(t, "fls", "--json", "-R", "-i", img, "::/")), &all); err != nil || len(all.Entries) != want {
				t.Errorf("fls --json -R: %d entries, want %d (%v)", len(all.Entries), want, err)
			}
			for _, src := range g.srcs[1:] {
				base, n := filepath.Base(src), len(mustReadDir(t, src))
				if got := strings.Count(lean(t, "fls", "-l", "-i", img, "::/"+base), "\n"); got < n {
					t.Errorf("fls -l ::/%s listed %d lines, want the %d names", base, got, n)
				}
				var one struct{ Entries []struct{ Name string } }
				if err := json.Unmarshal([]byte(lean(t, "fls", "--json", "-i", img, "::/"+base)), &one); err != nil || len(one.Entries) != n {
					t.Errorf("fls --json ::/%s: %d entries, want %d (%v)", base, len(one.Entries), n, err)
				}
			}
			for _, src := range g.srcs {
				base := filepath.Base(src)
				lean(t, "fcp", "-r", "-i", img, "::/"+base, out)
				if got, n := len(mustReadDir(t, filepath.Join(out, base))), len(mustReadDir(t, src)); got != n {
					t.Errorf("fcp -r ::/%s: %d entries copied out, want %d", base, got, n)
				}
			}
			if b, err := os.ReadFile(filepath.Join(out, "tree", last)); err != nil || string(b) != "last\n" {
				t.Errorf("%s copied out: %q %v", last, b, err)
			}
			if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
				t.Errorf("fverify:\n%s", out)
			}
		})
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}
