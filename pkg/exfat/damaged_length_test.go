package exfat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// heapGuard fails the test process, naming the test, as soon as the heap
// holds more than limit bytes: a walk sized from a damaged length would
// otherwise take the machine's memory before any assertion is reached.
// It counts bytes, not time; the poll only decides when it looks.
func heapGuard(t *testing.T, limit uint64) (stop func()) {
	done := make(chan struct{})
	name := t.Name()
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > limit {
				panic(fmt.Sprintf("%s: the heap grew to %d MiB (limit %d MiB)", name, ms.HeapAlloc>>20, limit>>20))
			}
		}
	}()
	return func() { close(done) }
}

// rootEntryOffset is the byte offset of the first root entry of type typ.
func rootEntryOffset(t *testing.T, img string, typ byte) int64 {
	t.Helper()
	v := openVol(t, img, false)
	defer closeVol(t, v)
	d := v.root()
	for slot := 0; slot < len(d.raw)/EntrySize; slot++ {
		if d.raw[slot*EntrySize] == typ {
			return d.entryOffset(slot)
		}
	}
	t.Fatalf("no root entry of type %#x", typ)
	return 0
}

// TestCheckBitmapLengthPastHeapWithLoop: a bitmap entry whose DataLength
// is 2^60 and whose FAT chain loops is reported, in bounded memory. The
// walk used to be sized from the length (2^48 clusters) and appended a
// run per step round the loop until memory ran out.
func TestCheckBitmapLengthPastHeapWithLoop(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	off := rootEntryOffset(t, img, TypeBitmap)
	v := openVol(t, img, false)
	l := v.Layout()
	first := v.bitmapEnt.FirstCluster
	closeVol(t, v)
	patchImage(t, img, off+offDataLength, binary.LittleEndian.AppendUint64(nil, 1<<60))
	patchImage(t, img, l.FATOffset+4*int64(first), binary.LittleEndian.AppendUint32(nil, uint32(first)))

	defer heapGuard(t, 256<<20)()
	rep := checkImage(t, img)
	var found bool
	for _, p := range rep.Problems {
		if p.Kind == KindBitmap && strings.Contains(p.Message, "DataLength 1152921504606846976 exceeds the cluster heap") {
			found = true
			if p.Offset != off+offDataLength {
				t.Errorf("problem at byte %d, want the DataLength field at %d", p.Offset, off+offDataLength)
			}
		}
	}
	if !found {
		t.Fatalf("Check did not report the bitmap's DataLength: %v", rep.Problems)
	}
}

// TestChainWalkLoopBounded: a walk asked for far more clusters than the
// heap has, round a looping chain, ends at the loop with few runs.
func TestChainWalkLoopBounded(t *testing.T) {
	img := baseImage(t)
	_, r := recordOffset(t, img, "frag.bin")
	v := openVol(t, img, false)
	l := v.Layout()
	c := r.Set.Stream.FirstCluster
	closeVol(t, v)
	exts0, _ := func() ([]Extent, error) {
		v := openVol(t, img, false)
		defer closeVol(t, v)
		return v.fat.chainAll(l, c, uint64(l.Clusters))
	}()
	// The chain's last cluster links back to its first.
	last := exts0[len(exts0)-1].End() - 1
	patchImage(t, img, l.FATOffset+4*int64(last), binary.LittleEndian.AppendUint32(nil, uint32(c)))

	defer heapGuard(t, 256<<20)()
	v = openVol(t, img, false)
	defer closeVol(t, v)
	for _, exact := range []bool{false, true} {
		exts, err := v.fat.walk(l, c, 1<<50, exact)
		if !errors.Is(err, errChainLoop) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("exact=%v: error %v, want a loop", exact, err)
		}
		if n := extentsClusters(exts); n > 4*extentsClusters(exts0)+2 {
			t.Errorf("exact=%v: %d clusters in %d runs for a chain of %d", exact, n, len(exts), extentsClusters(exts0))
		}
	}
}

