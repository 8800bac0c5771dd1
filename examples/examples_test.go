package examples

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// TestPrograms builds every example and runs it as a user would: format an
// image, copy a folder in, walk it, update a file, check it (and fsck.fat
// -n agrees), list a partition, work in memory.
func TestPrograms(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin+"/", "./...").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(want string, name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(bin, name), args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("%s %q: %v, want %q in:\n%s", name, args, err, want, out)
		}
		return string(out)
	}
	host := filepath.Join(dir, "host")
	os.MkdirAll(filepath.Join(host, "docs"), 0o755)
	os.WriteFile(filepath.Join(host, "docs", "notes.txt"), []byte("first\n"), 0o644)
	os.WriteFile(filepath.Join(host, "Long file name.txt"), []byte("hello\n"), 0o644)
	img := filepath.Join(dir, "fat32.img")
	run("FAT32", "format", img, "64")
	run("", "copytree", img, host)
	run("       6 docs/notes.txt", "walk", img)
	run("", "update", img, "docs/notes.txt", "second")
	run("      13 docs/notes.txt", "walk", img)
	if out := run("", "check", img); out != "" {
		t.Errorf("check found problems:\n%s", out)
	}
	fsck(t, img)
	run("Hello from memory", "inmemory")
	run("FAT16 at byte 1048576:\nLong file name.txt", "partition", "-p", "1", diskImage(t, dir))
}

// fsck runs fsck.fat -n, the oracle, on img; the test fails without it.
func fsck(t *testing.T, img string) {
	t.Helper()
	path, err := exec.LookPath("fsck.fat")
	for _, p := range []string{"/usr/sbin/fsck.fat", "/sbin/fsck.fat"} {
		if err != nil {
			path, err = exec.LookPath(p)
		}
	}
	if err != nil {
		t.Fatal("fsck.fat not found: install dosfstools (bash scripts/deps)")
	}
	if out, err := exec.Command(path, "-n", img).CombinedOutput(); err != nil {
		t.Errorf("fsck.fat -n: %v\n%s", err, out)
	}
}

// diskImage makes a disk image with an MBR and one FAT16 partition at
// 1 MiB holding one file.
func diskImage(t *testing.T, dir string) string {
	img := filepath.Join(dir, "disk.img")
	if err := fio.CreateImage(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	disk, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := fio.WritePartitionTable(disk, fio.TableSpec{Kind: "mbr", Start: 1 << 20, Size: 63 << 20, MBRType: 0x0e}); err != nil {
		t.Fatal(err)
	}
	part, err := fio.Open(img, fio.Options{Write: true, Partition: 1, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := fat.Format(part, fat.FormatParams{Size: 63 << 20, HiddenSectors: 2048}, time.Now()); err != nil {
		t.Fatal(err)
	}
	v, err := fat.Open(part)
	if err != nil {
		t.Fatal(err)
	}
	w, err := v.Create("Long file name.txt", 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(v.Close(), part.Close(), disk.Close()); err != nil {
		t.Fatal(err)
	}
	return img
}
