package tests

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fallocJSON struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Allocated int64  `json:"allocated_bytes"`
	Runs      []struct {
		Start    uint32 `json:"start"`
		Clusters uint32 `json:"clusters"`
	} `json:"runs"`
}

func imageSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// ffallocate gives one contiguous run that mshowfat sees, the volume stays
// fsck-clean, and the content reads as zeros through mtools even where a
// deleted file's data lay.
func TestFfallocate(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mdel", "mshowfat")
	for _, tc := range []struct {
		name string
		mkfs []string
	}{
		{"fat12", []string{"-F", "12"}},
		{"fat16", []string{"-F", "16"}},
		{"fat32", []string{"-F", "32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			blocks := "8000"
			if tc.name != "fat12" {
				blocks = "80000"
			}
			ok(t, "mkfs.fat", append(append([]string{"-C"}, tc.mkfs...), img, blocks)...)
			// Leave old data in the free space.
			junk := filepath.Join(dir, "junk")
			writeFile(t, junk, 1_000_000, 3)
			ok(t, "mcopy", "-i", img, junk, "::/JUNK")
			ok(t, "mdel", "-i", img, "::/JUNK")

			var res fallocJSON
			jsonOut(t, &res, "ffallocate", "--json", "-l", "1M", "-i", img, "::/pre.bin")
			if res.Size != 1<<20 || len(res.Runs) != 1 {
				t.Fatalf("ffallocate: size %d in %d runs, want 1 MiB in 1", res.Size, len(res.Runs))
			}
			fsckClean(t, img, 0)
			r := res.Runs[0]
			want := fmt.Sprintf("<%d-%d>", r.Start, r.Start+r.Clusters-1)
			if out := ok(t, "mshowfat", "-i", img, "::/pre.bin"); !strings.Contains(out, want) {
				t.Fatalf("mshowfat: %q, want %s", out, want)
			}
			back := filepath.Join(dir, "back")
			ok(t, "mcopy", "-i", img, "::/pre.bin", back)
			got, _ := os.ReadFile(back)
			if len(got) != 1<<20 || !bytes.Equal(got, make([]byte, 1<<20)) {
				t.Fatalf("preallocated file reads %d bytes, not all zero", len(got))
			}

			// Extending grows the run in place.
			jsonOut(t, &res, "ffallocate", "--json", "-l", "2M", "-i", img, "::/pre.bin")
			want = fmt.Sprintf("<%d-%d>", r.Start, res.Runs[0].Start+res.Runs[0].Clusters-1)
			if out := ok(t, "mshowfat", "-i", img, "::/pre.bin"); !strings.Contains(out, want) || res.Runs[0].Start != r.Start+r.Clusters {
				t.Fatalf("after extending: mshowfat %q, want one run %s", out, want)
			}
			fsckClean(t, img, 0)

			// Not enough space: an error naming the numbers, the image
			// byte for byte as it was.
			before := imageSum(t, img)
			msg := fails(t, "ffallocate", "-l", "3G", "-i", img, "::/huge")
			if !strings.Contains(msg, "no space left on volume: need ") || !strings.Contains(msg, " free") {
				t.Fatalf("ENOSPC message: %q", msg)
			}
			// Messages name the file as the user did.
			ok(t, "fmkdir", "-i", img, "::/d")
			for _, p := range []string{"::/d/big.bin", img + "::/d/big.bin"} {
				args := []string{"-l", "3G", "-i", img, p}
				if strings.HasPrefix(p, img) {
					args = []string{"-l", "3G", p}
				}
				if msg := fails(t, "ffallocate", args...); !strings.Contains(msg, "'"+p+"'") || strings.Contains(msg, " /d/") {
					t.Fatalf("ffallocate %s: %q does not name %s", p, msg, p)
				}
			}
			before = imageSum(t, img)
			if imageSum(t, img) != before {
				t.Fatal("a refused ffallocate changed the image")
			}
		})
	}
}

// --keep-size allocates without changing the size; the limits are refused.
func TestFfallocateKeepSizeAndLimits(t *testing.T) {
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "fmkfs", "--size", "100M", img)
	ok(t, "ffallocate", "-l", "100K", "-i", img, "::/f")
	var res fallocJSON
	jsonOut(t, &res, "ffallocate", "--json", "--keep-size", "-l", "1M", "-i", img, "::/f")
	if res.Size != 100<<10 || res.Allocated == 0 {
		t.Fatalf("--keep-size: size %d, allocated %d", res.Size, res.Allocated)
	}
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	if used := int64(fi.Clusters-fi.FreeClusters) * fi.ClusterSize; used < 1<<20 {
		t.Fatalf("--keep-size allocated only %d bytes", used)
	}
	if msg := fails(t, "ffallocate", "-l", "5G", "-i", img, "::/g"); !strings.Contains(msg, "4 GiB - 1") {
		t.Fatalf("5G: %q", msg)
	}
	if msg := fails(t, "ffallocate", "-l", "1M", "-i", img, "::/nodir/g"); !strings.Contains(msg, "'::/nodir/g': '::/nodir': no such file or directory") {
		t.Fatalf("missing parent: %q", msg)
	}
	r := run(t, "ffallocate", "-l", "1M", "--no-zero", "-i", img, "::/nz")
	if r.code != 0 || !strings.Contains(r.stderr, "warning") {
		t.Fatalf("--no-zero: exit %d, stderr %q", r.code, r.stderr)
	}
}

// ffallocate of exactly the free space, when the directory must grow to hold
// the new entry, fails before writing anything: the image stays byte for
// byte as it was (the man page's promise), old data in the free space too.
func TestFfallocateExactSpaceWithDirectoryGrowth(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mdel", "mmd")
	for _, tc := range []struct{ bits, blocks string }{{"16", "8000"}, {"32", "40000"}} {
		t.Run("FAT"+tc.bits, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "x.img")
			ok(t, "mkfs.fat", "-F", tc.bits, "-s", "1", "-C", img, tc.blocks)
			ok(t, "mmd", "-i", img, "::/DIR")
			empty := filepath.Join(dir, "empty")
			writeFile(t, empty, 0, 0)
			for i := 0; i < 14; i++ { // with "." and "..", one full cluster
				ok(t, "mcopy", "-i", img, empty, fmt.Sprintf("::/DIR/F%02d.TXT", i))
			}
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			free := int64(fi.FreeClusters) * fi.ClusterSize
			junk := filepath.Join(dir, "junk")
			writeFile(t, junk, int(free), 5)
			ok(t, "mcopy", "-i", img, junk, "::/JUNK")
			ok(t, "mdel", "-i", img, "::/JUNK")
			before := imageSum(t, img)
			msg := fails(t, "ffallocate", "-l", fmt.Sprint(free), "-i", img, "::/DIR/NEW.BIN")
			if !strings.Contains(msg, "no space left on volume") {
				t.Fatalf("ffallocate: %q", msg)
			}
			if imageSum(t, img) != before {
				t.Fatal("the failed ffallocate changed the image")
			}
			// One cluster less fits, entry and all.
			ok(t, "ffallocate", "-l", fmt.Sprint(free-fi.ClusterSize), "-i", img, "::/DIR/NEW.BIN")
			fsckClean(t, img, 0)
		})
	}
}
