package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fatsortList is `fatsort -l`: every directory's members in the order they
// lie on disk, the oracle fsort's order is held to.
func fatsortList(t *testing.T, img string) string {
	t.Helper()
	need(t, "fatsort")
	cmd := exec.Command("fatsort", "-l", img)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fatsort -l %s: %v", img, err)
	}
	return string(out)
}

// fatsortRun sorts img with fatsort itself, under LC_ALL=C.UTF-8.
func fatsortRun(t *testing.T, img string, args ...string) {
	t.Helper()
	need(t, "fatsort")
	cmd := exec.Command("fatsort", append(args, img)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fatsort %v %s: %v\n%s", args, img, err, out)
	}
}

// sortTree writes a host tree of about n names that order badly: mixed
// case, digits of every length (for -n), dots, spaces, underscores, short
// names and long ones, folders inside folders; root holds few, so that it
// fits a FAT16 fixed root.
func sortTree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	stems := []string{"Track", "track", "TRACK", "a", "B", "song_", "Song ", "z.mp3", "ABC", "readme", "Ärger", "élan", "~tilde", "x1y", "X01Y", "10", "9"}
	made := 0
	for d := 0; made < n; d++ {
		dir := filepath.Join(root, fmt.Sprintf("Dir%d", d))
		if d%3 == 1 {
			dir = filepath.Join(root, fmt.Sprintf("dir%02d", d), "Sub "+fmt.Sprint(d))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100 && made < n; i++ {
			stem := stems[(i*7+d)%len(stems)]
			name := fmt.Sprintf("%s%d", stem, (i*37+d*11)%250)
			if i%5 == 0 {
				name += ".TXT"
			} else if i%5 == 1 {
				name += ".mp3"
			}
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err == nil {
				continue
			}
			if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
				t.Fatal(err)
			}
			made++
		}
	}
	for _, f := range []string{"b.txt", "A.TXT", "Zebra", "apple", "10 ten", "9 nine"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// fsort orders every directory as fatsort does under LC_ALL=C.UTF-8, for
// each option fatsort shares with it, on FAT16 (the fixed root sorted in
// place), FAT32 and exFAT, and leaves a volume fsck.fat or fsck.exfat
// calls clean.
func TestFsortMatchesFatsort(t *testing.T) {
	need(t, "fatsort", "fsck.fat", "fsck.exfat")
	src := sortTree(t, 2000)
	for _, typ := range []string{"16", "32", "exfat"} {
		dir := t.TempDir()
		img := filepath.Join(dir, "orig.img")
		if typ == "exfat" {
			ok(t, "fmkfs", "--type", "exfat", "--size", "64M", img)
		} else {
			ok(t, "fmkfs", "--fat", typ, "--size", "64M", img)
		}
		ok(t, "fcp", "-i", img, "-r", src+"/.", "::/")
		ok(t, "frm", "-i", img, "::/Zebra")
		// Names that sort first, added last (ftools' exFAT writer would
		// otherwise have copied the tree in order already).
		dir01 := "/dir01"
		if typ != "exfat" {
			dir01 = "/DIR01" // fatsort matches a short-only name as stored (upper case); fsort ignores case
		}
		for _, d := range []string{"/", "/Dir0", dir01 + "/Sub 1", "/Dir3"} {
			ok(t, "fcp", "-i", img, filepath.Join(src, "A.TXT"), "::"+d+"/0 early.txt")
			ok(t, "fcp", "-i", img, filepath.Join(src, "A.TXT"), "::"+d+"/AAA first.mp3")
		}
		ok(t, "fmkdir", "-i", img, "::/Dir0/0 dir")
		for _, opts := range [][]string{nil, {"-n"}, {"-r"}, {"-o", "f"}, {"-o", "a"}, {"-n", "-r", "-o", "f"}, {"-d", "/Dir0"}, {"-D", dir01}} {
			name := fmt.Sprintf("%s %s", typ, strings.Join(opts, " "))
			t.Run(name, func(t *testing.T) {
				a, b := filepath.Join(dir, "a.img"), filepath.Join(dir, "b.img")
				copyFile(t, img, a)
				copyFile(t, img, b)
				fatsortRun(t, a, opts...)
				ok(t, "fsort", append(append([]string{}, opts...), b)...)
				want, got := fatsortList(t, a), fatsortList(t, b)
				if got != want {
					t.Fatalf("fsort's order differs from fatsort's:\n%s", listDiff(want, got))
				}
				if got == fatsortList(t, img) {
					t.Fatalf("nothing was reordered: the tree does not test the order")
				}
				if typ == "exfat" {
					fsckExFAT(t, b, 0)
				} else {
					fsckClean(t, b, 0)
				}
				ok(t, "fverify", b)
				// Sorting again finds everything in order and writes nothing.
				before := readImage(t, b)
				ok(t, "fsort", append(append([]string{}, opts...), b)...)
				if string(readImage(t, b)) != string(before) {
					t.Fatalf("a second fsort changed the image")
				}
			})
		}
	}
}

// listDiff shows where two listings part.
func listDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var x, y string
		if i < len(w) {
			x = w[i]
		}
		if i < len(g) {
			y = g[i]
		}
		if x != y {
			head := ""
			for j := min(i, len(w)-1); j >= 0; j-- {
				if strings.HasPrefix(w[j], "/") {
					head = w[j]
					break
				}
			}
			return fmt.Sprintf("line %d (in %s): fatsort %q, fsort %q", i+1, head, x, y)
		}
	}
	return ""
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	ok(t, "cp", "--sparse=always", from, to)
}

