package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Short names are in code page 850 unless --codepage says otherwise, as
// mtools and mkfs.fat have them: mtools' ØRE.TXT reads as ØRE.TXT (not
// ¥RE.TXT, its code page 437 reading), and ftools' ØRE.TXT reads back in
// mtools; mtools set to another code page agrees with --codepage.
func TestCodePage(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mdir", "mlabel")
	dir := t.TempDir()
	img := filepath.Join(dir, "x.img")
	ok(t, "mkfs.fat", "-F", "16", "-C", img, "20480")
	host := filepath.Join(dir, "ØRE.TXT")
	want := writeFile(t, host, 700, 2)
	ok(t, "mcopy", "-i", img, host, "::/")
	// mtools stored it as a bare short name, 0x9D in code page 850.
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dRE     TXT") })
	if got := lines(ok(t, "fls", "-i", img)); strings.Join(got, "|") != "ØRE.TXT" {
		t.Fatalf("fls: %q, want ØRE.TXT", got)
	}
	if got := ok(t, "fcat", "-i", img, "::/ØRE.TXT"); got != string(want) {
		t.Fatal("fcat ::/ØRE.TXT read the wrong bytes")
	}
	if got := lines(ok(t, "fls", "--codepage", "437", "-i", img)); strings.Join(got, "|") != "¥RE.TXT" {
		t.Fatalf("fls --codepage 437: %q, want ¥RE.TXT", got)
	}
	// The other way: ftools writes Ø as mtools reads it.
	host2 := filepath.Join(dir, "ØST.TXT")
	writeFile(t, host2, 10, 3)
	ok(t, "fcp", host2, img+"::/")
	if out := ok(t, "mdir", "-i", img, "::/"); !strings.Contains(out, "ØST") {
		t.Fatalf("mdir does not show ØST:\n%s", out)
	}
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dST~1   TXT") }) // long name and all
	back := filepath.Join(dir, "back")
	ok(t, "mcopy", "-i", img, "::/ØST.TXT", back)
	fsckClean(t, img, 0)

	// mtools in code page 437 and --codepage 437 agree; the label too.
	rc := filepath.Join(dir, "mtoolsrc")
	if err := os.WriteFile(rc, []byte("default_codepage=437\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yen := filepath.Join(dir, "¥EN.TXT")
	writeFile(t, yen, 10, 4)
	mt := exec.Command("mcopy", "-i", img, yen, "::/")
	mt.Env = append(os.Environ(), "MTOOLSRC="+rc)
	if out, err := mt.CombinedOutput(); err != nil {
		t.Fatalf("mcopy (code page 437): %v\n%s", err, out)
	}
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dEN     TXT") })
	if got := ok(t, "fls", "--codepage", "437", "-i", img); !strings.Contains(got, "¥EN.TXT") {
		t.Fatalf("fls --codepage 437:\n%s", got)
	}
	ok(t, "mlabel", "-i", img, "::ÆRØ")
	if got := ok(t, "flabel", img); !strings.Contains(got, "ÆRØ") {
		t.Fatalf("flabel: %q, want ÆRØ", got)
	}
	if msg := fails(t, "fls", "--codepage", "737", "-i", img); !strings.Contains(msg, "437, 850") {
		t.Fatalf("--codepage 737: %q", msg)
	}
	if msg := fails(t, "fmkfs", "--codepage", "999", "--size", "2M", filepath.Join(dir, "new.img")); !strings.Contains(msg, "code page 999") {
		t.Fatalf("fmkfs --codepage 999: %q", msg)
	}
}
