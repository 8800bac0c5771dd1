package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// bootFields are the boot sector's fields that place or size something,
// as (offset, width): what FuzzRepairBoot and the table tests damage.
var bootFields = []struct {
	off, width int
}{
	{offBytesPerSector, 2}, {offSectorsPerCluster, 1}, {offReservedSectors, 2}, {offNumFATs, 1},
	{offRootEntries, 2}, {offTotalSectors16, 2}, {offMedia, 1}, {offFATSize16, 2},
	{offHiddenSectors, 4}, {offTotalSectors32, 4},
	// FAT32's; on FAT12/16 the extended boot record lies here.
	{offFATSize32, 4}, {offExtFlags, 2}, {offFSVersion, 2}, {offRootCluster, 4},
	{offFSInfoSector, 2}, {offBackupBootSector, 2},
	{offFATSize32 + 1, 1}, // the byte 37
}

// volumeBytes is img, the memory device dev was made from, as dev now
// holds it: Open limits the device to the volume its boot sector
// describes, and nothing past that can have been written.
func volumeBytes(t testing.TB, dev *fio.Device, img []byte) []byte {
	return append(memBytes(t, dev), img[dev.Size():]...)
}

// putField stores v in the field at off of the given width.
func putField(b []byte, off, width int, v uint32) {
	switch width {
	case 1:
		b[off] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[off:], uint16(v))
	default:
		binary.LittleEndian.PutUint32(b[off:], v)
	}
}

// backupSound reports whether img holds, in sector 6, a FAT32 boot sector
// that describes the volume (as findBootConflict judges it).
func backupSound(t testing.TB, img []byte) bool {
	dev := memDevice(t, img)
	raw := img[usualBackupSector*512 : usualBackupSector*512+512]
	bs, err := DecodeBootSector(raw)
	if err != nil || !bs.Is32 || bs.BytesPerSector != 512 || bs.BackupBootSector != usualBackupSector {
		return false
	}
	return bootFault(dev, bs) == nil
}

// boot32Image is a FAT32 volume of size bytes with files on it, formatted
// in memory, with the backup boot sector in sector 6.
func boot32Image(t testing.TB, size int64) []byte {
	return buildCheckImage(t, FormatParams{Size: size, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 512, VolumeID: 7, Label: "BOOTJUDGE"})
}

// checkAndRepair opens img as fverify does, checks and repairs it.
func checkAndRepair(t testing.TB, dev *fio.Device) (*Report, error) {
	t.Helper()
	v, bootErr, err := OpenForCheck(dev)
	if err != nil {
		t.Fatalf("OpenForCheck: %v", err)
	}
	rep, err := Check(v, CheckOptions{BootError: bootErr})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	_, err = Repair(v, rep, RepairOptions{})
	return rep, err
}

