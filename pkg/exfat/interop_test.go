package exfat

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// TestWriteIntoMkfsVolumes opens volumes mkfs.exfat made (default layout,
// small clusters, --pack-bitmap), writes a tree into them, and holds the
// result to fsck.exfat and dump.exfat.
func TestWriteIntoMkfsVolumes(t *testing.T) {
	for _, args := range [][]string{
		{"-L", "mkfs"},
		{"-c", "512"},
		{"-c", "1M", "-b", "64K"},
		{"--pack-bitmap"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			img := newImage(t, 48<<20)
			if out, err := runTool(t, "mkfs.exfat", append(args, img)...); err != nil {
				t.Fatalf("mkfs.exfat: %v\n%s", err, out)
			}
			v := openVol(t, img, true)
			if len(v.Warnings()) > 0 {
				t.Errorf("warnings on a fresh volume: %v", v.Warnings())
			}
			if err := v.MkdirAll("x/y", testTime); err != nil {
				t.Fatal(err)
			}
			for i := range 30 {
				writeFile(t, v, fmt.Sprintf("x/y/file %d", i), pattern(uint64(i), i*700), int64(i*700))
			}
			writeInterleaved(t, v, "p", "q", 5)
			free := v.FreeClusters()
			closeVol(t, v)
			fsckClean(t, img)
			if got := dumpFree(t, img); got != free {
				t.Errorf("dump.exfat counts %d free clusters, ftools %d", got, free)
			}
			v = openVol(t, img, false)
			defer closeVol(t, v)
			for i := range 30 {
				if !bytes.Equal(readFile(t, v, fmt.Sprintf("x/y/file %d", i)), pattern(uint64(i), i*700)) {
					t.Fatalf("file %d reads back wrong", i)
				}
			}
		})
	}
}

// TestRepairedByFsck reads a volume after fsck.exfat repaired it (another
// writer): a file whose clusters the bitmap lost.
func TestRepairedByFsck(t *testing.T) {
	img := baseImage(t)
	_, r := recordOffset(t, img, "b.bin")
	patchBitmap(t, img, r.Set.Stream.FirstCluster, false)
	// fsck.exfat -y exits 1, "errors corrected", after marking it in use.
	if out, _ := runTool(t, "fsck.exfat", "-y", img); !bytes.Contains([]byte(out), []byte("marked as free")) {
		t.Fatalf("fsck.exfat -y did not see the damage:\n%s", out)
	}
	fsckClean(t, img)
	rep := checkImage(t, img)
	if !rep.Clean() {
		t.Fatalf("after fsck.exfat -y: %v", rep.Problems)
	}
	v := openVol(t, img, false)
	defer closeVol(t, v)
	if !bytes.Equal(readFile(t, v, "b.bin"), pattern(2, 50000)) {
		t.Fatal("b.bin reads back wrong after fsck.exfat's repair")
	}
}

// TestSectorSize4096 makes and fills a volume of 4096-byte sectors.
func TestSectorSize4096(t *testing.T) {
	img := formatImage(t, 64<<20, FormatParams{SectorSize: 4096, Label: "4K"})
	v := openVol(t, img, true)
	if v.Layout().SectorSize != 4096 {
		t.Fatalf("sector size %d", v.Layout().SectorSize)
	}
	if err := v.Mkdir("d", testTime); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		writeFile(t, v, fmt.Sprintf("d/a rather long file name %d", i), pattern(uint64(i), 3*i), 0)
	}
	closeVol(t, v)
	fsckClean(t, img)
	rep := checkImage(t, img)
	if !rep.Clean() {
		t.Fatal(rep.Problems)
	}
}

// TestReproducible runs the same writes twice with a fixed clock and
// serial and compares the images.
func TestReproducible(t *testing.T) {
	sum := func() [32]byte {
		img := formatImage(t, 16<<20, FormatParams{Label: "SAME", Serial: 42})
		v := openVol(t, img, true)
		if err := v.MkdirAll("a/b", testTime); err != nil {
			t.Fatal(err)
		}
		writeFile(t, v, "a/b/c", pattern(1, 12345), 0)
		writeInterleaved(t, v, "x", "y", 3)
		if err := v.Rename("x", "a/x"); err != nil {
			t.Fatal(err)
		}
		closeVol(t, v)
		f, err := os.Open(img)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			t.Fatal(err)
		}
		return [32]byte(h.Sum(nil))
	}
	if a, b := sum(), sum(); a != b {
		t.Fatal("two runs with the same clock and serial made different images")
	}
}

// TestBarriers counts the flushes a commit issues under each sync policy:
// data, bitmap/FAT and entries are separated by barriers, and Close
// flushes after clearing the dirty flag.
func TestBarriers(t *testing.T) {
	for _, tc := range []struct {
		policy fio.SyncPolicy
		min    int64
	}{
		{fio.SyncNone, 0},
		{fio.SyncClose, 4},
		{fio.SyncFile, 5},
	} {
		img := formatImage(t, 16<<20, FormatParams{})
		d, err := fio.Open(img, fio.Options{Write: true, Buffered: true, Sync: tc.policy})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Open(d)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, v, "f", pattern(1, 10000), 10000)
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		st := d.Stats()
		d.Close()
		if tc.policy == fio.SyncNone && st.Flushes != 0 || st.Flushes < tc.min {
			t.Errorf("sync %v: %d flushes, want at least %d", tc.policy, st.Flushes, tc.min)
		}
		fsckClean(t, img)
	}
}
