package exfat

import (
	"encoding/binary"
	"github.com/ftools/ftools/pkg/internal/voltest"
	"runtime"
	"runtime/debug"
	"testing"
)

// checkAllocBound is the most a check and repair of the 1 MiB seed volume
// may allocate, whatever its lengths and chains claim: a walk sized from a
// damaged DataLength, or one that appends a run per step round a loop,
// goes far past it.
const checkAllocBound = 256 << 20

// FuzzCheck edits the seed volume (as FuzzVolume does, 4 bytes an edit)
// and runs what fverify runs: OpenForCheck, Check, Repair, and Check
// again. None of it may panic or allocate past checkAllocBound (the
// process also runs under a soft memory limit, so that a leak shows as
// work for the collector before it takes the machine), and a repair that
// leaves nothing must leave a volume that checks clean.
func FuzzCheck(f *testing.F) {
	base := readTestdata(f, "volume.img.gz")
	v, err := Open(voltest.MemDevice(f, base))
	if err != nil {
		f.Fatal(err)
	}
	l := v.Layout()
	bm := v.bitmapEnt.FirstCluster
	root := v.root()
	var bmEntry, fileSet int64 = -1, -1
	for slot := 0; slot < len(root.raw)/EntrySize; slot++ {
		switch root.raw[slot*EntrySize] {
		case TypeBitmap:
			if bmEntry < 0 {
				bmEntry = root.entryOffset(slot)
			}
		case TypeFile:
			if fileSet < 0 {
				fileSet = root.entryOffset(slot)
			}
		}
	}
	v.Close()
	edit := func(off int64, b ...byte) []byte {
		var out []byte
		for i, x := range b {
			o := off + int64(i)
			out = append(out, byte(o), byte(o>>8), byte(o>>16), x)
		}
		return out
	}
	loop := binary.LittleEndian.AppendUint32(nil, uint32(bm))
	f.Add([]byte{})
	// The bitmap's DataLength 2^60, its chain looping on itself.
	f.Add(append(edit(bmEntry+offDataLength+7, 0x10), edit(l.FATOffset+4*int64(bm), loop...)...))
	// The bitmap's DataLength 2^64-1.
	f.Add(edit(bmEntry+offDataLength, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF))
	// A file's DataLength and ValidDataLength past the heap (the set
	// checksum then fails too; the fuzzer finds its way round it).
	f.Add(edit(fileSet+EntrySize+offDataLength+7, 0xFF))
	f.Add(edit(fileSet+EntrySize+offValidLength+7, 0x01))
	// The root's chain looping.
	f.Add(edit(l.FATOffset+4*int64(l.RootCluster), binary.LittleEndian.AppendUint32(nil, uint32(l.RootCluster))...))
	debug.SetMemoryLimit(checkAllocBound)
	f.Fuzz(func(t *testing.T, edits []byte) {
		if len(edits) > 4096 {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		dev := voltest.MemDevice(t, applyEdits(base, edits))
		v, _, err := OpenForCheck(dev)
		if err != nil {
			return
		}
		rep, err := Check(v, CheckOptions{MaxProblems: 50})
		if err != nil {
			t.Fatalf("Check on a memory device: %v", err)
		}
		for _, p := range rep.Problems {
			_ = p.String()
		}
		if _, err := Repair(v, rep, RepairOptions{}); err != nil {
			t.Logf("Repair: %v", err)
			return
		}
		v.Close()
		if v, _, err = OpenForCheck(dev); err == nil {
			rep2, err := Check(v, CheckOptions{MaxProblems: 50})
			if err != nil {
				t.Fatalf("Check after Repair: %v", err)
			}
			if rep.Remaining() == 0 && !rep2.Clean() {
				t.Fatalf("Repair left nothing, but the volume checks with problems: %v\nbefore: %v", rep2.Problems, rep.Problems)
			}
		} else if rep.Remaining() == 0 {
			t.Fatalf("a repaired volume does not open: %v", err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > checkAllocBound {
			t.Fatalf("checking a %d-byte volume allocated %d MiB", len(base), n>>20)
		}
	})
}