// TestDataLengthPastHeap: a file whose DataLength exceeds the cluster
// heap is damage named with the value and where it lies, for reading,
// listing, removing and checking; 2^64-1 used to wrap round to 0
// clusters and read as an empty file.
func TestDataLengthPastHeap(t *testing.T) {
	for _, length := range []uint64{math.MaxUint64, math.MaxUint64 - 4094, 1 << 60, 1<<63 + 5} {
		t.Run(fmt.Sprint(length), func(t *testing.T) {
			img := baseImage(t)
			off, _ := recordOffset(t, img, "b.bin")
			set := voltest.ReadFileAt(t, img, off, 3*EntrySize)
			binary.LittleEndian.PutUint64(set[EntrySize+offDataLength:], length)
			binary.LittleEndian.PutUint16(set[offSetChecksum:], SetChecksum(set))
			patchImage(t, img, off, set)
			field := off + EntrySize + offDataLength
			want := fmt.Sprintf("DataLength %d at %#x: exceeds the cluster heap", length, field)
			named := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want ErrCorrupt with %q", what, err, want)
				}
			}

			v := openVol(t, img, false)
			_, err := v.Open("b.bin")
			named("Open", err)
			_, err = v.Stat("b.bin")
			named("Stat", err)
			ents, err := v.ReadDir(".")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				_, err := e.Info()
				switch e.Name() {
				case "b.bin":
					named("ReadDir Info", err)
					var pe *fs.PathError
					if !errors.As(err, &pe) || pe.Path != "/b.bin" {
						t.Errorf("ReadDir Info error %v does not name /b.bin", err)
					}
				default:
					if err != nil {
						t.Errorf("%s: %v", e.Name(), err)
					}
				}
			}
			if got := readFile(t, v, "dir/a.txt"); !bytes.Equal(got, pattern(1, 10000)) {
				t.Error("the other files no longer read")
			}
			closeVol(t, v)

			rep := checkImage(t, img)
			var found bool
			for _, p := range rep.Problems {
				if p.Kind == KindSize && p.Path == "/b.bin" && strings.Contains(p.Message, fmt.Sprintf("DataLength %d exceeds the cluster heap", length)) {
					found = true
				}
			}
			if !found {
				t.Errorf("Check: %v", rep.Problems)
			}

			before := voltest.ReadFileAt(t, img, 0, 16<<20)
			v = openVol(t, img, true)
			named("Remove", v.Remove("b.bin"))
			named("RemoveAll", v.RemoveAll("b.bin"))
			_, err = v.Fallocate("b.bin", 1<<20, FallocateOptions{})
			named("Fallocate", err)
			closeVol(t, v)
			if !bytes.Equal(voltest.ReadFileAt(t, img, 0, 16<<20), before) {
				t.Error("a refusal changed the image")
			}
		})
	}
}