// fsort on loop devices (a card's stand-in), 512- and 4096-byte sectors,
// FAT32, FAT16 and exFAT: the same bytes as on the image file, the same
// order as fatsort's, fsck clean; and a mounted image refused as it was.
func TestFsortLoopDevice(t *testing.T) {
	need(t, "losetup", "fatsort", "fsck.fat", "fsck.exfat", "mount", "umount")
	src := sortTree(t, 300)
	for _, c := range []struct {
		typ string
		ss  int
	}{{"32", 512}, {"exfat", 512}, {"16", 4096}, {"exfat", 4096}} {
		t.Run(fmt.Sprintf("%s-%d", c.typ, c.ss), func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "card.img")
			args := []string{"--size", "64M", "--sector-size", fmt.Sprint(c.ss), img}
			if c.typ == "exfat" {
				args = append([]string{"--type", "exfat"}, args...)
			} else {
				args = append([]string{"--fat", c.typ}, args...)
			}
			ok(t, "fmkfs", args...)
			ok(t, "fcp", "-i", img, "-r", src+"/.", "::/")
			ok(t, "fcp", "-i", img, filepath.Join(src, "A.TXT"), "::/0 early.txt")
			ref := filepath.Join(dir, "ref.img")
			copyFile(t, img, ref)
			ok(t, "fsort", "-n", ref)
			dev := attach(t, img, c.ss)
			ok(t, "fsort", "-n", dev)
			run(t, "losetup", "-d", dev)
			if c.ss == 512 { // fatsort reads 512-byte sectors only
				if got, want := fatsortList(t, img), fatsortList(t, ref); got != want {
					t.Fatalf("on the loop device:\n%s", listDiff(want, got))
				}
			}
			if string(readImage(t, img)) != string(readImage(t, ref)) {
				t.Errorf("the loop device's volume differs from the image file's, sorted alike")
			}
			if c.typ == "exfat" {
				fsckExFAT(t, img, 0)
			} else {
				fsckClean(t, img, 0)
			}
		})
	}
	// A mounted image is refused as by every writing command (this
	// kernel mounts ext2, not vfat: the refusal comes before the volume
	// is read).
	need(t, "mkfs.ext2", "truncate")
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "truncate", "-s", "32M", img)
	ok(t, "mkfs.ext2", "-q", img)
	mnt := t.TempDir()
	ok(t, "mount", "-o", "loop", img, mnt)
	t.Cleanup(func() { run(t, "umount", mnt) })
	refusedMounted(t, img, mnt, [][]string{{"fsort", img}, {"fsort", "-r", img}})
}

