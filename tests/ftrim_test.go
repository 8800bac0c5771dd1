package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// trimJSON is ftrim --json's object.
type trimJSON struct {
	Target       string `json:"target"`
	FATType      string `json:"fat_type"`
	ClusterSize  int64  `json:"cluster_size"`
	FreeClusters int64  `json:"free_clusters"`
	Runs         int    `json:"runs"`
	Bytes        int64  `json:"bytes"`
	Skipped      int    `json:"skipped_runs"`
	Unsupported  bool   `json:"unsupported"`
	Punched      bool   `json:"punched"`
	DryRun       bool   `json:"dry_run"`
	Error        string `json:"error"`
	ExitStatus   int    `json:"exit_status"`
}

// slack is what a punched run may leave allocated: the host's partial
// blocks at each end of a run of 2 KiB clusters.
const slack = 64 << 10

// usedImage makes a 64 MiB image of type typ ("fat" or "exfat") whose
// free clusters hold old data: 40 MiB of files are copied in and 24 MiB
// of them removed. It returns the image, the kept files' host copies by
// volume path, and the bytes removed.
func usedImage(t *testing.T, typ string) (string, map[string]string, int64) {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	ok(t, "fmkfs", "--type", typ, "--size", "64M", img)
	kept := map[string]string{}
	var removed int64
	for i, mib := range []int{8, 8, 8, 8, 8} {
		src := filepath.Join(dir, "f"+string(rune('0'+i)))
		writeFile(t, src, mib<<20, byte(i+1))
		name := "::/F" + string(rune('0'+i)) + ".BIN"
		ok(t, "fcp", "-i", img, src, name)
		if i%2 == 0 {
			kept[name] = src
		} else {
			removed += int64(mib) << 20
		}
	}
	small := filepath.Join(dir, "small")
	writeFile(t, small, 5000, 9)
	ok(t, "fcp", "-i", img, small, "::/small.txt")
	kept["::/small.txt"] = small
	// A third removed file in a folder: its clusters are free too.
	ok(t, "fmkdir", "-i", img, "::/D")
	d := filepath.Join(dir, "d")
	writeFile(t, d, 8<<20, 77)
	ok(t, "fcp", "-i", img, d, "::/D/G.BIN")
	ok(t, "frm", "-i", img, "::/F1.BIN", "::/F3.BIN", "::/D/G.BIN")
	removed += 8 << 20
	return img, kept, removed
}

// checkVolume runs the file system's own checker and reads every kept
// file back out.
func checkVolume(t *testing.T, typ, img string, kept map[string]string) {
	t.Helper()
	if typ == "exfat" {
		fsckExFAT(t, img, 0)
	} else {
		fsckClean(t, img, 0)
	}
	out := t.TempDir()
	for name, src := range kept {
		dst := filepath.Join(out, filepath.Base(src))
		ok(t, "fcp", "-i", img, name, dst)
		a, _ := os.ReadFile(src)
		b, _ := os.ReadFile(dst)
		if !bytes.Equal(a, b) {
			t.Errorf("%s reads back different after ftrim", name)
		}
	}
}

// ftrim punches the free clusters out of an image: du drops by the free
// space that held old data, every file reads back, and the checkers pass.
func TestFtrimImageFile(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			img, kept, removed := usedImage(t, typ)
			before := usedBytes(t, img)
			var dry trimJSON
			jsonOut(t, &dry, "ftrim", "--json", "--dry-run", img)
			if !dry.DryRun || dry.Bytes < removed || usedBytes(t, img) != before {
				t.Fatalf("--dry-run: %+v; allocation %d -> %d", dry, before, usedBytes(t, img))
			}
			var res trimJSON
			jsonOut(t, &res, "ftrim", "--json", img)
			after := usedBytes(t, img)
			if before-after < removed-slack {
				t.Errorf("allocation %d -> %d bytes: dropped by %d, want at least the %d bytes removed", before, after, before-after, removed)
			}
			if !res.Punched || res.Bytes != dry.Bytes || res.Runs == 0 || res.ExitStatus != 0 {
				t.Errorf("ftrim --json: %+v (dry run said %+v)", res, dry)
			}
			checkVolume(t, typ, img, kept)
			// A second run finds the same runs free and changes nothing more.
			ok(t, "ftrim", img)
			if a := usedBytes(t, img); a > after {
				t.Errorf("allocation grew on a second run: %d -> %d", after, a)
			}
		})
	}
}

