package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A device or image that cannot be written is named as read-only by every
// writer, at once, before anything is attempted: a write-protected device
// (losetup -r), and an image on a read-only file system. fverify --repair
// still checks it, and fails only when a repair must write.
func TestReadOnlyTargets(t *testing.T) {
	need(t, "losetup", "mount", "umount")
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	mustMkdir(t, mnt)
	if r := run(t, "mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", mnt); r.code != 0 {
		t.Fatalf("mount tmpfs (the tests run as root): %s", r.stderr)
	}
	t.Cleanup(func() { run(t, "umount", mnt) })
	clean := filepath.Join(mnt, "clean.img")
	dirty := filepath.Join(mnt, "dirty.img")
	ok(t, "fmkfs", "--size", "16M", "--fat", "16", clean)
	ok(t, "cp", clean, dirty)
	patchFile(t, dirty, func(b []byte) { b[37] |= 1 }) // the dirty bit
	dirtyX := filepath.Join(mnt, "dirty-exfat.img")
	ok(t, "fmkfs", "--size", "16M", "--type", "exfat", dirtyX)
	patchFile(t, dirtyX, func(b []byte) { b[0x6A] |= 2 }) // VolumeDirty
	ok(t, "mount", "-o", "remount,ro", mnt)
	src := filepath.Join(dir, "x.txt")
	writeFile(t, src, 100, 1)

	out := strings.TrimSpace(ok(t, "losetup", "-r", "--find", "--show", clean))
	t.Cleanup(func() { run(t, "losetup", "-d", out) })
	for _, target := range []struct{ path, says string }{
		{clean, "read-only file system"},
		{out, "the device is read-only"},
	} {
		for _, args := range [][]string{
			{"fcp", "-i", target.path, src, "::/X.TXT"},
			{"fmkfs", target.path},
			{"fmkdir", "-i", target.path, "::/D"},
			{"fsinfo", "--recount", target.path},
		} {
			msg := fails(t, args[0], args[1:]...)
			if !strings.Contains(msg, target.says) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("%s: %q does not say %q in one line", strings.Join(args, " "), msg, target.says)
			}
		}
		// Nothing to repair: a check, exit 0.
		if r := run(t, "fverify", "--repair", target.path); r.code != 0 || !strings.Contains(r.stdout, "clean") {
			t.Errorf("fverify --repair on a clean read-only %s: exit %d\n%s%s", target.path, r.code, r.stdout, r.stderr)
		}
	}
	// Something to repair: the report, then exit 8 saying why nothing was.
	r := run(t, "fverify", "--repair", dirty)
	if r.code != 8 || !strings.Contains(r.stdout, "dirty bit") || !strings.Contains(r.stderr, "nothing was repaired") || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("fverify --repair on a dirty read-only image: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// With --json the reason is in the object too, beside the report.
	r = run(t, "fverify", "--repair", "--json", dirty)
	obj := oneObject(t, "fverify --repair --json on a read-only image", r.stdout)
	if msg, _ := obj["error"].(string); r.code != 8 || !strings.Contains(msg, "nothing was repaired") || !strings.Contains(msg, "read-only") ||
		fmt.Sprint(obj["exit_status"]) != "8" || !strings.Contains(r.stdout, `"kind": "dirty"`) {
		t.Errorf("fverify --repair --json on a dirty read-only image: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(dirty); err != nil || b[37]&1 == 0 {
		t.Errorf("the read-only image changed (%v)", err)
	}
	// exFAT the same: the report, then exit 8 saying why nothing was
	// repaired, the image unchanged.
	r = run(t, "fverify", "--repair", dirtyX)
	if r.code != 8 || !strings.Contains(r.stdout, "dirty") || !strings.Contains(r.stderr, "nothing was repaired") || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("fverify --repair on a dirty read-only exFAT image: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(dirtyX); err != nil || b[0x6A]&2 == 0 {
		t.Errorf("the read-only exFAT image changed (%v)", err)
	}
}
