package fat

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"sync"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// damagedCorpus is the corpus of damaged and hostile images the end-to-end
// tests run every command over (see its README.md).
const damagedCorpus = "../../tests/testdata/damaged"

var (
	corpusOnce sync.Once
	corpusImgs [][]byte
)

// corpusMaxImage bounds the corpus images the fuzz targets start from: the
// larger class images (FAT16 of 8 MiB, FAT32 of 33 MiB, mostly zeros) would
// take gigabytes of memory, and their FAT12 twins hold the same damage.
const corpusMaxImage = 4 << 20

// corpusImages returns the gunzipped images of the damaged corpus up to
// corpusMaxImage bytes, sorted by name; none when the corpus is missing (a
// trimmed checkout). Callers must not modify them.
func corpusImages(tb testing.TB) [][]byte {
	tb.Helper()
	corpusOnce.Do(func() { corpusImgs = voltest.LoadCorpus(tb, damagedCorpus, corpusMaxImage) })
	return corpusImgs
}

// sectorOf returns the 512 bytes at sector n of img, zero-padded.
func sectorOf(img []byte, n int) []byte {
	s := make([]byte, 512)
	if off := n * 512; off < len(img) {
		copy(s, img[off:])
	}
	return s
}

// addCorpusSectors adds sector n of every corpus image as a seed of a target
// that takes one []byte. FuzzDecodeBootSector (n 0) and FuzzDecodeFSInfo
// (n 1) can call it to start from the corpus too.
func addCorpusSectors(f *testing.F, n int) {
	for _, img := range corpusImages(f) {
		f.Add(sectorOf(img, n))
	}
}

// FuzzCorpusSectors decodes boot sectors and FSINFO sectors seeded from the
// corpus: decoding never panics, and what decodes re-encodes to the same
// values.
func FuzzCorpusSectors(f *testing.F) {
	addCorpusSectors(f, 0)
	addCorpusSectors(f, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		if bs, err := DecodeBootSector(b); err == nil {
			_ = bs.Warnings()
			if l, err := bs.Layout(); err == nil && (l.DataOffset >= l.TotalSize || l.Clusters == 0) {
				t.Fatalf("inconsistent layout accepted: %+v", l)
			}
			out := make([]byte, 512)
			bs.Encode(out)
			again, err := DecodeBootSector(out)
			if err != nil {
				t.Fatalf("re-encoded boot sector does not decode: %v", err)
			}
			if again.TotalSectors() != bs.TotalSectors() || again.VolumeID != bs.VolumeID {
				t.Fatal("re-encoding changed the boot sector")
			}
		}
		if fi, err := DecodeFSInfo(b); err == nil {
			out := make([]byte, 512)
			fi.Encode(out)
			if got, err := DecodeFSInfo(out); err != nil || *got != *fi {
				t.Fatalf("FSINFO round trip: %v %v", got, err)
			}
		}
	})
}

// FuzzDirEntry decodes a 32-byte slot and encodes it again: every byte of a
// slot is a field, so the round trip is exact.
func FuzzDirEntry(f *testing.F) {
	seen := map[string]bool{}
	for _, img := range corpusImages(f) {
		for off := 0; off+DirEntrySize <= len(img) && off < 1<<20 && len(seen) < 300; off += DirEntrySize {
			s := img[off : off+DirEntrySize]
			// directory slots: a printable first byte or a deleted/LFN marker, and
			// zero where the LFN "type" and cluster fields must be zero
			if (s[0] >= 0x20 || s[0] == 0x05) && s[0] != 0xFF && s[11]&0xC0 == 0 && !seen[string(s)] {
				seen[string(s)] = true
				f.Add(bytes.Clone(s))
			}
		}
	}
	f.Add([]byte{})
	f.Add([]byte("SHORT"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e := DecodeDirEntry(b)
		want := make([]byte, DirEntrySize)
		copy(want, b)
		out := make([]byte, DirEntrySize)
		e.Encode(out)
		if !bytes.Equal(out, want) {
			t.Fatalf("round trip:\n got % x\nwant % x", out, want)
		}
		if DecodeDirEntry(out) != e {
			t.Fatal("decode(encode(e)) != e")
		}
		if e.IsLongName() && (e.IsDir() || e.IsLabel()) {
			t.Fatalf("attr %#x: a long-name slot taken for a directory or label", e.Attr)
		}
		_ = e.ShortNameOf().String()
		_ = e.ShortNameOf().Label()
		_ = e.ModTimeValue()
		_ = e.CreateTimeValue()
		_ = e.AccessTimeValue()
	})
}

