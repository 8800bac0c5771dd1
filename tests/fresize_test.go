package tests

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fresizeTypes are the types fresize is tested on ("exfat" or a FAT
// type): the image's size, a shrink that leaves room for the data, and
// cluster size.
var fresizeTypes = []struct {
	fat, size, shrink, cluster string
	treeScale                  int
	filler                     int // bytes written first and removed, so that the tree lies past the shrink's end
}{
	{"12", "4M", "2M", "2048", 1, 1900 << 10},
	{"16", "32M", "20M", "2048", 6, 19 << 20},
	{"32", "64M", "44M", "512", 8, 43 << 20},
	{"exfat", "32M", "20M", "4096", 6, 19 << 20},
}

// typeName is the subtest's name for a type of fresizeTypes.
func typeName(typ string) string {
	if typ == "exfat" {
		return "exFAT"
	}
	return "FAT" + typ
}

// resizeTree writes the host tree the resize tests copy: nested folders
// (three deep) and files from 0 bytes to several clusters, scale times.
func resizeTree(t *testing.T, dir string, scale int) string {
	t.Helper()
	root := filepath.Join(dir, "tree")
	for s := range scale {
		for i, n := range []int{0, 1, 511, 2048, 2049, 7000, 33000, 100_000} {
			sub := filepath.Join(root, fmt.Sprintf("set %d", s))
			switch i % 4 {
			case 1:
				sub = filepath.Join(sub, "a")
			case 2:
				sub = filepath.Join(sub, "a", "b folder")
			case 3:
				sub = filepath.Join(sub, "a", "b folder", "C")
			}
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(sub, fmt.Sprintf("file with a long name %d-%d.bin", s, i)), n, byte(s*8+i))
		}
	}
	return root
}

