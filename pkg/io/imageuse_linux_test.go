package io

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A FUSE driver that opened the image file itself (exfat-fuse, fusefat)
// names it as its mount's source, absolute or as it was given: writing
// the file is refused naming the mount point, reading it is not.
func TestImageUseFUSESource(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	must(t, CreateImage(img, 4<<20))
	other := filepath.Join(dir, "other.img")
	must(t, CreateImage(other, 4<<20))
	t.Chdir(dir)
	for _, tc := range []struct {
		line    string
		mounted bool
	}{
		{img + ` /mnt/fuse\040card fuse.fusefat rw 0 0`, true},
		{"card.img /mnt/fuse\\040card fuseblk rw 0 0", true},               // relative to where both started
		{dir + "/./card.img /mnt/fuse\\040card fuse rw 0 0", true},         // spelled another way
		{other + " /mnt/fuse\\040card fuse.fusefat rw 0 0", false},         // another file
		{"card.img /mnt/fuse\\040card tmpfs rw 0 0", false},                // a relative name is only a FUSE driver's
		{"/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0", false},          // nothing of it
		{"card.img /mnt/fuse\\040card fuse.exfat rw 0 0\nx y z 0 0", true}, // with more lines
	} {
		mounts := mountsFile(t, strings.Split(tc.line, "\n")...)
		d, err := Open(img, Options{Write: true, MountsFile: mounts})
		if tc.mounted {
			if !errors.Is(err, ErrMounted) || !strings.Contains(err.Error(), "mounted on /mnt/fuse card") {
				t.Errorf("%q: %v, want a refusal naming /mnt/fuse card", tc.line, err)
			}
		} else {
			must(t, err)
			must(t, d.Close())
		}
		d, err = Open(img, Options{MountsFile: mounts})
		must(t, err)
		must(t, d.Close())
	}
}

// A loop device attached to the image covers the bytes from its offset
// on: writing them is allowed with a warning naming it while it is not
// mounted, and refused while it is.
func TestImageUseLoopAttached(t *testing.T) {
	img := filepath.Join(t.TempDir(), "card.img")
	must(t, CreateImage(img, 8<<20))
	noMounts := mountsFile(t, "/dev/vda / ext4 rw 0 0")
	dev := losetup(t, img, "-o", fmt.Sprint(4<<20))
	uses, err := ImageUses(img, noMounts)
	must(t, err)
	if len(uses) != 1 || uses[0].Loop != dev || uses[0].Start != 4<<20 || uses[0].End != 8<<20 || uses[0].Mount != "" {
		t.Fatalf("uses %+v, want %s attached over [4 MiB, 8 MiB)", uses, dev)
	}
	d, err := Open(img, Options{Write: true, MountsFile: noMounts, Offset: 4 << 20})
	must(t, err)
	if w := d.Warnings(); len(w) != 1 || !strings.Contains(w[0], dev) || !strings.Contains(w[0], "not mounted") {
		t.Errorf("warnings %q, want one naming %s", w, dev)
	}
	must(t, d.Close())
	// A window that ends before the loop's offset: nothing to warn of.
	if u := uses[0]; u.Overlaps(0, 4<<20) || !u.Overlaps(4<<20-1, 2) {
		t.Errorf("overlaps wrong for %+v", u)
	}
	d, err = Open(img, Options{MountsFile: noMounts})
	must(t, err)
	if w := d.Warnings(); len(w) != 0 {
		t.Errorf("read-only open warns %q", w)
	}
	must(t, d.Close())

	// Mounted (the mounts file names the loop device): refused.
	mounted := mountsFile(t, dev+" /mnt/card ext2 rw 0 0")
	if _, err := Open(img, Options{Write: true, MountsFile: mounted}); !errors.Is(err, ErrMounted) || !strings.Contains(err.Error(), "/mnt/card") {
		t.Errorf("loop device mounted: %v", err)
	}
	if _, err := CheckImageWrite(img, mounted); !errors.Is(err, ErrMounted) {
		t.Errorf("CheckImageWrite with the loop device mounted: %v", err)
	}
	// No mounts file to read: with a loop device attached, writing is
	// refused for want of knowing; a file with none is written.
	gone := filepath.Join(t.TempDir(), "no-mounts")
	if _, err := Open(img, Options{Write: true, MountsFile: gone}); err == nil || !strings.Contains(err.Error(), dev) {
		t.Errorf("loop attached, mounts unreadable: %v", err)
	}
	lone := filepath.Join(t.TempDir(), "lone.img")
	must(t, CreateImage(lone, 1<<20))
	d, err = Open(lone, Options{Write: true, MountsFile: gone})
	must(t, err)
	must(t, d.Close())
	// A window from 1 MiB runs to the file's end, over the loop's range.
	if _, err := Open(img, Options{Write: true, MountsFile: mounted, Offset: 1 << 20}); !errors.Is(err, ErrMounted) {
		t.Errorf("a window over the mounted loop device's range: %v", err)
	}
}

// A loop device whose file is mounted through another loop device (or by
// a FUSE driver) over the same bytes is refused for writing: the kernel's
// exclusive open knows only the device itself.
func TestImageUseLoopBacking(t *testing.T) {
	img := filepath.Join(t.TempDir(), "card.img")
	must(t, CreateImage(img, 8<<20))
	mine := losetup(t, img)
	other := losetup(t, img, "-o", fmt.Sprint(4<<20))
	noMounts := mountsFile(t, "/dev/vda / ext4 rw 0 0")
	d, err := Open(mine, Options{Write: true, MountsFile: noMounts})
	must(t, err)
	must(t, d.Close())
	for _, line := range []string{other + " /mnt/other ext2 rw 0 0", img + " /mnt/other fuse.fusefat rw 0 0"} {
		mounts := mountsFile(t, line)
		d, err := Open(mine, Options{Write: true, MountsFile: mounts})
		if !errors.Is(err, ErrMounted) || !strings.Contains(err.Error(), "/mnt/other") {
			t.Errorf("%s, writing %s: %v", line, mine, err)
		}
		if err == nil {
			d.Close()
		}
		d, err = Open(mine, Options{MountsFile: mounts})
		must(t, err)
		must(t, d.Close())
	}
	// The other loop device covers the second half only: the first half
	// of mine is written.
	mounts := mountsFile(t, other+" /mnt/other ext2 rw 0 0")
	d, err = Open(mine, Options{Write: true, MountsFile: mounts, Offset: 1 << 20, Force: true})
	if err == nil {
		d.Close()
		t.Errorf("a window from 1 MiB to the end opened over the mounted half")
	}
	if err := checkLoopBacking(mine, devOf(t, mine), 0, 4<<20, mounts); err != nil {
		t.Errorf("the first half: %v", err)
	}
}

func devOf(t *testing.T, path string) uint64 {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Stat(path, &st))
	return st.Rdev
}
