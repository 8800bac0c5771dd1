package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What mtools and coreutils users type, and what they read back: each as
// the tool they know does it.

// mtools' sector suffix: "card.img@@2048S" is 2048 sectors of 512 bytes
// (1 MiB), for readers and writers alike.
func TestMtoolsSectorOffset(t *testing.T) {
	need(t, "mdir")
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "fmkfs", "--size", "64M", "--table", "mbr", img)
	host := filepath.Join(t.TempDir(), "notes.txt")
	writeFile(t, host, 1000, 1)
	for _, spec := range []string{img + "@@2048S", img + "@@2048s", img + "@@0x800S"} {
		ok(t, "fcp", "-i", spec, host, "::/")
		if out := ok(t, "fls", spec+"::/"); strings.TrimSpace(out) != "notes.txt" {
			t.Errorf("fls %s::/: %q", spec, out)
		}
		ok(t, "frm", "-i", spec, "::/notes.txt")
	}
	ok(t, "fcp", "-i", img+"@@2048S", host, "::/")
	if out := ok(t, "mdir", "-b", "-i", img+"@@2048S", "::/"); !strings.Contains(strings.ToLower(out), "notes.txt") {
		t.Errorf("mdir reads %q", out)
	}
	if msg := fails(t, "fls", img+"@@1KS::/"); !strings.Contains(msg, "2048S") {
		t.Errorf("a sector count with a unit: %q", msg)
	}
}

// "fls card.img" lists the root, as "mdir -i card.img" does; a host path
// that is no image is still refused as before.
func TestFlsImageAlone(t *testing.T) {
	need(t, "mdir")
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			ok(t, "fmkfs", "-t", typ, "--size", "64M", img)
			host := filepath.Join(t.TempDir(), "photo.jpg")
			writeFile(t, host, 1000, 1)
			ok(t, "fcp", "-i", img, host, "::/")
			ok(t, "fmkdir", "-i", img, "::/DCIM")
			want := ok(t, "fls", "-l", "-i", img)
			if got := ok(t, "fls", "-l", img); got != want || !strings.Contains(got, "photo.jpg") || !strings.Contains(got, "DCIM") {
				t.Fatalf("fls -l %s:\n%s\nwant, as fls -l -i %s:\n%s", img, got, img, want)
			}
			if typ == "fat" {
				if m := ok(t, "mdir", "-i", img); !strings.Contains(strings.ToLower(m), "photo") {
					t.Fatalf("mdir -i %s: %s", img, m)
				}
			}
		})
	}
	if msg := fails(t, "fls", t.TempDir()); !strings.Contains(msg, "not a path inside an image") {
		t.Errorf("fls of a host folder: %q", msg)
	}
}

// fls -f, as mdir -f: no free space counted, no "bytes free" line.
func TestFlsFast(t *testing.T) {
	need(t, "mdir")
	img := newImage(t, "--size", "64M")
	host := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, host, 100, 1)
	ok(t, "fcp", "-i", img, host, "::/")
	if m := ok(t, "mdir", "-f", "-i", img, "::/"); strings.Contains(m, "bytes free") {
		t.Fatalf("mdir -f prints the free space:\n%s", m)
	}
	if out := ok(t, "fls", "-l", img+"::/"); !strings.Contains(out, "bytes free") {
		t.Fatalf("fls -l without -f:\n%s", out)
	}
	for _, flags := range [][]string{{"-lf"}, {"-w", "-f"}, {"--fast", "-l"}} {
		out := ok(t, "fls", append(flags, img+"::/")...)
		if strings.Contains(out, "bytes free") || !strings.Contains(out, "a.txt") || !strings.Contains(out, "1 file") {
			t.Errorf("fls %s:\n%s", strings.Join(flags, " "), out)
		}
	}
	var l struct {
		Volumes []any `json:"volumes"`
		Files   int   `json:"files"`
	}
	jsonOut(t, &l, "fls", "--json", "-f", img+"::/")
	if len(l.Volumes) != 0 || l.Files != 1 {
		t.Errorf("fls --json -f: %+v", l)
	}
}

// fcat -t reads DOS text as mtype -t does: every CR dropped, Ctrl-Z ends
// the file; the same on exFAT.
func TestFcatText(t *testing.T) {
	need(t, "mtype")
	dos := "line one\r\nline two\r\nbare\rcarriage\r\nlast\r\n\x1ajunk after the end\r\n"
	want := "line one\nline two\nbarecarriage\nlast\n"
	host := filepath.Join(t.TempDir(), "dos.txt")
	if err := os.WriteFile(host, []byte(dos), 0o644); err != nil {
		t.Fatal(err)
	}
	img := newImage(t, "--size", "16M")
	ok(t, "fcp", "-i", img, host, "::/")
	if m := ok(t, "mtype", "-t", "-i", img, "::/dos.txt"); m != want {
		t.Fatalf("mtype -t gives %q, this test wants %q", m, want)
	}
	x := newExFAT(t, "16M")
	ok(t, "fcp", "-i", x, host, "::/")
	for _, im := range []string{img, x} {
		if got := ok(t, "fcat", "-t", "-i", im, "::/dos.txt"); got != want {
			t.Errorf("fcat -t on %s: %q, want %q", im, got, want)
		}
		if got := ok(t, "fcat", "--text", im+"::/dos.txt", im+"::/dos.txt"); got != want+want {
			t.Errorf("fcat --text of the file twice: %q", got)
		}
		if got := ok(t, "fcat", "-i", im, "::/dos.txt"); got != dos {
			t.Errorf("fcat without -t changed the bytes: %q", got)
		}
	}
	// A file of several read requests (fcat reads through the volume's
	// read-ahead, in chunks of up to a request, converting a copy), its
	// Ctrl-Z in the third; and the same bytes without -t, read whole.
	bigDOS := strings.Repeat("0123456789abcd\r\n", 600_000) + "\x1aafter the end\r\n"
	bigWant := strings.ReplaceAll(bigDOS[:strings.IndexByte(bigDOS, 0x1a)], "\r", "")
	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, []byte(bigDOS), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, im := range []string{img, x} {
		ok(t, "fcp", "-i", im, big, "::/")
		if got := ok(t, "fcat", "-t", "-i", im, "::/big.txt"); got != bigWant {
			t.Errorf("fcat -t of a %d-byte file on %s: %d bytes, want %d", len(bigDOS), im, len(got), len(bigWant))
		}
		if got := ok(t, "fcat", "-i", im, "::/big.txt", "::/dos.txt"); got != bigDOS+dos {
			t.Errorf("fcat of the big file and the small one on %s: %d bytes, want %d", im, len(got), len(bigDOS+dos))
		}
	}
}