// fragmentedImage makes a volume of the type whose tree /keep lies past
// filler bytes: a first copy of the tree and a filler file fill the start
// and are removed (unless keep says otherwise); an empty folder made last
// lies past them too. On exFAT the tree holds a big file too. It returns
// the image and the host tree that /keep holds.
func fragmentedImage(t *testing.T, fatType, size string, scale int, cluster string, filler int, keep bool) (img, src string) {
	t.Helper()
	dir := t.TempDir()
	img = filepath.Join(dir, "disk.img")
	src = resizeTree(t, dir, scale)
	if fatType == "exfat" {
		need(t, "fsck.exfat")
		writeFile(t, filepath.Join(src, "set 0", "a", "a big file.bin"), 3<<20+777, 42)
		ok(t, "fmkfs", "--size", size, "--type", "exfat", "--cluster-size", cluster, "--label", "RESIZE", img)
	} else {
		need(t, "fsck.fat", "mcopy")
		ok(t, "fmkfs", "--size", size, "--fat", fatType, "--cluster-size", cluster, "--label", "RESIZE", img)
	}
	ok(t, "fcp", "-r", "--no-progress", "-i", img, src, "::/first")
	writeFile(t, filepath.Join(dir, "filler"), filler, 99)
	ok(t, "fcp", "--no-progress", "-i", img, filepath.Join(dir, "filler"), "::/filler")
	ok(t, "fcp", "-r", "--no-progress", "-i", img, src, "::/keep")
	ok(t, "fmkdir", "-i", img, "::/keep/late folder")
	ok(t, "frm", "-r", "-i", img, "::/first")
	if !keep {
		ok(t, "frm", "-i", img, "::/filler")
	}
	if err := os.MkdirAll(filepath.Join(src, "late folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	resizedClean(t, fatType, img, 0)
	return img, src
}

// resizedClean holds the volume at offset of img to its type's fsck -n
// (fsck.exfat or fsck.fat) and to fverify.
func resizedClean(t *testing.T, typ, img string, offset int64) {
	t.Helper()
	if typ == "exfat" {
		fsckExFAT(t, img, offset)
	} else {
		fsckClean(t, img, offset)
	}
	ok(t, "fverify", mimg(img, offset))
}

// treeMatches reads /keep back with the type's other reader (mtools for
// FAT) and with fcp -r, and compares it with the host tree src.
func treeMatches(t *testing.T, typ, img string, offset int64, src string) {
	t.Helper()
	if typ != "exfat" {
		mtoolsMatches(t, mimg(img, offset), src)
	}
	out := filepath.Join(t.TempDir(), "out")
	ok(t, "fcp", "-r", "--no-progress", "-i", mimg(img, offset), "::/keep", out)
	sameHostTree(t, "fcp -r", src, out)
}

// fuseMatches reads /keep of the exFAT image img through exfat-fuse (on a
// loop device) and compares it with the host tree src.
func fuseMatches(t *testing.T, img, src string) {
	t.Helper()
	need(t, "losetup")
	dev := strings.TrimSpace(ok(t, "losetup", "-f", "--show", img))
	defer run(t, "losetup", "-d", dev)
	dir, unmount := fuseMount(t, dev)
	sameHostTree(t, "exfat-fuse", src, filepath.Join(dir, "keep"))
	unmount()
}

// mtoolsMatches copies /keep out of img with mcopy -s and compares every
// file and folder with the host tree src.
func mtoolsMatches(t *testing.T, img, src string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ok(t, "mcopy", "-s", "-n", "-i", img, "::/keep", out)
	sameHostTree(t, "mcopy", src, filepath.Join(out, "keep"))
}

// sameHostTree compares every file and folder of the host tree got, which
// the reader who brought out, with the host tree src.
func sameHostTree(t *testing.T, who, src, got string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		g := filepath.Join(got, rel)
		if d.IsDir() {
			if fi, err := os.Stat(g); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s did not bring folder %s out", who, rel)
			}
			return nil
		}
		want, _ := os.ReadFile(p)
		have, err := os.ReadFile(g)
		if err != nil {
			return fmt.Errorf("%s did not bring %s out: %v", who, rel, err)
		}
		if !bytes.Equal(want, have) {
			return fmt.Errorf("%s: %s reads %d bytes that differ from the %d copied in", rel, who, len(have), len(want))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var extra int
	filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			extra++
		}
		return nil
	})
	if extra != n {
		t.Fatalf("%s brought %d files out, the tree has %d", who, extra, n)
	}
}

