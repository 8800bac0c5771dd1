package tests

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An image file whose volume the kernel or a FUSE driver has mounted
// (through a loop device) is refused by every command that writes it,
// naming the mount point, and left byte-identical: their caches would
// write back over what ftools wrote. Reading it still works. A loop
// device attached but not mounted only gets a warning.

// fileSum is the SHA-256 of a file's bytes, and its size.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x/%d", sha256.Sum256(b), len(b))
}

// kernelMount mounts dev on a new folder and unmounts it when the test
// ends (before the loop device is detached).
func kernelMount(t *testing.T, dev string) string {
	t.Helper()
	need(t, "mount", "umount")
	dir := t.TempDir()
	ok(t, "mount", dev, dir)
	t.Cleanup(func() { run(t, "umount", dir) })
	return dir
}

// refusedMounted runs each writing command on img and checks that it
// fails naming the mount point, leaving img as it was.
func refusedMounted(t *testing.T, img, mnt string, cmds [][]string) {
	t.Helper()
	// What the mount itself wrote (exfat-fuse sets the dirty bit through
	// the loop device's cache) reaches the file first.
	ok(t, "sync")
	before := fileSum(t, img)
	for _, args := range cmds {
		msg := fails(t, args[0], args[1:]...)
		if !strings.Contains(msg, "mounted on "+mnt) || !strings.Contains(msg, "unmount it first") {
			t.Errorf("%s: %q, want a refusal naming the mount point %s", strings.Join(args, " "), msg, mnt)
		}
		if got := fileSum(t, img); got != before {
			t.Fatalf("%s changed the mounted image", strings.Join(args, " "))
		}
	}
}

// exFAT through a loop device mounted by exfat-fuse (fuseblk).
func TestMountedImageFUSE(t *testing.T) {
	need(t, "losetup", "mount.exfat-fuse")
	img := newExFAT(t, "64M", "--label", "CARD")
	host := filepath.Join(t.TempDir(), "new.txt")
	writeFile(t, host, 5000, 7)
	ok(t, "fcp", "-i", img, host, "::/old.txt")
	dev := attach(t, img, 512)
	mnt, unmount := fuseMount(t, dev)

	refusedMounted(t, img, mnt, [][]string{
		{"fcp", "-i", img, host, "::/"},
		{"fmkfs", img},
		{"fmkfs", "-t", "exfat", img},
		{"fmkfs", "--table", "mbr", "--force", img},
		{"frm", "-i", img, "::/old.txt"},
		{"fmkdir", "-i", img, "::/dir"},
		{"fmv", "-i", img, "::/old.txt", "::/moved.txt"},
		{"flabel", img, "NEW"},
		{"fattrib", "-i", img, "+r", "::/old.txt"},
		{"ffallocate", "-i", img, "-l", "1M", "::/alloc"},
		{"fverify", "--repair", img},
		{"fresize", img, "48M"},
		{"fresize", img, "max"},
		{"fresize", "-n", img, "48M"},
	})
	// Readers are not refused.
	if out := ok(t, "fls", "-i", img, "::/"); !strings.Contains(out, "old.txt") {
		t.Errorf("fls on the mounted image: %q", out)
	}
	ok(t, "fcat", "-i", img, "::/old.txt")
	ok(t, "fsinfo", img)

	// Unmounted, still attached: written, with a warning naming the loop
	// device.
	unmount()
	r := run(t, "fcp", "-i", img, host, "::/")
	if r.code != 0 || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, dev) {
		t.Fatalf("fcp with %s attached, unmounted: exit %d, %q; want success with a warning naming it", dev, r.code, r.stderr)
	}
	fsckExFAT(t, img, 0)
}

// A whole image mounted by the kernel (mount -o loop): fmkfs does not
// format it over the mounted file system.
func TestMountedImageKernel(t *testing.T) {
	need(t, "mkfs.ext2", "mount", "umount", "truncate")
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "truncate", "-s", "32M", img)
	ok(t, "mkfs.ext2", "-q", img)
	mnt := t.TempDir()
	ok(t, "mount", "-o", "loop", img, mnt) // detached again on unmount
	t.Cleanup(func() { run(t, "umount", mnt) })
	refusedMounted(t, img, mnt, [][]string{
		{"fmkfs", img},
		{"fmkfs", "--force", img},
		{"fmkfs", "--size", "64M", img}, // not extended either
		{"fmkfs", "--sd", "--force", img},
		{"fmkfs", "-t", "exfat", img},
	})
	// Another loop device over the mounted file: its exclusive open does
	// not see the mount, fmkfs does.
	dev := attach(t, img, 512)
	ok(t, "sync")
	before := fileSum(t, img)
	if msg := fails(t, "fmkfs", dev); !strings.Contains(msg, "mounted on "+mnt) {
		t.Errorf("fmkfs %s, whose file is mounted through another loop device: %q", dev, msg)
	}
	if fileSum(t, img) != before {
		t.Fatalf("fmkfs %s changed the mounted image", dev)
	}
}

// A card image with a FAT partition and an ext2 one, as a Raspberry Pi's:
// with the ext2 partition mounted (through a loop device at its offset,
// or through the partition device of a loop device over the whole image),
// the FAT partition is still written, but nothing that covers the mounted
// one (a new table, a format of the whole image or of that partition).
func TestMountedImagePartition(t *testing.T) {
	need(t, "mkfs.ext2", "sfdisk", "losetup", "truncate", "mdir")
	for _, via := range []string{"offset", "partition"} {
		t.Run(via, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "pi.img")
			ok(t, "truncate", "-s", "96M", img)
			runIn(t, "label: dos\nstart=2048, size=65536, type=c\nstart=67584, type=83\n", "sfdisk", "--quiet", img)
			ok(t, "fmkfs", "--partition", "1", img)
			var dev string
			if via == "offset" {
				dev = strings.TrimSpace(ok(t, "losetup", "-o", fmt.Sprint(67584*512), "-f", "--show", img))
				t.Cleanup(func() { run(t, "losetup", "-d", dev) })
			} else {
				loop := attachP(t, img)
				dev = loop + "p2"
			}
			ok(t, "mkfs.ext2", "-q", dev)
			mnt := kernelMount(t, dev)

			host := filepath.Join(dir, "config.txt")
			writeFile(t, host, 300, 1)
			ok(t, "fcp", "-i", img, host, "::/")
			if out := ok(t, "mdir", "-i", img+"@@1M", "::/"); !strings.Contains(strings.ToLower(out), "config") {
				t.Fatalf("the FAT partition beside the mounted one was not written: %s", out)
			}
			refusedMounted(t, img, mnt, [][]string{
				{"fmkfs", "--table", "mbr", "--force", img},
				{"fmkfs", "--force", img},
				{"fmkfs", "--partition", "2", img},
				{"fmkfs", fmt.Sprintf("%s@@%d", img, 67584*512)},
			})
		})
	}
}
