package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// exFAT's second writer: exfat-fuse (an implementation of its own, not
// exfatprogs) mounts through a loop device. What ftools writes reads back
// through it; what it writes (new folders of many long names, a large
// file, deletions and renames of ftools' files) reads back through ftools,
// fverify calls it clean, and ftools writes over it again.

// fuseMount mounts dev with exfat-fuse read-write and unmounts it when
// the test ends (before the loop device is detached); unmount does that
// sooner, flushing what the writer holds.
func fuseMount(t *testing.T, dev string) (dir string, unmount func()) {
	t.Helper()
	need(t, "mount.exfat-fuse", "umount")
	dir = t.TempDir()
	ok(t, "mount.exfat-fuse", dev, dir)
	mounted := true
	unmount = func() {
		if mounted {
			mounted = false
			ok(t, "umount", dir)
		}
	}
	t.Cleanup(unmount)
	return dir, unmount
}

func TestExFATSecondWriter(t *testing.T) {
	need(t, "fsck.exfat", "cp")
	img := newExFAT(t, "96M", "--label", "FT")
	work := t.TempDir()
	host := filepath.Join(work, "tree")
	exfatTree(t, host)
	setTimes(t, host)
	ok(t, "fcp", "-r", "-i", img, host, "::/ftools")
	ok(t, "fmkdir", "-i", img, "::/ftools/made by fmkdir")
	ok(t, "fmv", "-i", img, "::/ftools/hello.txt", "::/ftools/sub/hello moved.txt")
	if err := os.Rename(filepath.Join(host, "hello.txt"), filepath.Join(host, "sub", "hello moved.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(host, "made by fmkdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	fsckExFAT(t, img, 0)

	// ftools' volume through exfat-fuse: the same names, bytes and times.
	dev := attach(t, img, 512)
	mnt, unmount := fuseMount(t, dev)
	compareTrees(t, host, filepath.Join(mnt, "ftools"), false)

	// exfat-fuse writes: a folder of 300 long names, a 20 MiB file, a
	// file of ftools' removed, another renamed into a new folder.
	many := filepath.Join(mnt, "fuse folder with a long name")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		writeFile(t, filepath.Join(many, fmt.Sprintf("written by exfat-fuse, file number %03d.dat", i)), 100+i*13, byte(i))
	}
	writeFile(t, filepath.Join(mnt, "big from fuse.bin"), 20<<20, 99)
	if err := os.Remove(filepath.Join(mnt, "ftools", "big.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(mnt, "renamed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(mnt, "ftools", "sub", "cluster.bin"), filepath.Join(mnt, "renamed", "cluster.bin")); err != nil {
		t.Fatal(err)
	}
	// What it holds as exfat-fuse shows it, times included.
	want := filepath.Join(work, "want")
	ok(t, "cp", "-a", mnt+"/.", want)
	unmount()

	fsckExFAT(t, img, 0)
	if r := run(t, "fverify", img); r.code != 0 {
		t.Fatalf("fverify on what exfat-fuse wrote: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := filepath.Join(work, "got")
	ok(t, "fcp", "-r", "-i", img, "::/.", got) // the root as the new folder got, as cp -r dir/. got
	compareTrees(t, want, got, false)

	// ftools writes over exfat-fuse's folders, and exfat-fuse reads it.
	extra := filepath.Join(work, "extra.bin")
	data := writeFile(t, extra, 70000, 7)
	ok(t, "fcp", "-i", img, extra, "::/fuse folder with a long name/from ftools again.bin")
	ok(t, "frm", "-i", img, "::/fuse folder with a long name/written by exfat-fuse, file number 000.dat")
	ok(t, "fmv", "-i", img, "::/big from fuse.bin", "::/renamed/big.bin")
	fsckExFAT(t, img, 0)
	mnt, unmount = fuseMount(t, dev)
	defer unmount()
	if b, err := os.ReadFile(filepath.Join(mnt, "fuse folder with a long name", "from ftools again.bin")); err != nil || string(b) != string(data) {
		t.Fatalf("exfat-fuse reads ftools' new file: %d bytes, %v", len(b), err)
	}
	if _, err := os.Stat(filepath.Join(mnt, "fuse folder with a long name", "written by exfat-fuse, file number 000.dat")); !os.IsNotExist(err) {
		t.Fatalf("the file frm removed: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "renamed", "big.bin")); err != nil || len(b) != 20<<20 {
		t.Fatalf("exfat-fuse reads the moved 20 MiB file: %d bytes, %v", len(b), err)
	}
	entries, err := os.ReadDir(filepath.Join(mnt, "fuse folder with a long name"))
	if err != nil || len(entries) != 300 {
		t.Fatalf("exfat-fuse lists %d names in the folder (want 299 of its own and ftools' one): %v", len(entries), err)
	}
}