// Bounds of FuzzVolume's own walk. The fs.FS API names entries by path, so a
// directory that contains its own ancestor is an endless tree; the walk
// stops there, and Check (which must bound itself) still runs.
const (
	fuzzWalkEntries = 20000
	fuzzWalkDepth   = 64
	fuzzMaxImage    = 8 << 20
	// fuzzSeedImage keeps the FAT16 and FAT32 images (2-5 MiB) out of the
	// seeds: with them, gathering the baseline coverage alone takes longer
	// than scripts/test's 5 s (TestDamagedCorpus runs them all).
	fuzzSeedImage = 1 << 20
)

// FuzzVolume opens an image held in memory, walks it with fs.WalkDir
// reading every file, and checks it: none of this may panic or hang, and no
// file may yield more bytes than the image holds.
func FuzzVolume(f *testing.F) {
	for _, img := range corpusImages(f) {
		if len(img) <= fuzzSeedImage {
			f.Add(img)
		}
	}
	for _, b := range fuzzImages(f) {
		f.Add(bytes.Clone(b.img))
	}
	f.Fuzz(func(t *testing.T, img []byte) {
		if len(img) > fuzzMaxImage {
			return
		}
		if v, err := Open(memDevice(t, img)); err == nil {
			walkVolume(t, v, int64(len(img)))
		}
		v, bootErr, err := OpenForCheck(memDevice(t, img))
		if err != nil {
			return
		}
		rep, err := Check(v, CheckOptions{BootError: bootErr})
		if err != nil {
			t.Fatalf("Check on a memory device: %v", err)
		}
		for _, p := range rep.Problems {
			_ = p.String()
		}
	})
}

// walkVolume reads the tree of v within the walk's bounds.
func walkVolume(t *testing.T, v *Volume, imgSize int64) {
	entries := 0
	err := fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entries++; entries > fuzzWalkEntries {
			return fs.SkipAll
		}
		if d.IsDir() {
			if corpusDepth(p) > fuzzWalkDepth {
				return fs.SkipDir
			}
			return nil
		}
		if _, err := d.Info(); err != nil {
			return nil
		}
		file, err := v.Open(p)
		if err != nil {
			return nil
		}
		defer file.Close()
		n, _ := io.Copy(io.Discard, io.LimitReader(file, imgSize+1))
		if n > imgSize {
			t.Fatalf("%s: read more than the %d bytes of the image", p, imgSize)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		t.Logf("walk: %v", err)
	}
}

func corpusDepth(p string) int {
	n := 0
	for _, c := range p {
		if c == '/' {
			n++
		}
	}
	return n
}

// addCorpusRootDirs adds the first 4 KiB of each corpus image's root
// directory (where its boot sector can say where that is), so that the
// long-name assembly fuzzer starts from the damaged directories too.
func addCorpusRootDirs(f *testing.F) {
	for _, img := range corpusImages(f) {
		bs, err := DecodeBootSector(img)
		if err != nil {
			continue
		}
		l, err := bs.Layout()
		if err != nil {
			continue
		}
		off := l.RootDirOffset
		if l.Type == FAT32 {
			off = l.ClusterOffset(l.RootCluster)
		}
		if off <= 0 || off >= int64(len(img)) {
			continue
		}
		f.Add(img[off:min(off+4096, int64(len(img)))])
	}
}
