package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutImage is a 16 MiB volume holding eight 300 kB files, f1 to f8, cut
// short as a truncated download is: its boot sector still says 16 MiB.
type cutImage struct {
	img   string            // the cut image
	src   string            // the host folder the files came from
	data  map[string][]byte // by name
	size  int64             // what the image holds
	kind  string            // "fat" or "exfat", for fmkfs --type
	whole []string          // files wholly inside the cut image
	lost  []string          // files whose data runs past its end (the first straddles it)
}

// newCutImage writes the files with fcp and truncates the image inside
// the fifth file's data: 1,500,000 bytes as the report had it for FAT16,
// whose data area starts near the front; exFAT's cluster heap starts at
// 2 MiB, so its cut is as far into the fifth file, at 3,500,000. Both
// file systems lay the files out one after the other, so f1 to f4 are
// whole and f5 to f8 are not.
func newCutImage(t *testing.T, kind string) *cutImage {
	t.Helper()
	dir := t.TempDir()
	c := &cutImage{img: filepath.Join(dir, "cut.img"), src: filepath.Join(dir, "src"), data: map[string][]byte{}, kind: kind}
	if err := os.Mkdir(c.src, 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := 1; i <= 8; i++ {
		name := fmt.Sprintf("f%d", i)
		p := filepath.Join(c.src, name)
		c.data[name] = writeFile(t, p, 300000, byte(i))
		paths = append(paths, p)
		if i <= 4 {
			c.whole = append(c.whole, name)
		} else {
			c.lost = append(c.lost, name)
		}
	}
	c.size = 1500000
	if kind == "exfat" {
		c.size = 3500000
	}
	c.mkfs(t, c.img)
	ok(t, "fcp", append(append([]string{"-i", c.img}, paths...), "::/")...)
	if err := os.Truncate(c.img, c.size); err != nil {
		t.Fatal(err)
	}
	return c
}

// mkfs makes a 16 MiB volume of the image's kind in img.
func (c *cutImage) mkfs(t *testing.T, img string) {
	t.Helper()
	args := []string{"--type", c.kind, "--size", "16M"}
	if c.kind == "fat" {
		args = append(args, "--fat", "16")
	}
	ok(t, "fmkfs", append(args, img)...)
}

// eachCut runs a test on a cut FAT16 image and a cut exFAT one.
func eachCut(t *testing.T, f func(t *testing.T, c *cutImage)) {
	for _, kind := range []string{"fat", "exfat"} {
		t.Run(kind, func(t *testing.T) { f(t, newCutImage(t, kind)) })
	}
}

// noPanic fails the test when a command's output holds a Go panic.
func noPanic(t *testing.T, what string, r result) {
	t.Helper()
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("%s panicked:\n%s", what, r.stderr)
	}
}

// Copying out with a wildcard: the whole files are copied, each cut file
// is named and left out (no host file of zeros), and the exit status is 1.
func TestCutImageCopyOut(t *testing.T) {
	eachCut(t, func(t *testing.T, c *cutImage) {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		r := run(t, "fcp", "-i", c.img, "::/*", out+"/")
		noPanic(t, "fcp", r)
		if r.code != 1 {
			t.Errorf("fcp -i cut.img '::/*' out/: exit %d, want 1\n%s", r.code, r.stderr)
		}
		for _, name := range c.whole {
			if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, c.data[name]) {
				t.Errorf("%s lies wholly inside the image but was not copied whole (%d bytes, %v)", name, len(got), err)
			}
		}
		for _, name := range c.lost {
			if _, err := os.Lstat(filepath.Join(out, name)); err == nil {
				t.Errorf("%s runs past the image's end, yet out/%s exists", name, name)
			}
			if !strings.Contains(r.stderr, "'::/"+name+"'") {
				t.Errorf("fcp does not name %s:\n%s", name, r.stderr)
			}
		}
	})
}

// Copying out one file that lies wholly past the end: an error naming it,
// exit 1, no panic, no empty host file left behind.
func TestCutImageCopyOutOne(t *testing.T) {
	eachCut(t, func(t *testing.T, c *cutImage) {
		out := filepath.Join(t.TempDir(), "o")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"f5", "f8"} {
			r := run(t, "fcp", "-i", c.img, "::/"+name, out+"/")
			noPanic(t, "fcp", r)
			if r.code != 1 || !strings.Contains(r.stderr, "'::/"+name+"'") || !strings.Contains(r.stderr, "outside the volume") {
				t.Errorf("fcp -i cut.img ::/%s o/: exit %d, want 1 and an error naming it\n%s", name, r.code, r.stderr)
			}
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("o/ holds %d entries (%s...), want none", len(ents), ents[0].Name())
		}
	})
}

