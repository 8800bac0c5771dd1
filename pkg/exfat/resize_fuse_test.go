package exfat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/resize"
)

// fuseMounted attaches img to a loop device and mounts it with exfat-fuse
// (a second exFAT implementation); the returned func unmounts and
// detaches.
func fuseMounted(t *testing.T, img string) (string, func()) {
	t.Helper()
	out, err := runTool(t, "losetup", "-f", "--show", img)
	if err != nil {
		t.Fatalf("losetup: %v\n%s", err, out)
	}
	dev := strings.TrimSpace(out)
	mnt := t.TempDir()
	if out, err := runTool(t, "mount.exfat-fuse", dev, mnt); err != nil {
		runTool(t, "losetup", "-d", dev)
		t.Fatalf("mount.exfat-fuse: %v\n%s", err, out)
	}
	done := false
	undo := func() {
		if done {
			return
		}
		done = true
		if out, err := runTool(t, "umount", mnt); err != nil {
			t.Errorf("umount: %v\n%s", err, out)
		}
		runTool(t, "losetup", "-d", dev)
	}
	t.Cleanup(undo)
	return mnt, undo
}

// TestResizeThroughFuse holds a shrink that moved files, directories and a
// contiguous file across the end, and then a grow that moved the bitmap,
// to exfat-fuse: it reads every file back, and writes a file into the new
// clusters that fsck.exfat and Check accept.
func TestResizeThroughFuse(t *testing.T) {
	img := resizeBase(t, resizeCase{})
	want := fillForResize(t, img, true)
	v := openVol(t, img, false)
	l := *v.layout
	closeVol(t, v)
	if _, err := resizeImage(t, img, resize.Options{Size: l.HeapOffset + 16*resizeMiB + 512*1024}); err != nil {
		t.Fatal(err)
	}
	readThrough := func() {
		t.Helper()
		mnt, undo := fuseMounted(t, img)
		defer undo()
		for name, data := range want {
			got, err := os.ReadFile(filepath.Join(mnt, name))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("exfat-fuse reads %s as %d bytes (%v), want the %d written", name, len(got), err, len(data))
			}
		}
	}
	readThrough()
	plan, err := resizeImage(t, img, resize.Options{Size: 300 * resizeMiB})
	if err != nil {
		t.Fatal(err)
	}
	readThrough()
	mnt, undo := fuseMounted(t, img)
	big := pattern(11, 200*resizeMiB)
	if err := os.WriteFile(filepath.Join(mnt, "big from fuse.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	undo()
	want["big from fuse.bin"] = big
	checkResized(t, img, want, plan.NewClusters)
}
