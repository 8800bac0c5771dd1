package exfat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"
)

// resealMain writes v (width bytes) at off of img's main boot sector and
// seals the main region's checksum again: a region rewritten whole with a
// wrong field, which the checksum does not catch.
func resealMain(t *testing.T, img string, off int64, width int, v uint64) {
	t.Helper()
	region := readImage(t, img, 0, bootRegionSectors*512)
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
			img := formatImage(t, 64<<20, FormatParams{})
			good, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			resealMain(t, img, c.off, c.width, c.v)
			rep, err := checkRepair(t, img)
			if err != nil {
				t.Fatalf("Repair: %v", err)
			}
			if len(rep.Problems) != 1 || rep.Problems[0].Kind != KindBootSector || !rep.Problems[0].Fixed {
				t.Fatalf("want one fixed boot-sector problem, got %v", rep.Problems)
			}
			after, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, good) {
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
	region := readImage(t, img, 12*512, bootRegionSectors*512)
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
