package exfat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// resealMain writes v (width bytes) at off of img's main boot sector and
// seals the main region's checksum again: a region rewritten whole with a
// wrong field, which the checksum does not catch.
func resealMain(t *testing.T, img string, off int64, width int, v uint64) {
	t.Helper()
	region := voltest.ReadFileAt(t, img, 0, bootRegionSectors*512)
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, v)
	copy(region[off:off+int64(width)], b)
	sealBootRegion(region, 512)
	patchImage(t, img, 0, region)
}

// checkRepair opens img writable, checks and repairs it.
func checkRepair(t *testing.T, img string) (*Report, error) {
	t.Helper()
	v, err := Open(openDev(t, img, true))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	_, err = Repair(v, rep, RepairOptions{})
	if cerr := v.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return rep, err
}

// A main boot region with a matching checksum that places a region
// elsewhere than the backup and does not describe the volume (a second
// FAT that is not there, a root cluster that is free, a FAT that is not
// where it says): the volume is checked with the backup, and Repair
// copies the backup over the main region instead of the other way round.
func TestRepairMainRegionFromBackup(t *testing.T) {
	good := voltest.ReadFile(t, formatImage(t, 64<<20, FormatParams{}))
	for _, c := range []struct {
		name  string
		off   int64
		width int
		v     uint64
	}{
		{"number-of-fats", offNumberOfFATs, 1, 2},
		{"root-cluster", offRootCluster, 4, 9},
		{"fat-offset", offFATOffset, 4, 2056},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := voltest.ImageFile(t, good)
			resealMain(t, img, c.off, c.width, c.v)
			rep, err := checkRepair(t, img)
			if err != nil {
				t.Fatalf("Repair: %v", err)
			}
			if len(rep.Problems) != 1 || rep.Problems[0].Kind != KindBootSector || !rep.Problems[0].Fixed {
				t.Fatalf("want one fixed boot-sector problem, got %v", rep.Problems)
			}
			if !bytes.Equal(voltest.ReadFile(t, img), good) {
				t.Fatal("the repaired volume differs from the undamaged one")
			}
		})
	}
}

// When the backup region is rewritten wrong as well, neither describes
// the volume: Check says so and Repair refuses, writing nothing.
func TestRepairBootRegionsNeitherSound(t *testing.T) {
	img := formatImage(t, 64<<20, FormatParams{})
	resealMain(t, img, offNumberOfFATs, 1, 2)
	region := voltest.ReadFileAt(t, img, 12*512, bootRegionSectors*512)
	region[offRootCluster] = 9
	sealBootRegion(region, 512)
	patchImage(t, img, 12*512, region)
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := checkRepair(t, img)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("neither describes the volume")) {
		t.Fatalf("Repair: want a refusal, got %v (%v)", err, rep.Problems)
	}
	if errors.Is(err, ErrReadOnly) {
		t.Fatal(err)
	}
	after, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, before) {
		t.Fatal("a refused repair wrote to the image")
	}
}

// bootRegionFields are the boot sector's numeric fields, as (offset,
// width): what FuzzRepairBootRegion damages.
var bootRegionFields = []struct {
	off   int64
	width int
}{
	{offPartitionOffset, 8}, {offVolumeLength, 8}, {offFATOffset, 4}, {offFATLength, 4},
	{offHeapOffset, 4}, {offClusterCount, 4}, {offRootCluster, 4}, {offSerial, 4},
	{offRevision, 2}, {offVolumeFlags, 2}, {offSectorShift, 1}, {offClusterShift, 1},
	{offNumberOfFATs, 1}, {offPercentInUse, 1},
}

// backupRegionSound reports whether img's backup boot region (512-byte
// sectors) is usable and describes the volume on dev.
func backupRegionSound(dev *fio.Device, img []byte) bool {
	region := img[backupBootSector*512 : (backupBootSector+bootRegionSectors)*512]
	bs, err := DecodeBootSector(region)
	if err != nil || bs.SectorSize() != 512 {
		return false
	}
	if _, err := CheckBootRegion(region, 512, backupBootSector*512); err != nil {
		return false
	}
	return bootFault(dev, bs) == nil
}

// FuzzRepairBootRegion damages numeric fields of the main boot sector of a
// small volume (and, when asked, the backup's), sealing the checksum again
// or not: opening, checking and repairing must not panic, a refused
// repair must write nothing, and the repair must never make a backup
// region that describes the volume into one that does not.
func FuzzRepairBootRegion(f *testing.F) {
	// The test volume, and a fresh 4 MiB one with room between its
	// regions (a second FAT fits before the heap).
	dev4 := fio.NewMemDevice(4<<20, 512)
	if _, _, err := Format(dev4, FormatParams{Serial: 1}, testTime); err != nil {
		f.Fatal(err)
	}
	fresh := make([]byte, 4<<20)
	if _, err := dev4.ReadAt(fresh, 0); err != nil {
		f.Fatal(err)
	}
	bases := [][]byte{readTestdata(f, "volume.img.gz"), fresh}
	mut := func(flags byte, field int, v uint64) []byte {
		b := make([]byte, 10)
		b[0], b[1] = flags, byte(field)
		binary.LittleEndian.PutUint64(b[2:], v)
		return b
	}
	f.Add(uint8(0), mut(0, 6, 9))
	f.Add(uint8(0), mut(0, 2, 0x30))
	f.Add(uint8(0), mut(2, 3, 0x1000))
	f.Add(uint8(0), mut(0, 1, 1<<40))
	f.Add(uint8(1), mut(0, 12, 2))
	f.Add(uint8(1), mut(0, 6, 9))
	f.Add(uint8(1), mut(0, 2, 0x808))
	f.Add(uint8(1), append(mut(0, 12, 2), mut(1, 6, 9)...))
	f.Fuzz(func(t *testing.T, typ uint8, muts []byte) {
		img := bytes.Clone(bases[int(typ)%len(bases)])
		for i := 0; i+10 <= len(muts) && i < 10*8; i += 10 {
			fl := bootRegionFields[int(muts[i+1])%len(bootRegionFields)]
			at := int64(0)
			if muts[i]&1 != 0 {
				at = backupBootSector * 512
			}
			copy(img[at+fl.off:at+fl.off+int64(fl.width)], muts[i+2:])
			if muts[i]&2 == 0 {
				sealBootRegion(img[at:at+bootRegionSectors*512], 512)
			}
		}
		dev := voltest.MemDevice(t, img)
		sound := backupRegionSound(dev, img)
		v, _, err := OpenForCheck(dev)
		if err != nil {
			return
		}
		rep, err := Check(v, CheckOptions{MaxProblems: 50})
		if err != nil {
			return
		}
		_, err = Repair(v, rep, RepairOptions{})
		v.Close()
		after := make([]byte, len(img))
		if _, rerr := dev.ReadAt(after, 0); rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil && rep.refuse != nil && !bytes.Equal(after, img) {
			t.Fatal("a refused repair wrote to the volume")
		}
		if sound && !backupRegionSound(voltest.MemDevice(t, after), after) {
			t.Fatalf("the repair made the sound backup boot region unsound: %v", rep.Problems)
		}
	})
}
