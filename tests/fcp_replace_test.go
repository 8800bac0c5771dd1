package tests

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Updating a kernel on a small boot partition: an 8 MiB file replaced on
// a volume with 3 MiB free, as mcopy -o replaces it. The replaced file's
// clusters count as room; where the new file fits only in them, fcp says
// so on stderr before writing (the old file is emptied first, so a power
// cut may leave neither version) and goes on; the file keeps its name and
// attributes. A file with room of its own is written first, as always,
// without a word, and one that fits in neither is refused with the old
// file intact.
func TestFcpReplaceTight(t *testing.T) {
	need(t, "mcopy", "fsck.fat", "fsck.exfat")
	const warning = "only fits in the clusters of the file it replaces"
	for _, kind := range []struct{ name, fat string }{{"fat16", "16"}, {"fat32", "32"}, {"exfat", ""}} {
		t.Run(kind.name, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "boot.img")
			if kind.fat == "" {
				ok(t, "fmkfs", "--type", "exfat", "--size", "16M", img)
			} else {
				ok(t, "fmkfs", "--fat", kind.fat, "--size", map[string]string{"16": "16M", "32": "40M"}[kind.fat], img)
			}
			tightVolume(t, img, dir, "::/kernel8.img", 8<<20, 3<<20)
			ok(t, "fattrib", "+s", "-i", img, "::/kernel8.img")
			check := func(want []byte) {
				t.Helper()
				if kind.fat == "" {
					fsckExFAT(t, img, 0)
				} else {
					fsckClean(t, img, 0)
					if got := mget(t, img, "/kernel8.img"); !bytes.Equal(got, want) {
						t.Fatalf("mcopy reads %d bytes, want the %d copied", len(got), len(want))
					}
				}
				got, err := readVolume(img)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.files["kernel8.img"], want) {
					t.Fatalf("::/kernel8.img holds %d bytes, want the %d copied", len(got.files["kernel8.img"]), len(want))
				}
				if a := volAttr(t, img, "kernel8.img"); a&vol.AttrSystem == 0 {
					t.Fatalf("::/kernel8.img lost its system attribute: %s", a)
				}
			}

			k2 := filepath.Join(dir, "k2")
			want := writeFile(t, k2, 8<<20-1000, 9)
			r := run(t, "fcp", "-i", img, k2, "::/kernel8.img")
			if r.code != 0 {
				t.Fatalf("fcp over a file whose clusters make room: exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "fcp: '::/kernel8.img' "+warning) || !strings.Contains(r.stderr, "power cut") {
				t.Fatalf("no warning that only the old file's clusters hold it:\n%s", r.stderr)
			}
			check(want)

			big := filepath.Join(dir, "big")
			writeFile(t, big, 12<<20, 10)
			msg := fails(t, "fcp", "-i", img, big, "::/kernel8.img")
			if !strings.Contains(msg, "no space left on volume") || strings.Contains(msg, warning) {
				t.Fatalf("a file that fits in neither: %s", msg)
			}
			check(want)

			small := filepath.Join(dir, "small")
			want = writeFile(t, small, 1<<20, 11)
			if r := run(t, "fcp", "-i", img, small, "::/kernel8.img"); r.code != 0 || r.stderr != "" {
				t.Fatalf("a file with room of its own: exit %d\n%s", r.code, r.stderr)
			}
			check(want)
		})
	}
}

// volAttr is the attributes of the file p in the volume in img.
func volAttr(t *testing.T, img, p string) vol.Attr {
	t.Helper()
	dev, err := fio.Open(img, fio.Options{Buffered: true, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	v, err := vol.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := v.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return v.Entry(fi).Attr
}