// Copying into another image: the destination gets the whole files and
// nothing of the cut ones (no zeros passed off as their data), the cut
// ones are named, the exit status is 1, and the destination is clean.
func TestCutImageToImage(t *testing.T) {
	eachCut(t, func(t *testing.T, c *cutImage) {
		dst := filepath.Join(t.TempDir(), "dst.img")
		c.mkfs(t, dst)
		r := run(t, "fcp", "-r", c.img+"::/", dst+"::/all/")
		noPanic(t, "fcp", r)
		if r.code != 1 {
			t.Errorf("fcp -r cut.img::/ dst.img::/all/: exit %d, want 1\n%s", r.code, r.stderr)
		}
		for _, name := range c.whole {
			if got := ok(t, "fcat", "-i", dst, "::/all/"+name); got != string(c.data[name]) {
				t.Errorf("dst.img ::/all/%s: %d bytes, not the %d of the original", name, len(got), len(c.data[name]))
			}
		}
		for _, name := range c.lost {
			if r := run(t, "fls", "-i", dst, "::/all/"+name); r.code == 0 {
				t.Errorf("dst.img holds ::/all/%s, whose data the cut image does not hold", name)
			}
			if !strings.Contains(r.stderr, "::/"+name+"'") {
				t.Errorf("fcp does not name %s:\n%s", name, r.stderr)
			}
		}
		if v := run(t, "fverify", dst); v.code != 0 {
			t.Errorf("fverify dst.img: exit %d\n%s%s", v.code, v.stdout, v.stderr)
		}
	})
}

// fcat gives the whole files and fails the others by name.
func TestCutImageCat(t *testing.T) {
	eachCut(t, func(t *testing.T, c *cutImage) {
		for _, name := range c.whole {
			if got := ok(t, "fcat", "-i", c.img, "::/"+name); got != string(c.data[name]) {
				t.Errorf("fcat %s: %d bytes, not the %d written", name, len(got), len(c.data[name]))
			}
		}
		for _, name := range c.lost {
			r := run(t, "fcat", "-i", c.img, "::/"+name)
			noPanic(t, "fcat", r)
			if r.code != 1 || !strings.Contains(r.stderr, "::/"+name) || !strings.Contains(r.stderr, "outside the volume") {
				t.Errorf("fcat ::/%s: exit %d, want 1 and an error naming it\n%s", name, r.code, r.stderr)
			}
		}
	})
}

// fverify reports the cut as a boot-sector problem, and --compare names
// each file it cannot read, not the whole ones.
func TestCutImageVerify(t *testing.T) {
	eachCut(t, func(t *testing.T, c *cutImage) {
		r := run(t, "fverify", c.img)
		want := fmt.Sprintf("says the volume has %d bytes but %s holds only %d", 16<<20, c.img, c.size)
		if r.code != 4 || !strings.Contains(r.stdout, "boot-sector: ") || !strings.Contains(r.stdout, want) {
			t.Errorf("fverify cut.img: exit %d, want 4 and a boot-sector problem saying %q\n%s%s", r.code, want, r.stdout, r.stderr)
		}
		r = run(t, "fverify", "--compare", c.src+"=::/", c.img)
		noPanic(t, "fverify --compare", r)
		if r.code != 4 {
			t.Errorf("fverify --compare: exit %d, want 4\n%s%s", r.code, r.stdout, r.stderr)
		}
		for _, name := range c.lost {
			if !strings.Contains(r.stdout, "compare: /"+name+": ") {
				t.Errorf("fverify --compare does not name %s:\n%s", name, r.stdout)
			}
		}
		for _, name := range c.whole {
			if strings.Contains(r.stdout, "/"+name+":") {
				t.Errorf("fverify --compare names %s, which is whole:\n%s", name, r.stdout)
			}
		}
	})
}

// A disk image cut short (its partition now ends past its end) is refused
// naming the partition and why it is unusable: the message read "it has
// partition : give --partition N".
func TestCutDiskNamesUnusablePartition(t *testing.T) {
	for _, table := range []string{"mbr", "gpt"} {
		img := filepath.Join(t.TempDir(), "cut.img")
		ok(t, "fmkfs", "--size", "64M", "--table", table, img)
		ok(t, "truncate", "-s", "60M", img)
		msg := fails(t, "fls", "-i", img, "::/")
		if !strings.Contains(msg, "partition 1 (unusable: ") {
			t.Errorf("%s cut short: %q", table, msg)
		}
	}
}
