package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeBuildTree writes the same files and folders in the given order, so that
// the host lists them (and stamps them) differently from build to build.
func makeBuildTree(t *testing.T, root string, reverse bool) {
	t.Helper()
	files := []string{"boot/kernel.img", "boot/config.txt", "README.md", "a/b/c/deep.txt", "a/empty/", "Zeta.TXT", "alpha long name.bin"}
	if reverse {
		for i, j := 0, len(files)-1; i < j; i, j = i+1, j-1 {
			files[i], files[j] = files[j], files[i]
		}
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, 1000+len(f)*100, byte(len(f)))

	}
}

// build runs the two-line recipe with SOURCE_DATE_EPOCH set and returns the
// image's checksum.
func build(t *testing.T, tree, img string, args ...string) [32]byte {
	t.Helper()
	env := append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
	for _, argv := range [][]string{
		append(append([]string{"fmkfs", "--size", "64M"}, args...), img),
		{"fcp", "-r", "-i", img + partSuffix(args), tree + "/.", "::/"},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	return imageSum(t, img)
}

func partSuffix(args []string) string {
	for _, a := range args {
		if a == "gpt" || a == "mbr" {
			return "@@1M"
		}
	}
	return ""
}

// Two builds of the same tree, created in different orders seconds apart,
// give byte-identical images, with or without a partition table.
func TestReproducibleImages(t *testing.T) {
	for _, args := range [][]string{nil, {"--table", "gpt"}, {"--fat", "16", "--label", "BOOT"}, {"--type", "exfat"}, {"--type", "exfat", "--table", "gpt", "--label", "Boot"}} {
		t.Run(strings.Join(append([]string{"plain"}, args...), "-"), func(t *testing.T) {
			dir := t.TempDir()
			makeBuildTree(t, filepath.Join(dir, "t1"), false)
			time.Sleep(1100 * time.Millisecond)
			makeBuildTree(t, filepath.Join(dir, "t2"), true)
			a := build(t, filepath.Join(dir, "t1"), filepath.Join(dir, "a.img"), args...)
			b := build(t, filepath.Join(dir, "t2"), filepath.Join(dir, "b.img"), args...)
			if a != b {
				t.Fatal("two builds of the same tree differ")
			}
			fsck := fsckClean
			if len(args) > 1 && args[1] == "exfat" {
				fsck = fsckExFAT
			}
			fsck(t, filepath.Join(dir, "a.img"), map[bool]int64{true: 1 << 20}[partSuffix(args) != ""])
		})
	}
}
