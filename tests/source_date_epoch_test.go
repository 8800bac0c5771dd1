package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SOURCE_DATE_EPOCH that is set but not a number of seconds makes every
// command refuse to run (reproducible-builds.org: a malformed value fails
// the build), before it writes anything; ignoring it gave other bytes on
// every run with exit 0.
func TestMalformedSourceDateEpoch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.img")
	ok(t, "fmkfs", "--size", "1M", good)
	for _, v := range []string{"abc", "-5", "1.5", " 17"} {
		t.Setenv("SOURCE_DATE_EPOCH", v)
		img := filepath.Join(dir, "new.img")
		if msg := fails(t, "fmkfs", "--size", "1M", img); !strings.Contains(msg, "SOURCE_DATE_EPOCH=") {
			t.Errorf("fmkfs with SOURCE_DATE_EPOCH=%q: %q", v, msg)
		}
		if _, err := os.Stat(img); err == nil {
			t.Errorf("fmkfs with SOURCE_DATE_EPOCH=%q made the image", v)
		}
		if msg := fails(t, "fls", "-i", good, "::/"); !strings.Contains(msg, "not a number of seconds") {
			t.Errorf("fls with SOURCE_DATE_EPOCH=%q: %q", v, msg)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	ok(t, "fmkfs", "--size", "1M", filepath.Join(dir, "epoch.img"))
}

// A volume id of 0, given (-i 0, as mkfs.fat -i 00000000 writes) or
// derived from SOURCE_DATE_EPOCH=0, is written as 0 on both file systems,
// not replaced by one from the clock: a pinned id gives the same bytes on
// every build.
func TestZeroVolumeID(t *testing.T) {
	dir := t.TempDir()
	for _, typ := range []string{"fat", "exfat"} {
		for _, epoch := range []string{"", "0"} {
			t.Setenv("SOURCE_DATE_EPOCH", epoch)
			args := []string{"-t", typ, "--size", "64M"}
			if epoch == "" {
				args = append(args, "-i", "0")
			}
			img := filepath.Join(dir, typ+epoch+".img")
			if out := ok(t, "fmkfs", append(args, img)...); !strings.Contains(out, "volume id 0000-0000") {
				t.Errorf("fmkfs %v (SOURCE_DATE_EPOCH=%q): %s", args, epoch, out)
			}
			if out := ok(t, "fsinfo", img); !strings.Contains(strings.ToLower(out), "0000-0000") && !strings.Contains(out, "00000000") {
				t.Errorf("fsinfo after fmkfs %v (SOURCE_DATE_EPOCH=%q): %s", args, epoch, out)
			}
		}
	}
}
