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
	"github.com/ftools/ftools/pkg/vol"
)

// TestPrograms builds every example and runs it as a user would: format an
// image, copy a folder in, walk it, update a file, check it (and the file
// system's own checker agrees), damage and repair it, work on it in
// memory, list a partition; on FAT32 and exFAT.
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
	for _, kind := range []string{"FAT32", "exFAT"} {
		t.Run(kind, func(t *testing.T) {
			img := filepath.Join(dir, kind+".img")
			if kind == "FAT32" {
				run("FAT32, 67108864 bytes", "format", img, "64")
			} else {
				formatExFAT(t, img)
			}
			run("", "copytree", img, host)
			if out, err := exec.Command(filepath.Join(bin, "copytree"), img, host).CombinedOutput(); err == nil {
				t.Errorf("copytree over the same files: %s", out)
			}
			run("       6 docs/notes.txt", "walk", img)
			run("", "update", img, "docs/notes.txt", "second")
			run("      13 docs/notes.txt", "walk", img)
			if out := run("", "check", img); out != "" {
				t.Errorf("check found problems:\n%s", out)
			}
			fsck(t, kind, img)
			damage(t, kind, img)
			if out := run("", "check", img); out == "" {
				t.Error("check found no problem on a damaged image")
			}
			for _, line := range strings.Split(strings.TrimSpace(run("[fixed]", "check", "-repair", img)), "\n") {
				if !strings.HasSuffix(line, "[fixed]") {
					t.Errorf("check -repair left: %s", line)
				}
			}
			if out := run("", "check", img); out != "" {
				t.Errorf("check found problems after the repair:\n%s", out)
			}
			fsck(t, kind, img)
			run(kind+": Hello from memory\n<nil> <nil>", "inmemory", img)
			if out := run("", "walk", img); strings.Contains(out, "hello.txt") {
				t.Errorf("inmemory changed the image file:\n%s", out)
			}
		})
	}
	run("FAT16 at byte 1048576:\nLong file name.txt", "partition", "-p", "1", diskImage(t, dir))
}

// formatExFAT makes img a 64 MiB image file holding an empty exFAT volume.
func formatExFAT(t *testing.T, img string) {
	if err := fio.CreateImage(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vol.Format(dev, vol.FormatOptions{ExFAT: &vol.ExFATParams{}}); err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
}

// damage breaks what a check finds and a repair fixes: FAT32's FSINFO
// free count (sector 1, byte 488) set wrong, exFAT's VolumeDirty flag
// (byte 0x6A of the boot sector, outside its checksum) set as by a
// writer that never finished.
func damage(t *testing.T, kind, img string) {
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, off := []byte{12, 0, 0, 0}, int64(512+488)
	if kind == "exFAT" {
		b, off = []byte{0x02}, 0x6A
	}
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// fsck runs fsck.fat -n or fsck.exfat -n, the oracle, on img; the test
// fails without it.
func fsck(t *testing.T, kind, img string) {
	t.Helper()
	tool := "fsck.fat"
	if kind == "exFAT" {
		tool = "fsck.exfat"
	}
	path, err := exec.LookPath(tool)
	for _, p := range []string{"/usr/sbin/" + tool, "/sbin/" + tool} {
		if err != nil {
			path, err = exec.LookPath(p)
		}
	}
	if err != nil {
		t.Fatalf("%s not found: install dosfstools and exfatprogs (bash scripts/deps)", tool)
	}
	if out, err := exec.Command(path, "-n", img).CombinedOutput(); err != nil {
		t.Errorf("%s -n: %v\n%s", tool, err, out)
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
