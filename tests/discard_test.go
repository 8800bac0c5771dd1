package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// fullImage is an image file of n bytes of data, every block allocated.
func fullImage(t *testing.T, n int) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "card.img")
	writeFile(t, img, n, 42)
	return img
}

// fmkfs punches the range it formats out of an image file, so that the
// image holds only what the format writes; --no-discard leaves the old
// data in place.
func TestFmkfsDiscardImageFile(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			img := fullImage(t, 64<<20)
			var res struct {
				Discard *struct {
					Bytes   int64 `json:"bytes"`
					Punched bool  `json:"punched"`
				} `json:"discard"`
			}
			jsonOut(t, &res, "fmkfs", "--json", "--type", typ, img)
			if res.Discard == nil || !res.Discard.Punched || res.Discard.Bytes != 64<<20 {
				t.Errorf("--json discard: %+v", res.Discard)
			}
			if a := usedBytes(t, img); a > 4<<20 {
				t.Errorf("the formatted image holds %d bytes, want the format's few", a)
			}
			img = fullImage(t, 64<<20)
			out := ok(t, "fmkfs", "--no-discard", "--type", typ, img)
			if a := usedBytes(t, img); a < 64<<20 {
				t.Errorf("--no-discard: the image holds %d bytes, want the whole 64 MiB", a)
			}
			if strings.Contains(out, "discard") {
				t.Errorf("--no-discard says %q", out)
			}
			if typ == "exfat" {
				fsckExFAT(t, img, 0)
			} else {
				fsckClean(t, img, 0)
			}
		})
	}
}

// The old boot sectors are cleared and flushed before anything is
// discarded, whatever the sync policy: a discarded block may read back
// its old bytes, and an old boot sector must not.
func TestFmkfsDiscardAfterWipeFlush(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "card.img")
			ok(t, "fmkfs", "--type", typ, "--size", "32M", img)
			logPath := filepath.Join(dir, "write.log")
			cmd := exec.Command("fmkfs", "--sync", "none", "--type", typ, img)
			cmd.Env = append(os.Environ(), fio.EnvWriteLog+"="+logPath)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fmkfs: %v\n%s", err, out)
			}
			ops := loggedOps(t, logPath, img)
			wiped, flushed := false, false
			for _, o := range ops {
				switch o.Kind {
				case writelog.KindWrite:
					if o.Off == 0 {
						wiped = true
					}
				case writelog.KindFlush:
					flushed = wiped
				case writelog.KindDiscard:
					if !wiped || !flushed {
						t.Fatalf("a discard (byte %d, %d bytes) comes before the old boot sector's wipe is flushed", o.Off, o.N)
					}
					return
				}
			}
			t.Fatalf("fmkfs logged no discard")
		})
	}
}

// On a loop device fmkfs discards with BLKDISCARD (the loop driver punches
// the backing file) and says how much; the loop driver has no secure
// discard, which --secure-erase reports, erasing nothing.
func TestFmkfsDiscardLoopDevice(t *testing.T) {
	img := fullImage(t, 64<<20)
	dev := attach(t, img, 512)
	out := ok(t, "fmkfs", "--secure-erase", dev)
	if !strings.Contains(out, "does not support secure erase: nothing was erased") {
		t.Errorf("fmkfs --secure-erase on a loop device says:\n%s", out)
	}
	if a := usedBytes(t, img); a < 60<<20 {
		t.Errorf("--secure-erase the loop cannot do: the backing file holds %d bytes", a)
	}
	out = ok(t, "fmkfs", dev)
	if !strings.Contains(out, "discarded 64.0 MiB") {
		t.Errorf("fmkfs on a loop device says:\n%s", out)
	}
	run(t, "losetup", "-d", dev)
	if a := usedBytes(t, img); a > 4<<20 {
		t.Errorf("after fmkfs on the loop device the backing file holds %d bytes", a)
	}
	fsckClean(t, img, 0)
}
