package exfat

import (
	"encoding/binary"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// The boot checksum covers every field of the boot sector, so one damaged
// field sends Open to the backup region. But a main region written whole
// with a wrong field and a matching checksum (a tool's bug; a second FAT
// that fsck.exfat does not accept) passes, and Repair copied it over the
// backup that describes the volume. So when both regions are usable and
// place the regions differently, each is judged against the volume on the
// device, as pkg/fat judges a FAT32 boot sector and its backup: the volume
// it describes fits the device, every FAT it names begins with entries 0
// and 1 as the specification has them, and its root directory's first
// cluster is in use. A main region that fails while the backup passes
// gives way to the backup (Repair then copies the backup over it); when
// both fail, Check reports it and Repair refuses, writing nothing.

// judgeBackup compares the usable main boot sector bs with the backup
// region of ss-byte sectors. It returns the backup (its boot sector and
// sector) when the main does not describe the volume and the backup does,
// or a refusal when neither does; all nil when the backup is unusable,
// places every region where the main does, or the main describes the
// volume.
func judgeBackup(dev *fio.Device, v *Volume, bs *BootSector, ss int) (backup *BootSector, raw []byte, why, refuse error) {
	b, braw, _, err := v.readRegion(int64(backupBootSector*ss), ss)
	if err != nil {
		return nil, nil, nil, nil
	}
	l1, err1 := bs.Layout()
	l2, err2 := b.Layout()
	if err1 != nil || err2 != nil {
		return nil, nil, nil, nil
	}
	a, c := *l1, *l2
	a.ActiveFAT, c.ActiveFAT = 0, 0 // from VolumeFlags, kept in the main sector only
	if a == c {
		return nil, nil, nil, nil
	}
	mainFault := bootFault(dev, bs)
	if mainFault == nil {
		return nil, nil, nil, nil
	}
	if backupFault := bootFault(dev, b); backupFault != nil {
		return nil, nil, nil, fmt.Errorf("the main boot region differs from the backup at byte %d in where it places the volume's regions, and neither describes the volume: the main one: %v; the backup: %v", l2.BackupBootOffset, mainFault, backupFault)
	}
	return b, braw, fmt.Errorf("it differs from the backup at byte %d in where it places the volume's regions and does not describe the volume: %v", l2.BackupBootOffset, mainFault), nil
}

// bootFault says why the volume bs describes is not the one on dev, or nil
// when it is.
func bootFault(dev *fio.Device, bs *BootSector) error {
	l, err := bs.Layout()
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	err = fsutil.FATsFit(dev, l.TotalSize, l.NumFATs, l.FATCopyOffset, 8, func(b []byte) string {
		if le.Uint32(b) != 0xFFFFFFF8 || le.Uint32(b[4:]) != 0xFFFFFFFF {
			return fmt.Sprintf("FAT entries 0 and 1 (f8 ff ff ff ff ff ff ff; it holds % x)", b)
		}
		return ""
	})
	if err != nil {
		return err
	}
	root := l.RootCluster
	off := l.ActiveFATOffset() + 4*int64(root)
	b := make([]byte, 4)
	if _, err := dev.ReadAt(b, off); err != nil {
		return fmt.Errorf("the root directory's FAT entry at byte %d: %v", off, err)
	}
	if e := le.Uint32(b); e == 0 || e == 1 || e == 0xFFFFFFF7 {
		return fmt.Errorf("its root directory's first cluster %d is not in use in the FAT (entry %#x at byte %d)", root, e, off)
	}
	return nil
}
