package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fromStatsJSON is what fmkfs --from --json --stats reports of the
// writes.
type fromStatsJSON struct {
	fromJSON
	Stats *struct {
		WriteRequests int64 `json:"write_requests"`
		WriteBytes    int64 `json:"write_bytes"`
	} `json:"stats"`
}

// makeFolders makes folders folders (every fourth with a folder inside)
// of files files each, of 1 to 6,000 bytes, under root.
func makeFolders(t *testing.T, root string, folders, files int) {
	t.Helper()
	r := rand.New(rand.NewSource(1))
	stamp := time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC) // FAT keeps even seconds
	for f := range folders {
		dir := filepath.Join(root, fmt.Sprintf("folder number %03d", f))
		if f%4 == 3 {
			dir = filepath.Join(root, fmt.Sprintf("folder number %03d", f-1), fmt.Sprintf("inner folder %03d", f))
		}
		mustMkdir(t, dir)
		for i := range files {
			b := make([]byte, 1+r.Intn(6000))
			r.Read(b)
			name := filepath.Join(dir, fmt.Sprintf("a file with a long name %04d.txt", i))
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, stamp, stamp); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fmkfs --from writes a tree of many folders in at most bytes / 4 MiB +
// 32 write requests (the bound): every directory is made before
// any file's data, so that the directories lie together and their
// entries go out at the commit in a few large writes, not one per folder
// between the files. fsck passes and the tree reads back.
func TestFmkfsFromWriteRequests(t *testing.T) {
	need(t, "fsck.fat", "mcopy", "fsck.exfat")
	src := filepath.Join(t.TempDir(), "tree")
	makeFolders(t, src, 80, 25)
	for _, c := range []struct {
		name  string
		args  []string
		exfat bool
	}{
		{name: "fat16", args: []string{"--fat", "16"}},
		{name: "fat32", args: []string{"--fat", "32"}},
		{name: "exfat", args: []string{"--type", "exfat"}, exfat: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			var res fromStatsJSON
			jsonOut(t, &res, "fmkfs", append(append([]string{"--json", "--stats"}, c.args...), "--from", src, img)...)
			if res.Stats == nil || res.From == nil || res.From.Files != 80*25 || res.From.Dirs != 80 {
				t.Fatalf("fmkfs --json --stats: %+v", res)
			}
			bound := res.Stats.WriteBytes/(4<<20) + 32
			t.Logf("%s: %d write requests, %d bytes; bound %d", res.FATType, res.Stats.WriteRequests, res.Stats.WriteBytes, bound)
			if res.Stats.WriteRequests > bound {
				t.Errorf("%d write requests for %d bytes in %d folders, want at most %d (bytes / 4 MiB + 32)", res.Stats.WriteRequests, res.Stats.WriteBytes, res.From.Dirs, bound)
			}
			out := filepath.Join(dir, "out")
			mustMkdir(t, out)
			if c.exfat {
				fsckExFAT(t, img, 0)
				ok(t, "fcp", "-r", img+"::/.", out)
			} else {
				fsckClean(t, img, 0)
				ok(t, "mcopy", "-s", "-n", "-m", "-i", img, "::/*", out)
			}
			compareTrees(t, src, out, false)
		})
	}
}
