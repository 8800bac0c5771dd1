package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An exFAT entry set that does not decode (its set checksum broken) hides
// a member. Readers used to list the directory without it, exit 0, and
// writers added a second file of the same name; now listing and lookups
// say the directory holds damaged entries (exit 1), and writers add no
// name to it, byte-identically, until fverify --repair deletes the set.
func TestExFATDamagedEntrySetIsNotSilent(t *testing.T) {
	need(t, "fsck.exfat")
	dir := t.TempDir()
	img := filepath.Join(dir, "e.img")
	ok(t, "fmkfs", "--type", "exfat", "--size", "64M", img)
	h := filepath.Join(dir, "h")
	o := filepath.Join(dir, "o")
	writeFile(t, h, 6, 1)
	writeFile(t, o, 6, 2)
	ok(t, "fcp", "-i", img, h, o, "::/")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	// h's File Name entry (0xC1, flags, "h" in UTF-16) follows its Stream
	// Extension, which follows its File entry: flip a DataLength byte of
	// the stream entry, so the set checksum no longer holds.
	name := []byte{0xC1, 0x00, 'h', 0x00}
	at := -1
	for i := bytes.Index(b, name); i >= 0; i = bytes.Index(b[i+1:], name) + i + 1 {
		if i%32 == 0 && i >= 64 && b[i-64] == 0x85 && b[i-32] == 0xC0 {
			at = i - 32 + 24
			break
		}
		if bytes.Index(b[i+1:], name) < 0 {
			break
		}
	}
	if at < 0 {
		t.Fatal("h's entry set not found")
	}
	b[at] ^= 0xFF
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := fileSum(t, img)
	const why = "damaged entries"
	for _, args := range [][]string{
		{"fls", "-a", img},
		{"fcat", "-i", img, "::/h"},
		{"fcp", "-i", img, h, "::/h"},
		{"fcp", "-i", img, h, "::/new"},
		{"fmkdir", "-i", img, "::/d"},
		{"fmv", "-i", img, "::/o", "::/p"},
	} {
		r := run(t, args[0], args[1:]...)
		if r.code != 1 || !strings.Contains(r.stderr, why) {
			t.Errorf("%s: exit %d, want 1 naming the damaged entries\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		if fileSum(t, img) != sum {
			t.Fatalf("%s changed the image", strings.Join(args, " "))
		}
	}
	if r := run(t, "fverify", img); r.code == 0 || !strings.Contains(r.stdout, "set-checksum") {
		t.Errorf("fverify: exit %d\n%s", r.code, r.stdout)
	}
	// fverify --repair deletes the damaged set, as fsck.exfat -y does,
	// and frees its clusters. Writers work again.
	if r := run(t, "fverify", "--repair", img); !strings.Contains(r.stdout, "deleted 1 entry sets whose checksum fails") {
		t.Errorf("fverify --repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "fverify", img); r.code != 0 {
		t.Errorf("fverify after the repair: exit %d\n%s", r.code, r.stdout)
	}
	ok(t, "fcp", "-i", img, h, "::/new")
	fsckExFAT(t, img, 0)
}
