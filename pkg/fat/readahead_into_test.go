package fat

import (
	"bytes"
	"io"
	"testing"

	"golang.org/x/sys/unix"
)

// pageMem is page-aligned memory, as the map of a host file is.
func pageMem(t *testing.T, n int) []byte {
	t.Helper()
	m, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	return m
}

// readInto takes a file's chunks as a copy-out does with a target: a chunk
// read in place must already be where it belongs; any other is copied.
// It returns the bytes that came in place.
func readInto(t *testing.T, f *AheadFile, dst []byte) int {
	t.Helper()
	off, placed := 0, 0
	for {
		b, err := f.Chunk()
		if err == io.EOF {
			return placed
		}
		if err != nil {
			t.Fatal(err)
		}
		if off+len(b) > len(dst) {
			t.Fatalf("chunk of %d bytes at %d runs past the file's %d", len(b), off, len(dst))
		}
		if &b[0] == &dst[off] {
			placed += len(b)
		} else {
			copy(dst[off:], b)
		}
		off += len(b)
	}
}

// Into reads a large file's aligned requests straight into the target and
// hands out every byte right: the head that was read before the target
// was named, an unaligned tail, a fragmented file, a target that does not
// start at a page (nothing in place, all copied), a target dropped in the
// middle, and Close with reads going to a target.
func TestReadAheadInto(t *testing.T) {
	v, _ := raVolume(t)
	data, put := raWriter(t, v, 2)
	put("small.bin", 3000)
	put("big.bin", 2<<20+123)
	raFragmented(t, v, put, 1<<20)
	put("odd.bin", 1<<20)
	put("half.bin", 1<<20)
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	names := []string{"small.bin", "big.bin", "frag.bin", "odd.bin", "half.bin", "gap2.bin"}
	ra := v.ReadAhead(names, ReadAheadOptions{Workers: 3, Buffers: 4})
	defer ra.Close()
	placed := map[string]int{}
	for i, name := range names {
		f, err := ra.File(i)
		if err != nil {
			t.Fatal(err)
		}
		want := data[name]
		var dst []byte
		switch name {
		case "odd.bin":
			dst = pageMem(t, len(want)+4096)[512 : 512+len(want)]
		default:
			dst = pageMem(t, len(want))
		}
		before := ra.PlacedBytes()
		if err := f.Into(dst); err != nil {
			t.Fatal(err)
		}
		if name == "half.bin" {
			// Half in place, then the target is dropped: the rest
			// comes through the buffers.
			head := make([]byte, len(want)/2)
			if _, err := io.ReadFull(f, head); err != nil {
				t.Fatal(err)
			}
			if err := f.Into(nil); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(head, rest...), want) {
				t.Fatal("half.bin differs after its target was dropped")
			}
			continue
		}
		placed[name] = readInto(t, f, dst)
		if !bytes.Equal(dst, want) {
			t.Fatalf("%s differs read into its target", name)
		}
		if got := ra.PlacedBytes() - before; got < int64(placed[name]) {
			t.Errorf("%s: %d bytes handed out in place, %d counted", name, placed[name], got)
		}
	}
	// big.bin: 33 requests of 64 KiB, 4 buffers; the ones read before
	// Into and the 123-byte tail come through the buffers.
	if placed["big.bin"] < 2<<20-8*64<<10 {
		t.Errorf("big.bin: %d of %d bytes in place, want all but a few requests", placed["big.bin"], len(data["big.bin"]))
	}
	if placed["frag.bin"] == 0 {
		t.Error("frag.bin: nothing in place")
	}
	if placed["odd.bin"] != 0 || placed["small.bin"] != 0 {
		t.Errorf("in place: %d bytes of odd.bin (target off a page), %d of small.bin (shares a request); want none", placed["odd.bin"], placed["small.bin"])
	}

	// Close while reads go to a target: it waits for them and returns.
	ra2 := v.ReadAhead([]string{"big.bin"}, ReadAheadOptions{Workers: 3, Buffers: 2})
	f, err := ra2.File(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Into(pageMem(t, len(data["big.bin"]))); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Chunk(); err != nil {
		t.Fatal(err)
	}
	ra2.Close()
	if err := f.Into(nil); err == nil {
		t.Error("Into after Close: no error")
	}
}