// --minimum leaves runs shorter than it (two removed files of 8 MiB; the
// third lies next to the free space after it).
func TestFtrimMinimum(t *testing.T) {
	img, _, _ := usedImage(t, "fat")
	var all, big trimJSON
	jsonOut(t, &all, "ftrim", "--json", "-n", img)
	jsonOut(t, &big, "ftrim", "--json", "-n", "--minimum", "10M", img)
	if big.Runs >= all.Runs || big.Skipped == 0 || big.Runs+big.Skipped != all.Runs || big.Bytes < 16<<20 {
		t.Errorf("--minimum 10M: %+v; without: %+v", big, all)
	}
	before := readImage(t, img)
	ok(t, "ftrim", "--minimum", "10M", img)
	after := readImage(t, img)
	if bytes.Equal(before, after) {
		t.Errorf("ftrim --minimum 10M changed nothing")
	}
	if r := run(t, "ftrim", "--minimum", "lots", img); r.code != 1 || !bytes.Contains([]byte(r.stderr), []byte("--minimum")) {
		t.Errorf("--minimum lots: exit %d, %q", r.code, r.stderr)
	}
}

// A volume fverify calls damaged is refused with exit status 4 and left
// byte for byte as it was.
func TestFtrimRefusesDamaged(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			img, _, _ := usedImage(t, typ)
			damageAllocation(t, img, "F0.BIN")
			before := readImage(t, img)
			r := run(t, "ftrim", img)
			if r.code != 4 || !bytes.Contains([]byte(r.stderr), []byte("damaged")) {
				t.Errorf("ftrim of a damaged volume: exit %d, %q", r.code, r.stderr)
			}
			if !bytes.Equal(before, readImage(t, img)) {
				t.Errorf("the refusal changed the image")
			}
		})
	}
}

// damageAllocation makes a used cluster look free in one allocation
// structure, the damage a trim must not trust: on FAT, the file name's
// first cluster becomes free in FAT 2 alone; on exFAT, in the bitmap.
func damageAllocation(t *testing.T, img, name string) {
	t.Helper()
	dev, err := fio.Open(img, fio.Options{Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := v.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	c := v.Entry(fi).FirstCluster
	var off int64
	var zap func(b []byte)
	if f := vol.AsFAT(v); f != nil {
		width := int64(2) // FAT16
		switch f.Layout().Type {
		case fat.FAT32:
			width = 4
		case fat.FAT12:
			t.Fatal("damageAllocation does not do FAT12")
		}
		off = dev.Start() + f.Layout().FATCopyOffset(1) + int64(c)*width
		zap = func(b []byte) { clear(b[:width]) }
	} else {
		bm, _ := vol.AsExFAT(v).SystemEntries()
		off = dev.Start() + v.ClusterOffset(uint32(bm.FirstCluster)) + int64(c-2)/8
		zap = func(b []byte) { b[0] &^= 1 << ((c - 2) % 8) }
	}
	v.Close()
	dev.Close()
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	zap(b)
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// On a loop device ftrim issues BLKDISCARD, which the loop driver turns
// into holes punched in the backing file.
func TestFtrimLoopDevice(t *testing.T) {
	for _, typ := range []string{"fat", "exfat"} {
		t.Run(typ, func(t *testing.T) {
			img, kept, removed := usedImage(t, typ)
			dev := attach(t, img, 512)
			before := usedBytes(t, img)
			var res trimJSON
			jsonOut(t, &res, "ftrim", "--json", "--stats", dev)
			if res.Punched || res.Unsupported || res.Bytes < removed {
				t.Errorf("ftrim %s: %+v", dev, res)
			}
			run(t, "losetup", "-d", dev)
			if after := usedBytes(t, img); before-after < removed-slack {
				t.Errorf("backing file allocation %d -> %d: dropped by %d, want at least %d", before, after, before-after, removed)
			}
			checkVolume(t, typ, img, kept)
		})
	}
}
