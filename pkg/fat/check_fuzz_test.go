package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// fuzzBases are small valid volumes of each type, built once.
var (
	fuzzOnce  sync.Once
	fuzzBases []fuzzBase
)

type fuzzBase struct {
	img   []byte
	limit int64 // the metadata region: reserved sectors, FATs, root and the first clusters
}

func fuzzImages(t testing.TB) []fuzzBase {
	fuzzOnce.Do(func() {
		for _, p := range []FormatParams{
			{Size: 1 << 20, VolumeID: 1, Label: "FUZZ"},
			{Size: 5 << 19, Type: FAT16, ClusterSize: 512, VolumeID: 2},
			{Size: 1 << 20, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 512, VolumeID: 3, Label: "FUZZ32"},
		} {
			img := buildCheckImage(t, p)
			bs, err := DecodeBootSector(img)
			if err != nil {
				t.Fatal(err)
			}
			l, err := bs.Layout()
			if err != nil {
				t.Fatal(err)
			}
			fuzzBases = append(fuzzBases, fuzzBase{img: img, limit: l.DataOffset + 24*l.ClusterSize})
		}
	})
	return fuzzBases
}

// checkAllocBound is the most one FuzzCheck input may allocate: the
// volumes are 1 MiB, so a walk or buffer sized from a damaged field goes
// far past it.
const checkAllocBound = 256 << 20

// FuzzCheck flips bytes in the metadata of a small valid volume; opening,
// checking and repairing it must neither panic nor hang nor allocate past
// checkAllocBound (the process also runs under a soft memory limit of as
// much), and a repaired volume must check again.
func FuzzCheck(f *testing.F) {
	le := binary.LittleEndian
	patch := func(off uint32, v byte) []byte {
		b := make([]byte, 5)
		le.PutUint32(b, off)
		b[4] = v
		return b
	}
	f.Add(uint8(0), []byte{})
	f.Add(uint8(0), patch(0x0D, 3))
	f.Add(uint8(1), append(patch(0x15, 0xF0), patch(600, 0xFF)...))
	f.Add(uint8(2), patch(0, 0))
	f.Add(uint8(2), append(patch(0x41, 1), patch(16*1024+8, 2)...))
	debug.SetMemoryLimit(checkAllocBound)
	f.Fuzz(func(t *testing.T, typ uint8, patches []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		defer func() {
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > checkAllocBound {
				t.Fatalf("checking a 1 MiB volume allocated %d MiB", n>>20)
			}
		}()
		bases := fuzzImages(t)
		base := bases[int(typ)%len(bases)]
		img := bytes.Clone(base.img)
		for i := 0; i+5 <= len(patches) && i < 5*64; i += 5 {
			img[int64(le.Uint32(patches[i:]))%base.limit] = patches[i+4]
		}
		dev := memDevice(t, img)
		v, bootErr, err := OpenForCheck(dev)
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
		if _, err := Repair(v, rep, RepairOptions{}); errors.Is(err, ErrBootConflict) {
			if !bytes.Equal(volumeBytes(t, dev, img), img) {
				t.Fatalf("a refused repair wrote to the volume")
			}
			return
		} else if err != nil {
			t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
		}
		v2, bootErr, err := OpenForCheck(dev)
		if err != nil {
			if rep.Remaining() == 0 {
				t.Fatalf("a repaired volume does not open: %v", err)
			}
			return
		}
		rep2, err := Check(v2, CheckOptions{BootError: bootErr})
		if err != nil {
			t.Fatalf("Check after Repair: %v", err)
		}
		if rep.Remaining() == 0 && !rep2.Clean() {
			t.Fatalf("Repair left nothing, but the volume checks with problems:\n%s\nbefore:\n%s", dumpProblems(rep2), dumpProblems(rep))
		}
	})
}

// FuzzCheckDir puts fuzzed slots into the root directory and into /sub's
// first cluster of a small valid volume: the checks of entries, dots,
// names, long names and labels, and their fixes, must not panic, and a
// repair that leaves nothing must leave a volume that checks clean.
func FuzzCheckDir(f *testing.F) {
	lfn := func(long, short string) []byte {
		var n ShortName
		copy(n[:], short)
		slots, _ := LongNameSlots(long, ShortNameChecksum(n))
		var out []byte
		for _, s := range slots {
			out = append(out, s[:]...)
		}
		e := DirEntry{Name: n, Attr: AttrArchive}
		b := make([]byte, DirEntrySize)
		e.Encode(b)
		return append(out, b...)
	}
	dot := func(name ShortName, c uint16) []byte {
		b := make([]byte, DirEntrySize)
		e := DirEntry{Name: name, Attr: AttrDirectory, Cluster: Cluster(c)}
		e.Encode(b)
		return b
	}
	f.Add(uint8(0), lfn("A long name.txt", "ALONGN~1TXT"), append(dot(DotName, 9), dot(DotDotName, 0)...))
	f.Add(uint8(1), append(lfn("x", "X          ")[:32], dot(DotName, 3)...), dot(DotDotName, 7))
	f.Add(uint8(2), []byte("LABEL      \x08"), append(lfn("dup", "DUP        "), lfn("DUP", "DUP~1      ")...))
	f.Fuzz(func(t *testing.T, typ uint8, root, sub []byte) {
		base := fuzzImages(t)[int(typ)%3]
		img := bytes.Clone(base.img)
		v0, _, err := OpenForCheck(memDevice(t, base.img))
		if err != nil {
			t.Fatal(err)
		}
		l := v0.layout
		rootOff, rootLen := l.RootDirOffset, l.RootDirSize
		if l.Type == FAT32 {
			rootOff, rootLen = l.ClusterOffset(l.RootCluster), l.ClusterSize
		}
		copy(img[rootOff:rootOff+min(rootLen, int64(len(root)))], root)
		if _, r, err := v0.lookup("find", "/sub"); err == nil && r != nil {
			off := l.ClusterOffset(r.Entry.Cluster)
			copy(img[off:off+min(l.ClusterSize, int64(len(sub)))], sub)
		}
		dev := memDevice(t, img)
		v, bootErr, err := OpenForCheck(dev)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Check(v, CheckOptions{BootError: bootErr, Salvage: typ&4 != 0})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Repair(v, rep, RepairOptions{}); err != nil {
			t.Fatalf("Repair: %v", err)
		}
		v2, bootErr, err := OpenForCheck(dev)
		if err != nil {
			t.Fatal(err)
		}
		rep2, err := Check(v2, CheckOptions{BootError: bootErr})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Remaining() == 0 && !rep2.Clean() {
			t.Fatalf("Repair left nothing, but the volume checks with problems:\n%s\nbefore:\n%s", dumpProblems(rep2), dumpProblems(rep))
		}
	})
}
