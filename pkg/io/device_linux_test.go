package io

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDirectOnExt4(t *testing.T) {
	dir := t.TempDir()
	var sfs unix.Statfs_t
	must(t, unix.Statfs(dir, &sfs))
	if sfs.Type == unix.TMPFS_MAGIC {
		t.Fatalf("%s is tmpfs; this test wants a disk file system", dir)
	}
	// An odd size exercises the buffered tail past the last aligned block.
	path, shadow := newImage(t, dir, 3<<20+100)
	d := exerciseFile(t, path, Options{Write: true, Sync: SyncClose, IOSize: 64 << 10}, shadow)
	st := d.Stats()
	if !st.Direct || st.Fallback != "" || st.Align < 512 {
		t.Errorf("direct %v align %d fallback %q", st.Direct, st.Align, st.Fallback)
	}
}

// The buffered fallback on a block device opened O_EXCL (as writers open
// them) works: its reopened descriptors do not ask for the claim again,
// and the claim is kept.
func TestBlockDeviceFallbackKeepsClaim(t *testing.T) {
	img := filepath.Join(t.TempDir(), "card.img")
	must(t, CreateImage(img, 4<<20))
	dev := losetup(t, img)
	noMounts := mountsFile(t, "proc /proc proc rw 0 0")
	d, err := Open(dev, Options{Write: true, MountsFile: noMounts, NoLock: true})
	must(t, err)
	defer d.Close()
	fb := d.be.(*fileBackend)
	// An unaligned request goes through the buffered twin.
	if _, err := fb.WriteAt([]byte("tail"), 3); err != nil {
		t.Fatalf("unaligned write through the buffered twin: %v", err)
	}
	if err := fb.dropDirect(); err != nil {
		t.Fatalf("dropping O_DIRECT: %v", err)
	}
	buf := make([]byte, 4)
	if _, err := fb.ReadAt(buf, 3); err != nil || string(buf) != "tail" {
		t.Fatalf("read back %q, %v", buf, err)
	}
	// Still claimed: a second exclusive open fails.
	if fd, err := unix.Open(dev, unix.O_RDWR|unix.O_EXCL, 0); err == nil {
		unix.Close(fd)
		t.Fatal("the device is no longer claimed after the fallback")
	}
}

func TestCreateImage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.img")
	must(t, CreateImage(p, 1<<30))
	var st unix.Stat_t
	must(t, unix.Stat(p, &st))
	if st.Size != 1<<30 || st.Blocks > 64 {
		t.Errorf("size %d, %d blocks: not sparse", st.Size, st.Blocks)
	}
	must(t, os.WriteFile(p, []byte("keep"), 0o644)) // truncates to 4 bytes
	must(t, CreateImage(p, 8192))
	b, _ := os.ReadFile(p)
	if len(b) != 8192 || string(b[:4]) != "keep" {
		t.Errorf("extend: %d bytes, starts %q", len(b), b[:4])
	}
	must(t, CreateImage(p, 100)) // never shrinks
	if fi, _ := os.Stat(p); fi.Size() != 8192 {
		t.Errorf("CreateImage shrank the file to %d", fi.Size())
	}
	for _, bad := range []string{dir, "/dev/null"} {
		if err := CreateImage(bad, 4096); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("CreateImage(%s) = %v", bad, err)
		}
	}
	if err := CreateImage(p, -1); err == nil {
		t.Error("negative size accepted")
	}
}