// A FAT size grown by one flipped bit (byte 37, 0x02 -> 0x22 in the
// issue's volume) still makes a layout that holds together: its FAT 2 lies
// in the data area. The repair must take the backup, which describes the
// volume, copy it over the boot sector, and leave the volume as it was.
func TestRepairBootFATSizeFromBackup(t *testing.T) {
	good := boot32Image(t, 64<<20)
	img := bytes.Clone(good)
	img[offFATSize32+1] |= 0x20
	if _, err := DecodeBootSector(img); err != nil {
		t.Fatalf("the damage must leave a boot sector that decodes: %v", err)
	}
	bs, _ := DecodeBootSector(img)
	if _, err := bs.Layout(); err != nil {
		t.Fatalf("the damage must leave a layout that holds together: %v", err)
	}
	dev := memDevice(t, img)
	rep, err := checkAndRepair(t, dev)
	if err != nil {
		t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Kind != KindBootSector || !rep.Problems[0].Fixed {
		t.Fatalf("want one fixed boot-sector problem, got:\n%s", dumpProblems(rep))
	}
	after := memBytes(t, dev)
	if !bytes.Equal(after, good) {
		t.Fatalf("the repaired volume differs from the undamaged one, first at byte %d", firstDiff(after, good))
	}
}

// When neither the boot sector nor its backup describes the volume, the
// check says so and the repair refuses, writing nothing.
func TestRepairBootNeitherSoundRefuses(t *testing.T) {
	img := boot32Image(t, 64<<20)
	img[offFATSize32+1] |= 0x20
	img[usualBackupSector*512+offFATSize32+1] |= 0x30
	dev := memDevice(t, img)
	rep, err := checkAndRepair(t, dev)
	if !errors.Is(err, ErrBootConflict) {
		t.Fatalf("Repair: want ErrBootConflict, got %v\n%s", err, dumpProblems(rep))
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Kind != KindBootSector || rep.Problems[0].Fix != "" {
		t.Fatalf("want one boot-sector problem without a fix, got:\n%s", dumpProblems(rep))
	}
	if after := volumeBytes(t, dev, img); !bytes.Equal(after, img) {
		t.Fatalf("a refused repair wrote byte %d", firstDiff(after, img))
	}
}

// Writers open a volume whose boot sector does not describe it and
// differs from the backup read-only only: they would put FATs and data
// where it says.
func TestOpenRefusesWritingThroughUnsoundBoot(t *testing.T) {
	img := boot32Image(t, 64<<20)
	img[offFATSize32+1] |= 0x20
	dev := memDevice(t, img)
	if _, err := Open(dev); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "refusing to write") {
		t.Fatalf("Open for writing: want a refusal, got %v", err)
	}
	if after := volumeBytes(t, dev, img); !bytes.Equal(after, img) {
		t.Fatalf("a refused open wrote byte %d", firstDiff(after, img))
	}
}

// A volume opened through its boot sector (not as OpenForCheck would)
// whose boot sector does not describe it: the repair refuses rather than
// copy it over the backup.
func TestRepairBootOpenedFromPrimaryRefuses(t *testing.T) {
	img := boot32Image(t, 64<<20)
	img[offFATSize32+1] |= 0x20
	dev := memDevice(t, img)
	v, err := openVolume(dev, true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(v, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(v, rep, RepairOptions{}); !errors.Is(err, ErrBootConflict) {
		t.Fatalf("Repair: want ErrBootConflict, got %v\n%s", err, dumpProblems(rep))
	}
	if after := volumeBytes(t, dev, img); !bytes.Equal(after, img) {
		t.Fatalf("a refused repair wrote byte %d", firstDiff(after, img))
	}
}

// Damage to each field that places something, in the boot sector only:
// the backup describes the volume, so the repair never makes it otherwise,
// and either restores the volume from it or refuses without writing.
func TestRepairBootFieldsKeepBackup(t *testing.T) {
	good := boot32Image(t, 4<<20)
	for _, f := range bootFields {
		for _, val := range []uint32{0, 1, 2, 0x22, 0xFF, 0x1000, 0xFFFF, 0xFFFFFFFF} {
			img := bytes.Clone(good)
			old := bytes.Clone(img[f.off : f.off+f.width])
			putField(img, f.off, f.width, val)
			if bytes.Equal(old, img[f.off:f.off+f.width]) {
				continue
			}
			t.Run(fmt.Sprintf("byte%d=%#x", f.off, val), func(t *testing.T) { repairKeepsBackup(t, img) })
		}
	}
}

// repairKeepsBackup checks and repairs img as fverify does and fails when
// that panics, makes a sound backup boot sector unsound, or refuses after
// writing.
func repairKeepsBackup(t *testing.T, img []byte) {
	t.Helper()
	sound := backupSound(t, img)
	dev := memDevice(t, img)
	v, bootErr, err := OpenForCheck(dev)
	if err != nil {
		if sound {
			t.Fatalf("the backup describes the volume, but OpenForCheck fails: %v", err)
		}
		return
	}
	rep, err := Check(v, CheckOptions{BootError: bootErr})
	if err != nil {
		t.Fatalf("Check on a memory device: %v", err)
	}
	_, err = Repair(v, rep, RepairOptions{})
	after := volumeBytes(t, dev, img)
	if errors.Is(err, ErrBootConflict) {
		if !bytes.Equal(after, img) {
			t.Fatalf("a refused repair wrote byte %d", firstDiff(after, img))
		}
	} else if err != nil && sound {
		t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
	}
	if sound && !backupSound(t, after) {
		t.Fatalf("the repair made the sound backup boot sector unsound\n%s", dumpProblems(rep))
	}
}

// bootFault takes every volume ftools makes: the FAT size it picks is
// what its clusters need.
func TestBootFaultFreshVolumes(t *testing.T) {
	for _, p := range []FormatParams{
		{Size: 1 << 20, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 512},
		{Size: 40 << 20, Type: FAT32, AllowSmallFAT32: true},
		{Size: 64 << 20, Type: FAT32},
		{Size: 300 << 20, Type: FAT32, ClusterSize: 4096},
		{Size: 600 << 20, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 32768},
		{Size: 64 << 20, Type: FAT32, AlignData: true},
		{Size: 600 << 20, Type: FAT32, AlignData: true, AllowSmallFAT32: true, ClusterSize: 32768},
		{Size: 1 << 20},
		{Size: 16 << 20, Type: FAT16},
	} {
		dev, v := formatMem(t, p, checkClock)
		if err := bootFault(dev, v.boot); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
		v.Close()
	}
}

// A FAT larger than its clusters need (the volume's end moved in both boot
// sectors) whose copies differ, past the table's last window too: the
// repair syncs the copies without reaching past the table (it panicked).
func TestRepairLargerFATThanClusters(t *testing.T) {
	img := boot32Image(t, 64<<20)
	for _, at := range []int{0, usualBackupSector * 512} {
		n := binary.LittleEndian.Uint32(img[at+offTotalSectors32:])
		binary.LittleEndian.PutUint32(img[at+offTotalSectors32:], n/2)
	}
	bs, err := DecodeBootSector(img)
	if err != nil {
		t.Fatal(err)
	}
	l, err := bs.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if fatBytes(l.Type, l.Clusters)+4<<fatWinShift > l.FATSize {
		t.Fatalf("the FAT (%d bytes) must reach past the table's windows (%d bytes of entries)", l.FATSize, fatBytes(l.Type, l.Clusters))
	}
	fat2 := l.FATCopyOffset(1)
	img[fat2+4*100] = 0x77         // an entry
	img[fat2+l.FATSize-512] = 0x55 // past the table
	dev := memDevice(t, img)
	rep, err := checkAndRepair(t, dev)
	if err != nil {
		t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
	}
	v, bootErr, err := OpenForCheck(dev)
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := Check(v, CheckOptions{BootError: bootErr})
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.Clean() {
		t.Fatalf("the repaired volume checks with problems:\n%s", dumpProblems(rep2))
	}
}

var (
	bootFuzzOnce  sync.Once
	bootFuzzImage []byte
)

// FuzzRepairBoot damages the boot sector fields of a small formatted
// volume (and, when asked, its backup's): opening, checking and repairing
// it as fverify does must not panic, a refused repair must write nothing,
// and the repair must never make a backup boot sector that describes the
// volume into one that does not.
func FuzzRepairBoot(f *testing.F) {
	mut := func(backup bool, field int, v uint32) []byte {
		b := []byte{0, byte(field), 0, 0, 0, 0}
		if backup {
			b[0] = 1
		}
		binary.LittleEndian.PutUint32(b[2:], v)
		return b
	}
	f.Add(uint8(2), mut(false, 16, 0x22))
	f.Add(uint8(2), append(mut(false, 16, 0x22), mut(true, 16, 0x33)...))
	f.Add(uint8(2), mut(false, 13, 5))
	f.Add(uint8(2), mut(false, 1, 2))
	f.Add(uint8(2), mut(false, 15, 7))
	f.Add(uint8(2), mut(false, 14, 1))
	f.Add(uint8(2), mut(false, 9, 1000))
	f.Add(uint8(0), mut(false, 7, 1))
	f.Add(uint8(1), mut(false, 2, 3))
	f.Add(uint8(3), mut(false, 1, 2))
	f.Add(uint8(3), mut(false, 2, 0x22))
	f.Add(uint8(3), mut(false, 9, 0xFFFF))
	f.Fuzz(func(t *testing.T, typ uint8, muts []byte) {
		bases := fuzzImages(t)
		var img []byte
		if k := int(typ) % (len(bases) + 1); k < len(bases) {
			img = bytes.Clone(bases[k].img)
		} else {
			// FAT32 with more clusters than sectors in its reserved
			// region and FATs: a wrong cluster size shows in the FAT's.
			bootFuzzOnce.Do(func() { bootFuzzImage = boot32Image(t, 4<<20) })
			img = bytes.Clone(bootFuzzImage)
		}
		for i := 0; i+6 <= len(muts) && i < 6*8; i += 6 {
			f := bootFields[int(muts[i+1])%len(bootFields)]
			at := 0
			if muts[i]&1 != 0 {
				at = usualBackupSector * 512
			}
			putField(img[at:], f.off, f.width, binary.LittleEndian.Uint32(muts[i+2:]))
		}
		repairKeepsBackup(t, img)
	})
}