// The partition fls picks is named for what it holds: "the only exFAT
// partition", not "FAT".
func TestPartitionAnnouncedExFAT(t *testing.T) {
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "fmkfs", "-t", "exfat", "--table", "mbr", "--size", "64M", img)
	r := run(t, "fls", img+"::/")
	if r.code != 0 || !strings.Contains(r.stderr, "using partition 1, the only exFAT partition of its table") {
		t.Fatalf("fls on an exFAT partition: exit %d, %q", r.code, r.stderr)
	}
	img2 := filepath.Join(t.TempDir(), "card.img")
	ok(t, "fmkfs", "--table", "mbr", "--size", "64M", img2)
	if r := run(t, "fls", img2+"::/"); !strings.Contains(r.stderr, "the only FAT partition") {
		t.Fatalf("fls on a FAT partition: %q", r.stderr)
	}
}

// Two names that differ only in case clash on exFAT too, and the message
// names exFAT's rule, not FAT's.
func TestCaseClashNamesExFAT(t *testing.T) {
	src := filepath.Join(t.TempDir(), "d")
	mustMkdir(t, src)
	writeFile(t, filepath.Join(src, "README.TXT"), 10, 1)
	writeFile(t, filepath.Join(src, "Readme.txt"), 10, 2)
	for _, tc := range []struct{ img, fsys string }{{newExFAT(t, "16M"), "exFAT"}, {newImage(t, "--size", "16M"), "FAT"}} {
		msg := fails(t, "fcp", "-r", "-i", tc.img, src, "::/")
		if !strings.Contains(msg, "but for case ("+tc.fsys+" names ignore case)") {
			t.Errorf("%s: %q", tc.fsys, msg)
		}
	}
}

// fsinfo says from where it counts: regions from the volume's start, the
// SD alignment from the card's, which differ on a partitioned card.
func TestFsinfoSaysOrigins(t *testing.T) {
	for _, size := range []string{"64M", "40G"} { // FAT16, and exFAT over 32 GiB (sparse)
		img := filepath.Join(t.TempDir(), "card.img")
		ok(t, "fmkfs", "--sd", "--size", size, img)
		out := ok(t, "fsinfo", img)
		if !strings.Contains(out, "regions (from the volume's start):") || !strings.Contains(out, "card; from the card's start: ") {
			t.Errorf("fsinfo on a %s card does not say where it counts from:\n%s", size, out)
		}
	}
}

// --next-cluster's refusal names what fsinfo takes (a cluster from 2, or
// 0xffffffff for unknown), never a range whose start it then refuses.
func TestNextClusterRange(t *testing.T) {
	img := newImage(t, "--size", "64M", "--fat", "32")
	for _, v := range []string{"-1", "x", "4294967296"} {
		msg := fails(t, "fsinfo", "--next-cluster", v, img)
		if strings.Contains(msg, "from 0") || !strings.Contains(msg, "2 up to") || !strings.Contains(msg, "0xffffffff") {
			t.Errorf("--next-cluster %s: %q", v, msg)
		}
	}
	ok(t, "fsinfo", "--next-cluster", "0xffffffff", img)
	ok(t, "fsinfo", "--next-cluster", "2", img)
	if msg := fails(t, "fsinfo", "--free-count", "-1", img); strings.Contains(msg, "from 0 to 4294967295") {
		t.Errorf("--free-count -1: %q", msg)
	}
}

// After writing a table on a block device whose kernel keeps the old one
// (a loop device attached without -P cannot re-read), fmkfs says so, as
// sfdisk does, and names partx; the table itself is written.
func TestFmkfsSaysTableNotReread(t *testing.T) {
	need(t, "truncate", "sfdisk")
	img := filepath.Join(t.TempDir(), "card.img")
	ok(t, "truncate", "-s", "64M", img)
	dev := attach(t, img, 512)
	r := run(t, "fmkfs", "--table", "mbr", dev)
	if r.code != 0 || !strings.Contains(r.stderr, "the kernel still uses the old table") || !strings.Contains(r.stderr, "partx -u "+dev) {
		t.Fatalf("fmkfs --table mbr %s: exit %d\n%s", dev, r.code, r.stderr)
	}
	if dump := ok(t, "sfdisk", "--dump", img); !strings.Contains(dump, "start=        2048") {
		t.Fatalf("no table written:\n%s", dump)
	}
}
