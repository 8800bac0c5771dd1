package exfat

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// baseImage makes a small volume with a few files, a directory and a
// fragmented file, and returns its path.
func baseImage(t *testing.T) string {
	t.Helper()
	img := formatImage(t, 16<<20, FormatParams{Label: "CHECK"})
	v := openVol(t, img, true)
	if err := v.Mkdir("dir", testTime); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "dir/a.txt", pattern(1, 10000), 10000)
	writeFile(t, v, "b.bin", pattern(2, 50000), 50000)
	writeFile(t, v, "gap", pattern(3, 4096), 4096)
	// A fragmented file: a hole left by "gap" is too small for it.
	writeFile(t, v, "c.bin", pattern(4, 20000), 20000)
	if err := v.Remove("gap"); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	writeInterleaved(t, v, "frag.bin", "frag2.bin", 3)
	closeVol(t, v)
	fsckClean(t, img)
	return img
}

// writeInterleaved writes two files of n clusters a cluster at a time,
// alternating, so that both are fragmented.
func writeInterleaved(t *testing.T, v *Volume, a, b string, n int) {
	t.Helper()
	wa, err := v.Create(a, 0, testTime)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := v.Create(b, 0, testTime)
	if err != nil {
		t.Fatal(err)
	}
	cs := int(v.Layout().ClusterSize)
	for i := range n {
		if _, err := wa.Write(pattern(uint64(10+i), cs)); err != nil {
			t.Fatal(err)
		}
		if _, err := wb.Write(pattern(uint64(20+i), cs)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wb.Close(); err != nil {
		t.Fatal(err)
	}
}

// recordOffset returns the byte offset of the entry set of name and the
// record.
func recordOffset(t *testing.T, img, name string) (int64, Record) {
	t.Helper()
	v := openVol(t, img, false)
	defer closeVol(t, v)
	d, r, err := v.lookup("test", name)
	if err != nil {
		t.Fatal(err)
	}
	return d.entryOffset(r.Slot), *r
}

func patchImage(t *testing.T, img string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// checkImage runs Check on img and returns the report.
func checkImage(t *testing.T, img string) *Report {
	t.Helper()
	v := openVol(t, img, false)
	defer closeVol(t, v)
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func kinds(rep *Report) string {
	var k []string
	for _, p := range rep.Problems {
		k = append(k, p.Kind)
	}
	return strings.Join(k, ",")
}

func TestCheckClean(t *testing.T) {
	img := baseImage(t)
	rep := checkImage(t, img)
	if !rep.Clean() {
		t.Fatalf("clean volume: %v", rep.Problems)
	}
	if rep.Files != 5 || rep.Dirs != 2 {
		t.Errorf("counted %d files and %d directories, want 5 and 2", rep.Files, rep.Dirs)
	}
	_, r := recordOffset(t, img, "frag.bin")
	if r.Set.Stream.NoFATChain() {
		t.Error("frag.bin was meant to be fragmented")
	}
}

// TestCheckDamage damages a volume in the ways fsck.exfat knows, checks
// that Check names the damage, that fsck.exfat -n finds it too (where it
// looks), and that Repair fixes what it should so that both are clean.
func TestCheckDamage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, img string)
		kind     string
		fsckSees bool // fsck.exfat 1.2.0 reports it
		repaired bool // Repair makes the volume clean
	}{
		{"boot-checksum", func(t *testing.T, img string) {
			patchImage(t, img, offBootCode, []byte{0x42})
		}, KindBootChecksum, true, true},
		{"backup-boot", func(t *testing.T, img string) {
			patchImage(t, img, 12*512+offBootCode, []byte{0x42})
		}, KindBackupBoot, false, true},
		{"dirty", func(t *testing.T, img string) {
			patchImage(t, img, offVolumeFlags, []byte{FlagVolumeDirty})
		}, KindDirty, false, true},
		{"set-checksum", func(t *testing.T, img string) {
			off, _ := recordOffset(t, img, "b.bin")
			patchImage(t, img, off+offModifyTime, []byte{0x11})
		}, KindSetChecksum, true, true},
		{"set-checksum-end-marker", func(t *testing.T, img string) {
			// The stream entry's type byte is 0x00, the end marker: the
			// set is deleted whole, and the deleted entry must not end
			// the folder there, which would hide the members after it
			// and leave their clusters lost.
			off, _ := recordOffset(t, img, "b.bin")
			patchImage(t, img, off+EntrySize, []byte{TypeEndOfDirectory})
		}, KindSetChecksum, true, true},
		{"name-hash", func(t *testing.T, img string) {
			off, _ := recordOffset(t, img, "b.bin")
			set := voltest.ReadFileAt(t, img, off, 3*EntrySize)
			set[EntrySize+offNameHash] ^= 0x55
			binary.LittleEndian.PutUint16(set[offSetChecksum:], SetChecksum(set))
			patchImage(t, img, off, set)
		}, KindNameHash, true, true},
		{"bitmap-free", func(t *testing.T, img string) {
			_, r := recordOffset(t, img, "b.bin")
			patchBitmap(t, img, r.Set.Stream.FirstCluster, false)
		}, KindFree, true, true},
		{"lost", func(t *testing.T, img string) {
			patchBitmap(t, img, 3000, true)
		}, KindLost, false, true},
		{"cross-link", func(t *testing.T, img string) {
			off, r := recordOffset(t, img, "c.bin")
			_, a := recordOffset(t, img, "b.bin")
			set := voltest.ReadFileAt(t, img, off, 3*EntrySize)
			binary.LittleEndian.PutUint32(set[EntrySize+offFirstCluster:], uint32(a.Set.Stream.FirstCluster))
			binary.LittleEndian.PutUint16(set[offSetChecksum:], SetChecksum(set))
			patchImage(t, img, off, set)
			_ = r
		}, KindCrossLink, true, false},
		{"valid-size", func(t *testing.T, img string) {
			off, r := recordOffset(t, img, "b.bin")
			set := voltest.ReadFileAt(t, img, off, 3*EntrySize)
			binary.LittleEndian.PutUint64(set[EntrySize+offValidLength:], r.Set.Stream.DataLength+1)
			binary.LittleEndian.PutUint16(set[offSetChecksum:], SetChecksum(set))
			patchImage(t, img, off, set)
		}, KindSize, true, false},
		{"chain-loop", func(t *testing.T, img string) {
			_, r := recordOffset(t, img, "frag.bin")
			v := openVol(t, img, false)
			l := v.Layout()
			closeVol(t, v)
			c := r.Set.Stream.FirstCluster
			patchImage(t, img, l.FATOffset+4*int64(c), binary.LittleEndian.AppendUint32(nil, uint32(c)))
		}, KindCrossLink, true, false},
		{"upcase", func(t *testing.T, img string) {
			v := openVol(t, img, false)
			off := v.Layout().ClusterOffset(v.upcaseEnt.FirstCluster)
			closeVol(t, v)
			patchImage(t, img, off+0x100, []byte{0x99})
		}, KindUpcase, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := baseImage(t)
			tc.damage(t, img)
			rep := checkImage(t, img)
			if !strings.Contains(kinds(rep), tc.kind) {
				t.Fatalf("Check found %q, want %s: %v", kinds(rep), tc.kind, rep.Problems)
			}
			// A wrong marking is named where it lies: the bitmap byte.
			for _, p := range rep.Problems {
				if p.Kind == KindLost || p.Kind == KindFree {
					v := openVol(t, img, false)
					want := v.Layout().ClusterOffset(v.bitmapEnt.FirstCluster) + int64(p.Cluster-2)/8
					closeVol(t, v)
					if p.Offset != want {
						t.Errorf("%s problem at byte %d, want the bitmap's byte %d", p.Kind, p.Offset, want)
					}
				}
			}
			out, err := runTool(t, "fsck.exfat", "-n", img)
			if sees := err != nil; sees != tc.fsckSees {
				t.Errorf("fsck.exfat -n failed=%v, want %v:\n%s", sees, tc.fsckSees, out)
			}
			v := openVol(t, img, true)
			fixes, err := Repair(v, rep, RepairOptions{})
			closeVol(t, v)
			if err != nil {
				t.Fatal(err)
			}
			again := checkImage(t, img)
			if tc.repaired {
				if !again.Clean() {
					t.Fatalf("after Repair (%v): %v", fixes, again.Problems)
				}
				fsckClean(t, img)
			} else if again.Clean() {
				t.Fatalf("Repair claims to have fixed %s (%v)", tc.kind, fixes)
			}
			for _, p := range rep.Problems {
				if p.Offset < -1 || p.String() == "" {
					t.Errorf("bad problem %+v", p)
				}
			}
			t.Logf("%s", fmt.Sprint(rep.Problems))
		})
	}
}

// patchBitmap sets or clears cluster c's bit in the image's bitmap.
func patchBitmap(t *testing.T, img string, c Cluster, on bool) {
	t.Helper()
	v := openVol(t, img, false)
	l := v.Layout()
	off := l.ClusterOffset(v.bitmapEnt.FirstCluster) + int64(c-2)/8
	closeVol(t, v)
	b := voltest.ReadFileAt(t, img, off, 1)
	m := byte(1) << ((c - 2) % 8)
	if on {
		b[0] |= m
	} else {
		b[0] &^= m
	}
	patchImage(t, img, off, b)
}