// TestAllocationSkipsClustersFilesUse: clusters a file uses but the
// bitmap wrongly marks free are never handed out, by Mkdir, a new file's
// data or Fallocate (fsck.exfat -y keeps the file, so they are its); and
// their bits are left as they were, for fverify --repair to set.
func TestAllocationSkipsClustersFilesUse(t *testing.T) {
	data := pattern(7, 5000)
	for _, tc := range []struct {
		name string
		op   func(t *testing.T, v *Volume)
	}{
		{"mkdir", func(t *testing.T, v *Volume) {
			if err := v.Mkdir("d", testTime); err != nil {
				t.Fatal(err)
			}
		}},
		{"create", func(t *testing.T, v *Volume) { writeFile(t, v, "g", pattern(8, 9000), 0) }},
		{"fallocate", func(t *testing.T, v *Volume) {
			if _, err := v.Fallocate("h", 3*4096, FallocateOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory-growth", func(t *testing.T, v *Volume) {
			for i := range 200 { // 200 sets of 3 entries: more than one 4 KiB cluster
				writeFile(t, v, fmt.Sprintf("n%03d", i), nil, 0)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := formatImage(t, 16<<20, FormatParams{})
			v := openVol(t, img, true)
			writeFile(t, v, "f", data, 0)
			closeVol(t, v)
			_, r := recordOffset(t, img, "f")
			first := r.Set.Stream.FirstCluster
			patchBitmap(t, img, first, false)
			patchBitmap(t, img, first+1, false)

			v = openVol(t, img, true)
			tc.op(t, v)
			closeVol(t, v)

			v = openVol(t, img, false)
			if got := readFile(t, v, "f"); !bytes.Equal(got, data) {
				t.Errorf("f's bytes changed")
			}
			closeVol(t, v)
			rep := checkImage(t, img)
			if k := kinds(rep); k != KindFree {
				t.Errorf("Check found %q, want only the bitmap's free marks: %v", k, rep.Problems)
			}
		})
	}
}

// TestFallocateValidLength: Fallocate zeroes the new space and makes it
// valid data (Linux before 6.8 takes a file's size from its valid data
// length); with NoZero the valid data length stays and the space past it
// reads as zeros.
func TestFallocateValidLength(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	v := openVol(t, img, true)
	if _, err := v.Fallocate("new", 3<<20, FallocateOptions{}); err != nil {
		t.Fatal(err)
	}
	head := pattern(5, 513)
	writeFile(t, v, "grown", head, 0)
	if _, err := v.Fallocate("grown", 5<<20, FallocateOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "nozero", head, 0)
	if _, err := v.Fallocate("nozero", 1<<20, FallocateOptions{NoZero: true}); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	fsckClean(t, img)

	v = openVol(t, img, false)
	defer closeVol(t, v)
	for _, tc := range []struct {
		name        string
		size, valid uint64
	}{
		{"new", 3 << 20, 3 << 20},
		{"grown", 5 << 20, 5 << 20},
		{"nozero", 1 << 20, 513},
	} {
		fi, err := v.Stat(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		s := fi.Sys().(*Record).Set.Stream
		if s.DataLength != tc.size || s.ValidDataLength != tc.valid {
			t.Errorf("%s: DataLength %d, ValidDataLength %d; want %d, %d", tc.name, s.DataLength, s.ValidDataLength, tc.size, tc.valid)
		}
		got := readFile(t, v, tc.name)
		if uint64(len(got)) != tc.size {
			t.Errorf("%s reads %d bytes, want %d", tc.name, len(got), tc.size)
			continue
		}
		start := 0
		if tc.name != "new" {
			start = len(head)
			if !bytes.Equal(got[:start], head) {
				t.Errorf("%s: its first 513 bytes changed", tc.name)
			}
		}
		if bytes.Count(got[start:], []byte{0}) != len(got)-start {
			t.Errorf("%s: bytes past %d are not all zeros", tc.name, start)
		}
	}
}

// TestHugeLengthsAsked: a size near 2^63 asked of Fallocate or Create is
// more than the free space, and fails before anything is written; it used
// to wrap round to no clusters at all, and Fallocate wrote a file of that
// size with none.
func TestHugeLengthsAsked(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	before := voltest.ReadFileAt(t, img, 0, 16<<20)
	v := openVol(t, img, true)
	for _, n := range []int64{math.MaxInt64, math.MaxInt64 - 4094, 1 << 62} {
		_, err := v.Fallocate("x", n, FallocateOptions{})
		var ns *NoSpaceError
		if !errors.As(err, &ns) || ns.Need <= 0 {
			t.Errorf("Fallocate %d: %v, want no space with a positive need", n, err)
		}
		if _, err := v.Create("y", n, testTime); !errors.As(err, &ns) || ns.Need <= 0 {
			t.Errorf("Create with size hint %d: %v, want no space with a positive need", n, err)
		}
	}
	closeVol(t, v)
	if !bytes.Equal(voltest.ReadFileAt(t, img, 0, 16<<20), before) {
		t.Error("a refused request changed the image")
	}
}

// TestValidDataLengthPastSize: a ValidDataLength past the DataLength says
// nothing sure about which bytes were written; the file is refused by
// name rather than read (one of 2^63 or more used to read as all zeros),
// and Check reports it.
func TestValidDataLengthPastSize(t *testing.T) {
	for _, valid := range []uint64{50001, 1<<63 + 5, math.MaxUint64} {
		t.Run(fmt.Sprint(valid), func(t *testing.T) {
			img := baseImage(t)
			off, _ := recordOffset(t, img, "b.bin")
			set := voltest.ReadFileAt(t, img, off, 3*EntrySize)
			binary.LittleEndian.PutUint64(set[EntrySize+offValidLength:], valid)
			binary.LittleEndian.PutUint16(set[offSetChecksum:], SetChecksum(set))
			patchImage(t, img, off, set)
			want := fmt.Sprintf("ValidDataLength %d at %#x: exceeds the DataLength 50000", valid, off+EntrySize+offValidLength)
			v := openVol(t, img, false)
			_, err := v.Open("b.bin")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
				t.Errorf("Open: %v, want %q", err, want)
			}
			if _, err := v.Stat("b.bin"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Stat: %v", err)
			}
			closeVol(t, v)
			if k := kinds(checkImage(t, img)); !strings.Contains(k, KindSize) {
				t.Errorf("Check found %q", k)
			}
		})
	}
}

// TestRepairKeepsUnclaimedSystemClusters: an up-case table whose length
// is out of range has its clusters unclaimed; they look lost, but Repair
// must not free them (the table is still there, and the next allocation
// would overwrite it). It used to mark them free.
func TestRepairKeepsUnclaimedSystemClusters(t *testing.T) {
	img := baseImage(t)
	off := rootEntryOffset(t, img, TypeUpcase)
	patchImage(t, img, off+offDataLength, binary.LittleEndian.AppendUint64(nil, 1<<40))
	v := openVol(t, img, true)
	first := v.upcaseEnt.FirstCluster
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(v, rep, RepairOptions{}); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	if !v.bitmap.used(first) || !v.bitmap.used(first+1) {
		t.Errorf("Repair freed the up-case table's clusters %d..", first)
	}
}