// A damaged volume, or a directory -d names that is not there, is refused
// with the image byte for byte as it was.
func TestFsortRefusals(t *testing.T) {
	for _, typ := range []string{"32", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "card.img")
			if typ == "exfat" {
				ok(t, "fmkfs", "--type", "exfat", "--size", "64M", img)
			} else {
				ok(t, "fmkfs", "--fat", typ, "--size", "64M", img)
			}
			ok(t, "fcp", "-i", img, "-r", sortTree(t, 50)+"/.", "::/")
			before := readImage(t, img)
			for _, args := range [][]string{{"-d", "/nope", img}, {"-D", "/A.TXT", img}, {"-o", "x", img}} {
				fails(t, "fsort", args...)
				if string(readImage(t, img)) != string(before) {
					t.Fatalf("fsort %v changed the image", args)
				}
			}
			if typ == "exfat" {
				return
			}
			damageFAT2(t, img)
			before = readImage(t, img)
			r := run(t, "fsort", img)
			if r.code != 4 || !strings.Contains(r.stderr, "nothing was sorted") {
				t.Errorf("fsort on a damaged volume: exit %d, %q; want 4 and a refusal", r.code, r.stderr)
			}
			if string(readImage(t, img)) != string(before) {
				t.Fatalf("fsort changed a damaged volume")
			}
		})
	}
}

// A folder at FAT's limit of 65,536 slots (20,400 names of three slots
// each, five to a sector as the writer puts them: 4,081 of the 4,096
// sectors of 2 MiB) is sorted in reverse within the commands' memory
// bound, and fsck.fat finds it clean.
func TestFsortFullFolderMemory(t *testing.T) {
	need(t, "fsck.fat")
	src := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20400; i++ {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("Long file name %05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := filepath.Join(t.TempDir(), "full.img")
	ok(t, "fmkfs", "--fat", "32", "--size", "128M", img)
	ok(t, "fcp", "-i", img, "-r", src, "::/")
	out := leanWithin(t, maxRSS, "fsort", "-r", img)
	if !strings.Contains(out, "1 directory rewritten, 20401 members") {
		t.Errorf("fsort: %q", out)
	}
	fsckClean(t, img, 0)
	// The last name on disk is now the first in reverse order.
	list := strings.Split(ok(t, "fls", "-b", "-i", img, "::/full"), "\n")
	if len(list) < 2 || !strings.HasSuffix(list[0], "Long file name 20399") || !strings.HasSuffix(list[1], "Long file name 20398") {
		t.Errorf("fls after fsort -r starts %q", list[:min(len(list), 3)])
	}
}

// A FAT12 root with no free slot cannot be reordered safely in place: it
// is refused before anything is written; with two slots free it is
// sorted, the label still first.
func TestFsortFullFixedRoot(t *testing.T) {
	need(t, "fsck.fat", "fatsort", "mdir")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "floppy.img")
	ok(t, "fmkfs", "--fat", "12", "--size", "1440K", "--label", "FLOPPY", img)
	fi := volInfo(t, img, 0)
	for i := 0; i < fi.RootEntries-1; i++ { // the label takes one
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("F%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok(t, "fcp", "-i", img, "-r", src+"/.", "::/")
	before := readImage(t, img)
	if msg := fails(t, "fsort", "-r", img); !strings.Contains(msg, "too few free slots") {
		t.Errorf("fsort -r on a full root: %q", msg)
	}
	if string(readImage(t, img)) != string(before) {
		t.Fatalf("the refusal changed the image")
	}
	ok(t, "frm", "-i", img, "::/F000", "::/F001")
	ref := filepath.Join(dir, "ref.img")
	copyFile(t, img, ref)
	ok(t, "fsort", "-r", img)
	fatsortRun(t, ref, "-r")
	if got, want := fatsortList(t, img), fatsortList(t, ref); got != want {
		t.Fatalf("%s", listDiff(want, got))
	}
	fsckClean(t, img, 0)
	if out := ok(t, "mdir", "-i", img, "::"); !strings.Contains(out, "Volume in drive : is FLOPPY") {
		t.Errorf("the label is gone:\n%s", out)
	}
}