// resizeOut is the part of fresize --json the tests read.
type resizeOut struct {
	Type         string `json:"fat_type"`
	OldSize      int64  `json:"old_size"`
	NewSize      int64  `json:"new_size"`
	MoveClusters int64  `json:"move_clusters"`
	FileSize     int64  `json:"file_size"`
	DryRun       bool   `json:"dry_run"`
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestFresizeShrinkAndGrow shrinks each FAT type with clusters past the
// new end (files, folders three deep, an empty folder made last), then
// grows it back: after each, fsck.fat finds nothing, our reader reads the
// same tree as before, and mtools reads back the host files.
func TestFresizeShrinkAndGrow(t *testing.T) {
	for _, ft := range fresizeTypes {
		t.Run(typeName(ft.fat), func(t *testing.T) {
			img, src := fragmentedImage(t, ft.fat, ft.size, ft.treeScale, ft.cluster, ft.filler, false)
			before, err := readVolume(img)
			if err != nil {
				t.Fatal(err)
			}
			oldSize := fileSize(t, img)
			var res resizeOut
			jsonOut(t, &res, "fresize", "--json", img, ft.shrink)
			if res.MoveClusters == 0 {
				t.Fatalf("the shrink to %s moved nothing: the test's tree does not reach past the new end", ft.shrink)
			}
			if got := fileSize(t, img); got != res.NewSize || res.NewSize >= oldSize {
				t.Fatalf("after the shrink the image has %d bytes, the volume %d (was %d)", got, res.NewSize, oldSize)
			}
			resizedClean(t, ft.fat, img, 0)
			after, err := readVolume(img)
			if err != nil {
				t.Fatal(err)
			}
			if !sameTree(before, after) {
				t.Fatalf("the shrink changed the tree: %d files, %d folders before; %d, %d after", len(before.files), len(before.dirs), len(after.files), len(after.dirs))
			}
			treeMatches(t, ft.fat, img, 0, src)

			jsonOut(t, &res, "fresize", "--json", img, ft.size)
			if got := fileSize(t, img); got != oldSize || res.NewSize != oldSize {
				t.Fatalf("after growing back the image has %d bytes, the volume %d; want %d", got, res.NewSize, oldSize)
			}
			resizedClean(t, ft.fat, img, 0)
			if after, err = readVolume(img); err != nil || !sameTree(before, after) {
				t.Fatalf("growing changed the tree (%v)", err)
			}
			treeMatches(t, ft.fat, img, 0, src)
			if ft.fat == "exfat" {
				fuseMatches(t, img, src)
			} else {
				roundTripMtools(t, img, 0)
				fsckClean(t, img, 0)
			}
		})
	}
}

// imageKept returns a check that img still holds the bytes it holds now,
// its size included, naming what would have changed it.
func imageKept(t *testing.T, img string) func(what string) {
	orig := readImage(t, img)
	return func(what string) {
		t.Helper()
		if !bytes.Equal(readImage(t, img), orig) {
			t.Fatalf("%s changed the image", what)
		}
	}
}

// TestFresizeRefusals: what fresize refuses leaves the image byte for
// byte as it was, its size included, and so does a dry run.
func TestFresizeRefusals(t *testing.T) {
	img, _ := fragmentedImage(t, "16", "32M", 6, "2048", 19<<20, true)
	same := imageKept(t, img)
	// Too small for the data.
	msg := fails(t, "fresize", img, "16M")
	if !strings.Contains(msg, "needs at least") || !strings.Contains(msg, "must move") {
		t.Errorf("the refusal to shrink below the data does not say why: %s", msg)
	}
	same("a shrink below the data")
	// FAT16 shrunk below 4085 clusters would be FAT12.
	msg = fails(t, "fresize", img, "7M")
	if !strings.Contains(msg, "FAT12") {
		t.Errorf("the refusal to cross FAT16's limit does not name FAT12: %s", msg)
	}
	same("a shrink past FAT16's limit")
	// Growing past what the FAT can count (the image file would grow).
	msg = fails(t, "fresize", img, "40M")
	if !strings.Contains(msg, "FAT sectors") {
		t.Errorf("the refusal to grow past the FAT does not say so: %s", msg)
	}
	same("a growth past the FAT")
	// A dry run, shrinking and growing.
	var res resizeOut
	jsonOut(t, &res, "fresize", "--json", "--dry-run", img, "20992K")
	if !res.DryRun || res.MoveClusters == 0 || res.NewSize != 20992<<10 {
		t.Errorf("dry run: %+v", res)
	}
	ok(t, "fresize", "-n", img, "30M")
	same("a dry run")
	// A dirty volume: fverify calls it dirty, fresize refuses it.
	f, boot := openBootSector(t, img)
	boot[37] |= 1
	if _, err := f.WriteAt(boot[37:38], 37); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dirty := readImage(t, img)
	r := run(t, "fresize", img, "20M")
	if r.code != 4 || !strings.Contains(r.stderr, "dirty") {
		t.Errorf("a dirty volume: exit %d, %s", r.code, r.stderr)
	}
	if !bytes.Equal(readImage(t, img), dirty) {
		t.Fatal("the refusal of a dirty volume changed the image")
	}
}

// TestFresizeGrowMovesDataArea grows each FAT type past what its FATs can
// count: the FATs grow, the data area moves and every cluster is
// renumbered, with an undo file. Without --undo or --force it is refused
// and the image is left as it was; with them fsck.fat, our reader and
// mtools find the same tree, and --undo-apply then puts the old volume
// back.
func TestFresizeGrowMovesDataArea(t *testing.T) {
	need(t, "mcopy")
	for _, ft := range []struct{ fat, size, cluster, grow string }{
		{"12", "4M", "2048", "7M"},
		{"16", "32M", "2048", "100M"},
		{"32", "64M", "512", "150M"},
	} {
		t.Run("FAT"+ft.fat, func(t *testing.T) {
			var filler int
			for _, x := range fresizeTypes {
				if x.fat == ft.fat {
					filler = x.filler
				}
			}
			img, src := fragmentedImage(t, ft.fat, ft.size, 1, ft.cluster, filler, true)
			before, err := readVolume(img)
			if err != nil {
				t.Fatal(err)
			}
			orig := readImage(t, img)
			undo := filepath.Join(t.TempDir(), "undo")
			if msg := fails(t, "fresize", img, ft.grow); !strings.Contains(msg, "undo") {
				t.Errorf("growing past the FATs without --undo: %s", msg)
			}
			if msg := fails(t, "fresize", "--undo", undo, img, ft.grow); !strings.Contains(msg, "--force") {
				t.Errorf("growing past the FATs without --force: %s", msg)
			}
			if !bytes.Equal(readImage(t, img), orig) {
				t.Fatal("a refused growth changed the image")
			}
			if _, err := os.Stat(undo); err == nil {
				t.Fatal("a refused growth wrote the undo file")
			}
			var res struct {
				resizeOut
				OldFAT uint32 `json:"old_fat_sectors"`
				NewFAT uint32 `json:"new_fat_sectors"`
				Unsafe string `json:"unsafe"`
			}
			jsonOut(t, &res, "fresize", "--json", "--force", "--undo", undo, img, ft.grow)
			if res.NewFAT <= res.OldFAT || res.Unsafe == "" {
				t.Fatalf("the FATs did not grow: %+v", res)
			}
			fsckClean(t, img, 0)
			after, err := readVolume(img)
			if err != nil || !sameTree(before, after) {
				t.Fatalf("growing changed the tree (%v)", err)
			}
			mtoolsMatches(t, img, src)
			roundTripMtools(t, img, 0)

			// The undo file belongs to this volume: another one is
			// refused, and so is this one, the resize finished, without
			// --force (it may have been written since); both left as
			// they were.
			other := filepath.Join(t.TempDir(), "other.img")
			ok(t, "fmkfs", "--fat", ft.fat, "--size", fmt.Sprint(len(readImage(t, img))), other)
			otherBytes := readImage(t, other)
			if msg := fails(t, "fresize", "--force", "--undo-apply", undo, other); !strings.Contains(msg, "another volume") {
				t.Errorf("--undo-apply on another volume: %s", msg)
			}
			if !bytes.Equal(readImage(t, other), otherBytes) {
				t.Fatal("--undo-apply on another volume changed it")
			}
			grown := readImage(t, img)
			if msg := fails(t, "fresize", "--undo-apply", undo, img); !strings.Contains(msg, "finished") || !strings.Contains(msg, "--force") {
				t.Errorf("--undo-apply after the resize finished, without --force: %s", msg)
			}
			if !bytes.Equal(readImage(t, img), grown) {
				t.Fatal("a refused --undo-apply changed the image")
			}
			// With --force it puts the old volume back (the image keeps
			// its new length; the volume is the old one).
			ok(t, "fresize", "--force", "--undo-apply", undo, img)
			fsckClean(t, img, 0)
			if after, err = readVolume(img); err != nil || !sameTree(before, after) {
				t.Fatalf("--undo-apply did not give back the old tree (%v)", err)
			}
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			if fi.TotalSectors*int64(fi.BytesPerSector) != res.OldSize || uint32(fi.FATSectors) != res.OldFAT {
				t.Fatalf("after --undo-apply the volume has %d sectors and FATs of %d; it had %d bytes and FATs of %d", fi.TotalSectors, fi.FATSectors, res.OldSize, res.OldFAT)
			}
		})
	}
}
