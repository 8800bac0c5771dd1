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
