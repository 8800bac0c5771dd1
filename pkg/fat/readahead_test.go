package fat

import (
	"bytes"
	"errors"
	"github.com/ftools/ftools/pkg/internal/readahead"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// raVolume is a FAT16 volume in an image file opened with a small I/O size
// (64 KiB), so that requests split and merge at sizes a test can reach.
func raVolume(t *testing.T) (*Volume, *fio.Device) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "ra.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true, IOSize: 64 << 10, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	if _, _, err := Format(dev, FormatParams{Size: 64 << 20, Type: FAT16, ClusterSize: 4096, AlignData: true}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return v, dev
}

func raPut(t *testing.T, v *Volume, name string, data []byte) {
	t.Helper()
	w, err := v.Create(name, int64(len(data)), time.Unix(0, 0))
	voltest.Put(t, w, err, data)
}

// ReadAhead gives back every file's bytes, whatever their size, layout and
// the order they are taken in; small neighbours share requests, large
// files go out in requests of the I/O size with several in flight.
func TestReadAhead(t *testing.T) {
	v, dev := raVolume(t)
	rng := rand.New(rand.NewSource(1))
	data := map[string][]byte{}
	put := func(name string, n int) {
		b := make([]byte, n)
		rng.Read(b)
		data[name] = b
		raPut(t, v, name, b)
	}
	for i, n := range []int{1, 4095, 4096, 4097, 10000, 0, 300} {
		put(string(rune('a'+i))+".bin", n)
	}
	put("big.bin", 1<<20+123)
	// A fragmented file: first-fit fills a two-cluster hole, then goes on
	// after the next file.
	put("gap1.bin", 8192)
	put("gap2.bin", 8192)
	hole, _, err := v.dataExtents("gap1.bin")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("gap1.bin"); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	v.SetAllocPolicy(AllocFirstFit)
	v.cursor = hole[0].Start
	put("frag.bin", 64<<10)
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if exts, _, _ := v.dataExtents("frag.bin"); len(exts) < 2 {
		t.Fatalf("frag.bin is not fragmented: %v", exts)
	}
	names := []string{"a.bin", "b.bin", "c.bin", "d.bin", "e.bin", "f.bin", "g.bin", "big.bin", "frag.bin", "missing.bin", "gap2.bin"}

	before := dev.Stats()
	ra := readahead.NewFunc(v.dev, len(names), func(i int) readahead.Source { return v.AheadSource(names[i]) }, readahead.Options{Workers: 3})
	defer ra.Close()
	for i, name := range names {
		f, err := ra.File(i)
		if name == "missing.bin" {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("missing.bin: %v, want not exist", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []byte
		if i%2 == 0 {
			got, err = io.ReadAll(f)
		} else {
			for {
				b, cerr := f.Chunk()
				if cerr == io.EOF {
					break
				}
				if cerr != nil {
					err = cerr
					break
				}
				got = append(got, b...)
			}
		}
		if err != nil || !bytes.Equal(got, data[name]) {
			t.Fatalf("%s: %d bytes (%v), want the %d written", name, len(got), err, len(data[name]))
		}
	}
	st := dev.Stats()
	reads := st.ReadRequests - before.ReadRequests
	// a-g (about 27 KiB, adjacent) share one request; big.bin needs 17 of
	// 64 KiB; frag.bin and gap2.bin 3 or 4 more.
	if reads > 24 {
		t.Errorf("%d read requests, want at most 24 (small neighbours merged, 64 KiB requests)", reads)
	}
	if st.MaxReadsInFlight < 2 {
		t.Errorf("at most %d read in flight, want 2 or more", st.MaxReadsInFlight)
	}
	t.Logf("%d reads of %d bytes, up to %d in flight", reads, st.ReadBytes-before.ReadBytes, st.MaxReadsInFlight)
}

// Files skipped over are dropped, also half-read ones; taking files out of
// order is an error; Close stops everything.
func TestReadAheadSkip(t *testing.T) {
	v, _ := raVolume(t)
	var all [][]byte
	var names []string
	for i := range 20 {
		b := bytes.Repeat([]byte{byte(i)}, 50000+i)
		all = append(all, b)
		name := string(rune('a'+i)) + ".bin"
		names = append(names, name)
		raPut(t, v, name, b)
	}
	ra := readahead.NewFunc(v.dev, len(names), func(i int) readahead.Source { return v.AheadSource(names[i]) }, readahead.Options{Workers: 2, Buffers: 3})
	f, err := ra.File(1)
	if err != nil {
		t.Fatal(err)
	}
	half := make([]byte, 1000)
	if _, err := io.ReadFull(f, half); err != nil || !bytes.Equal(half, all[1][:1000]) {
		t.Fatalf("first 1000 bytes of b.bin: %v", err)
	}
	for _, i := range []int{7, 19} {
		f, err := ra.File(i)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, all[i]) {
			t.Fatalf("file %d after skipping: %d bytes, %v", i, len(got), err)
		}
	}
	if _, err := ra.File(3); err == nil {
		t.Fatal("File(3) after File(19): no error")
	}
	ra.Close()
	ra.Close()

	// Closing in the middle, with reads in flight, returns.
	ra = readahead.NewFunc(v.dev, len(names), func(i int) readahead.Source { return v.AheadSource(names[i]) }, readahead.Options{})
	if f, err := ra.File(0); err != nil {
		t.Fatal(err)
	} else if _, err := f.Chunk(); err != nil {
		t.Fatal(err)
	}
	ra.Close()
	if _, err := ra.File(5); !errors.Is(err, readahead.ErrClosed) {
		t.Fatalf("File after Close: %v", err)
	}
}
