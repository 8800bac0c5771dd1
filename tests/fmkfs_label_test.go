package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fmkfs -n keeps the label's case on FAT, as mkfs.fat does (Raspberry Pi
// OS mounts LABEL=bootfs), with mkfs.fat's warning; fsck.fat accepts it.
func TestFmkfsLowercaseLabel(t *testing.T) {
	need(t, "blkid")
	img := filepath.Join(t.TempDir(), "lc.img")
	r := run(t, "fmkfs", "-n", "bootfs", "--size", "8M", img)
	if r.code != 0 || !strings.Contains(r.stderr, "lower case") {
		t.Fatalf("fmkfs -n bootfs: exit %d, stderr %q", r.code, r.stderr)
	}
	out, err := exec.Command("blkid", "-o", "value", "-s", "LABEL", img).Output()
	if err != nil || strings.TrimSpace(string(out)) != "bootfs" {
		t.Errorf("blkid LABEL: %q, %v", out, err)
	}
	fsckClean(t, img, 0)
	if r := run(t, "fmkfs", "-n", "BOOT", "--size", "8M", filepath.Join(t.TempDir(), "uc.img")); r.stderr != "" {
		t.Errorf("an upper-case label warned: %q", r.stderr)
	}
}
