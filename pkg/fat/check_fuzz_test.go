package fat

import (
	"bytes"
	"encoding/binary"
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

// FuzzCheck flips bytes in the metadata of a small valid volume; opening,
// checking and repairing it must neither panic nor hang, and a repaired
// volume must check again.
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
	f.Fuzz(func(t *testing.T, typ uint8, patches []byte) {
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
		if _, err := Repair(v, rep, RepairOptions{}); err != nil {
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
