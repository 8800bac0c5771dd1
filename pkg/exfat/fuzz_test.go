package exfat

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// The fuzz targets are seeded from testdata, which TestMakeTestdata
// writes when FTOOLS_UPDATE_TESTDATA=1:
//
//	boot.bin      the boot sector of a 64 MiB volume as Format writes it
//	root.bin      a root directory cluster with system entries and sets
//	volume.img.gz a 1 MiB volume of 512-byte clusters holding files, a
//	              directory and a fragmented file, all in its first 64 KiB

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b := voltest.ReadFile(tb, filepath.Join("testdata", name))
	if filepath.Ext(name) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			tb.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// TestMakeTestdata regenerates the fuzz seeds (FTOOLS_UPDATE_TESTDATA=1)
// and otherwise checks that they still decode.
func TestMakeTestdata(t *testing.T) {
	if os.Getenv("FTOOLS_UPDATE_TESTDATA") == "1" {
		img := formatImage(t, 1<<20, FormatParams{ClusterSize: 512, Align: 4096, Label: "FUZZ", Serial: 7})
		v := openVol(t, img, true)
		if err := v.Mkdir("dir", testTime); err != nil {
			t.Fatal(err)
		}
		writeFile(t, v, "dir/a file with a long name.txt", []byte("hello"), 5)
		writeInterleaved(t, v, "frag1", "frag2", 3)
		writeFile(t, v, "Ünïcödé", pattern(1, 2000), 0)
		closeVol(t, v)
		raw, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(raw)
		zw.Close()
		v = openVol(t, img, false)
		l := v.Layout()
		root := raw[l.ClusterOffset(l.RootCluster) : l.ClusterOffset(l.RootCluster)+l.ClusterSize]
		closeVol(t, v)
		bs, _, _ := Plan(FormatParams{Size: 64 << 20, Serial: 1})
		boot := EncodeBootRegion(bs)[:512]
		for name, b := range map[string][]byte{"boot.bin": boot, "root.bin": root, "volume.img.gz": gz.Bytes()} {
			if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := DecodeBootSector(readTestdata(t, "boot.bin")); err != nil {
		t.Fatal(err)
	}
	if pd := parseDir(readTestdata(t, "root.bin"), DefaultUpcase(), true); len(pd.recs) == 0 || len(pd.probs) > 0 {
		t.Fatalf("root.bin: %d sets, problems %v", len(pd.recs), pd.probs)
	}
	// The whole volume lies in the head FuzzVolume fuzzes.
	img := readTestdata(t, "volume.img.gz")
	if len(img) != fuzzVolumeSize || bytes.Count(img[fuzzHead:], []byte{0}) != len(img)-fuzzHead {
		t.Fatalf("volume.img.gz: %d bytes, data past the first %d", len(img), fuzzHead)
	}
}

func FuzzDecodeBootSector(f *testing.F) {
	f.Add(readTestdata(f, "boot.bin"))
	f.Add(readTestdata(f, "volume.img.gz")[:fuzzHead])
	f.Fuzz(func(t *testing.T, b []byte) {
		bs, err := DecodeBootSector(b)
		if err != nil {
			return
		}
		_ = bs.Warnings()
		l, err := bs.Layout()
		if err != nil {
			t.Fatalf("decoded sector without a layout: %v", err)
		}
		if l.HeapEnd() > l.TotalSize || l.FATOffset+l.FATSize*int64(l.NumFATs) > l.HeapOffset || int64(l.Clusters)+2 > l.FATSize/4 {
			t.Fatalf("inconsistent layout accepted: %+v", l)
		}
		out := make([]byte, 512)
		bs.Encode(out)
		again, err := DecodeBootSector(out)
		if err != nil || *again != *bs {
			t.Fatalf("round trip: %+v %v", again, err)
		}
	})
}

func FuzzEntrySet(f *testing.F) {
	f.Add(readTestdata(f, "root.bin"))
	root := readTestdata(f, "root.bin")
	for i := 0; i+EntrySize <= len(root); i += EntrySize {
		if root[i] == TypeFile {
			f.Add(root[i:])
		}
	}
	up := DefaultUpcase()
	f.Fuzz(func(t *testing.T, b []byte) {
		pd := parseDir(b, up, true)
		for _, r := range pd.recs {
			if r.Slot < 0 || (r.Slot+r.Slots)*EntrySize > len(b) {
				t.Fatalf("record %+v outside %d bytes", r, len(b))
			}
		}
		s, n, err := DecodeEntrySet(b, 0)
		if err != nil {
			return
		}
		if s.CheckNameHash(up, 0) != nil {
			return
		}
		if enc := s.Encode(up); !bytes.Equal(enc, b[:n*EntrySize]) && len(s.Extra) == 0 {
			// Re-encoding zeroes reserved bytes; the set must still decode
			// to the same fields.
			again, _, err := DecodeEntrySet(enc, 0)
			if err != nil || again.Stream != s.Stream || again.File.Attr != s.File.Attr || decodeName(again.Name) != decodeName(s.Name) {
				t.Fatalf("round trip: %+v %v", again, err)
			}
		}
		_ = findFreeSlots(b, 3, 0, 16)
	})
}

// fuzzVolumeSize is the size of the seed volume FuzzVolume damages; all
// of its data lies in its first fuzzHead bytes.
const (
	fuzzVolumeSize = 1 << 20
	fuzzHead       = 64 << 10
)

// FuzzVolume opens damaged volumes: reading every file, checking, and
// writing must end in errors, never a panic, a hang or a huge allocation.
// The input is a list of edits to the seed volume, 4 bytes each: a 20-bit
// byte offset (little-endian, the top 4 bits ignored) and the byte to
// store there. Small inputs keep the fuzzer fast, and every mutation lands
// on a real structure.
func FuzzVolume(f *testing.F) {
	base := readTestdata(f, "volume.img.gz")
	f.Add([]byte{})
	v, err := Open(voltest.MemDevice(f, base))
	if err != nil {
		f.Fatal(err)
	}
	l := v.Layout()
	for _, off := range []int64{offClusterCount, offRootCluster, l.FATOffset + 4*int64(l.RootCluster), l.ClusterOffset(v.bitmapEnt.FirstCluster), l.ClusterOffset(l.RootCluster) + 3*EntrySize + offSecondaryCount, l.ClusterOffset(l.RootCluster) + 4*EntrySize + offDataLength} {
		f.Add([]byte{byte(off), byte(off >> 8), byte(off >> 16), 0xFF})
	}
	f.Fuzz(func(t *testing.T, edits []byte) {
		if len(edits) > 4096 {
			return
		}
		exerciseVolume(t, applyEdits(base, edits))
	})
}

// applyEdits returns a copy of img with the edits made: 4 bytes each, a
// 20-bit byte offset (little-endian, the top 4 bits ignored, wrapped to
// the image) and the byte to store there.
func applyEdits(img, edits []byte) []byte {
	img = append([]byte(nil), img...)
	for i := 0; i+4 <= len(edits); i += 4 {
		off := int(uint32(edits[i]) | uint32(edits[i+1])<<8 | uint32(edits[i+2]&0x0F)<<16)
		img[off%len(img)] = edits[i+3]
	}
	return img
}

// exerciseVolume opens img and does what the commands do with a volume:
// read every file, check, write, remove, rename. Any of it may fail;
// none of it may panic, hang or allocate without bound.
func exerciseVolume(t *testing.T, img []byte) {
	dev := voltest.MemDevice(t, img)
	v, err := Open(dev)
	if err != nil {
		return
	}
	fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fl, err := v.Open(p); err == nil {
			io.Copy(io.Discard, io.LimitReader(fl, 1<<20))
			fl.Close()
		}
		return nil
	})
	if rep, err := Check(v, CheckOptions{MaxProblems: 50}); err == nil {
		_ = rep.Clean()
	}
	if w, err := v.Create("dir/new", 100, testTime); err == nil {
		w.Write([]byte("data"))
		w.Close()
	}
	v.Mkdir("newdir", testTime)
	v.RemoveAll("dir")
	v.RemoveAll("SUB")
	v.Rename("frag1", "moved")
	v.Rename("HELLO.TXT", "newdir/hello")
	v.Close()
}
