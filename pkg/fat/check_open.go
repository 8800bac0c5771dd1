package fat

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// usualBackupSector is where mkfs.fat, Windows and ftools put the FAT32
// backup boot sector, and so where a checker looks for it when the primary,
// which names its place, is unusable.
const usualBackupSector = 6

// OpenForCheck opens dev as Open does. When Open refuses the volume because
// of its boot sector and a FAT32 backup boot sector at sector 6 decodes (for
// a sector size of 512, 1024, 2048 or 4096 bytes that the backup itself
// states), it opens the volume from the backup instead and returns the
// primary's error as bootErr, for CheckOptions.BootError; Repair then copies
// the backup over the primary. err is Open's error when there is no usable
// backup either. A primary that Open takes but fsck.fat refuses (more than
// two FATs) is unusable here too, and so is one that differs from its
// backup and does not describe the volume on the device (its FATs are not
// where it says, the volume does not fit...) while the backup does
// (boot_judge.go).
func OpenForCheck(dev *fio.Device) (v *Volume, bootErr, err error) {
	// A backup that contradicts a primary which does not describe the
	// volume, and that does describe it, is the boot sector to check with
	// (boot_judge.go). Judged before Open, which limits the device to the
	// volume the primary describes.
	if raw, rerr := fsutil.ReadBytes(dev, 0, min(maxBootRead, dev.Size())); rerr == nil {
		// A primary whose layout does not hold together is refused by
		// Open, and checked with the backup below.
		if bs, derr := DecodeBootSector(raw); derr == nil && bs.Is32 && validLayout(bs) {
			if c := findBootConflict(dev, bs, raw[:min(int64(len(raw)), max(int64(bs.BytesPerSector), 512))]); c != nil && c.primary != nil && c.backup == nil && !c.sameLayout {
				if bv, berr := openFrom(dev, c.bs, c.raw); berr == nil {
					return bv, fmt.Errorf("it differs from the backup at byte %d and does not describe the volume: %v", c.off, c.primary), nil
				}
			}
		}
	}
	v, err = openVolume(dev, true)
	if err == nil {
		if err = v.boot.unsupportedFATs(); err == nil {
			return v, nil, nil
		}
		v.Close()
	}
	// A primary refused for what it says of the volume (its end lies past
	// the device's, its FAT does) gives way only to a backup that differs
	// from it and describes the volume (boot_judge.go).
	var fe *FormatError
	field := errors.As(err, &fe) && fe.Structure == "boot sector"
	if !field && !errors.Is(err, ErrCorrupt) {
		return nil, nil, err
	}
	primary := make([]byte, min(maxBootRead, dev.Size()))
	if _, rerr := dev.ReadAt(primary, 0); rerr != nil {
		return nil, nil, err
	}
	for ss := int64(512); ss <= maxBootRead; ss *= 2 {
		off := usualBackupSector * ss
		if off+ss > dev.Size() {
			break
		}
		raw := make([]byte, ss)
		if _, rerr := dev.ReadAt(raw, off); rerr != nil {
			return nil, nil, err
		}
		bs, derr := DecodeBootSector(raw)
		if derr != nil || !bs.Is32 || int64(bs.BytesPerSector) != ss || bs.BackupBootSector != usualBackupSector || bs.unsupportedFATs() != nil {
			continue
		}
		if !field && (int64(len(primary)) >= ss && bytes.Equal(bootBytes(primary[:ss]), bootBytes(raw)) || bootFault(dev, bs) != nil) {
			continue
		}
		bv, berr := openFrom(dev, bs, raw)
		if berr != nil {
			continue
		}
		return bv, err, nil
	}
	return nil, nil, err
}

// validLayout reports whether bs's layout holds together.
func validLayout(bs *BootSector) bool {
	_, err := bs.Layout()
	return err == nil
}
