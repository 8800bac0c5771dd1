package fat

import (
	"encoding/binary"
	"testing"
)

func FuzzDecodeBootSector(f *testing.F) {
	for _, name := range []string{"boot-fat12.bin", "boot-fat16.bin", "boot-fat32.bin"} {
		f.Add(readTestdata(f, name))
	}
	addCorpusSectors(f, 0) // the damaged-image corpus's boot sectors
	f.Fuzz(func(t *testing.T, b []byte) {
		bs, err := DecodeBootSector(b)
		if err != nil {
			return
		}
		_ = bs.Label()
		_ = bs.Warnings()
		l, err := bs.Layout()
		if err != nil {
			return
		}
		if l.DataOffset >= l.TotalSize || l.Clusters == 0 || l.ClusterOffset(l.MaxCluster())+l.ClusterSize > l.TotalSize {
			t.Fatalf("inconsistent layout accepted: %+v", l)
		}
		out := make([]byte, 512)
		bs.Encode(out)
		again, err := DecodeBootSector(out)
		if err != nil {
			t.Fatalf("re-encoded sector does not decode: %v", err)
		}
		if again.VolumeID != bs.VolumeID || again.TotalSectors() != bs.TotalSectors() {
			t.Fatal("re-encoding changed fields")
		}
	})
}

func FuzzDecodeFSInfo(f *testing.F) {
	f.Add(readTestdata(f, "fsinfo-fat32.bin"))
	addCorpusSectors(f, 1) // the damaged-image corpus's FSINFO sectors
	f.Fuzz(func(t *testing.T, b []byte) {
		fi, err := DecodeFSInfo(b)
		if err != nil {
			return
		}
		out := make([]byte, 512)
		fi.Encode(out)
		if got, err := DecodeFSInfo(out); err != nil || *got != *fi {
			t.Fatalf("round trip: %v %v", got, err)
		}
	})
}

// FuzzTable runs a program of Set calls on a table seeded from a real FAT
// and checks Get, the dirty ranges and Chain's bound.
func FuzzTable(f *testing.F) {
	f.Add(uint8(32), uint16(200), readTestdata(f, "fat-fat32-head.bin"), []byte{2, 3, 3, 0xff})
	f.Add(uint8(12), uint16(300), readTestdata(f, "fat-fat32-head.bin"), []byte{5, 6, 7, 5})
	f.Add(uint8(16), uint16(100), []byte{0xf8, 0xff, 0xff, 0xff}, []byte{2, 2})
	f.Fuzz(func(t *testing.T, typ uint8, clusters uint16, raw []byte, prog []byte) {
		ty := map[uint8]Type{12: FAT12, 16: FAT16, 32: FAT32}[typ%64]
		if ty == 0 {
			ty = FAT16
		}
		need := fatBytes(ty, uint32(clusters))
		buf := make([]byte, need)
		copy(buf, raw)
		tb, err := NewTable(ty, buf, uint32(clusters))
		if err != nil {
			if (ty == FAT12 && clusters >= MinClusters16) || (ty == FAT16 && clusters >= MinClusters32) {
				return
			}
			t.Fatal(err)
		}
		for i := 0; i+3 < len(prog); i += 4 {
			c := Cluster(binary.LittleEndian.Uint16(prog[i:]))
			v := Cluster(binary.LittleEndian.Uint16(prog[i+2:]))
			before := Cluster(0)
			if uint32(c) < tb.Entries() {
				before = tb.Get(c + 1)
			}
			tb.Set(c, v)
			if uint32(c) < tb.Entries() {
				mask := Cluster(1<<int(ty) - 1)
				if ty == FAT32 {
					mask = mask32
				}
				if got := tb.Get(c); got != v&mask {
					t.Fatalf("Get(%d) = %#x after Set %#x", c, got, v)
				}
				if uint32(c+1) < tb.Entries() && tb.Get(c+1) != before {
					t.Fatalf("Set(%d) changed entry %d", c, c+1)
				}
			}
		}
		for _, r := range tb.DirtyRanges(512) {
			if r[0] < 0 || r[1] > int64(len(buf)) || r[0] >= r[1] || r[0]%512 != 0 {
				t.Fatalf("bad dirty range %v of %d bytes", r, len(buf))
			}
		}
		for c := Cluster(2); uint32(c) < tb.Entries() && c < 50; c++ {
			got, _ := Chain(tb, c)
			if len(got) > int(tb.Entries())+1 {
				t.Fatalf("chain of %d in a table of %d", len(got), tb.Entries())
			}
		}
		_ = CountFree(tb)
		_, _ = FirstFree(tb, Cluster(clusters/2))
	})
}
