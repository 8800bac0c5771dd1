package tests

import (
	"strings"
	"testing"
)

// fmv's DEST/ as mv's: one directory is renamed to a DEST/ that does not
// exist yet (mv d new/), a file is refused (mv f g/: not a directory),
// and several sources need DEST to be a directory; on both file systems.
func TestFmvTrailingSlash(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		img := newImage(t, "-t", typ, "--size", "16M")
		ok(t, "fmkdir", "-i", img, "::/d")
		ok(t, "fmkdir", "-i", img, "::/e")
		ok(t, "fcp", "-i", img, "/etc/hostname", "::/f")
		ok(t, "fmv", "-i", img, "::/d", "::/new/")
		if got := strings.Join(sorted(lines(ok(t, "fls", "-i", img, "::/"))), "|"); got != "e|f|new" {
			t.Errorf("%s: after fmv ::/d ::/new/: %s", typ, got)
		}
		if msg := fails(t, "fmv", "-i", img, "::/f", "::/g/"); !strings.Contains(msg, "is not a directory") {
			t.Errorf("%s: fmv of a file to a new DEST/: %q", typ, msg)
		}
		if msg := fails(t, "fmv", "-i", img, "::/e", "::/new", "::/h/"); !strings.Contains(msg, "is not a directory") {
			t.Errorf("%s: fmv of two to a new DEST/: %q", typ, msg)
		}
		if got := strings.Join(sorted(lines(ok(t, "fls", "-i", img, "::/"))), "|"); got != "e|f|new" {
			t.Errorf("%s: a refused fmv changed the volume: %s", typ, got)
		}
		if typ == "fat" {
			fsckClean(t, img, 0)
		} else {
			fsckExFAT(t, img, 0)
		}
	}
}
