package fat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// A FAT32 boot sector and its backup that differ contradict each other.
// When the difference is harmless (a label, the boot code) either serves,
// and the primary, which every reader uses, is copied over the backup. But
// one damaged field of the primary (the FAT size, say) makes a layout that
// still holds together on paper and puts the FATs, the data area and the
// root somewhere else: copying that over the backup destroys the one
// sector that knows where the volume is, and a repair that follows it
// writes FAT copies over data. So each of the two is judged against the
// volume on the device: does the volume it describes fit the device, does
// each FAT copy begin where it says with entry 0 carrying its media byte,
// is its FAT the size its clusters need, is its root cluster in use and
// not a subdirectory, is FSINFO where it says, and is its backup where it
// says. fsck.fat -a leaves such a difference alone ("not automatically
// fixing this") and goes on with the primary; ftools goes on with the one
// that describes the volume, and refuses when neither does.

// bootConflict is a FAT32 backup boot sector that differs from the
// primary, with the verdict on each.
type bootConflict struct {
	off     int64       // where the backup lies
	raw     []byte      // its sector
	bs      *BootSector // decoded
	primary error       // why the primary does not describe the volume; nil if it does
	backup  error       // the same for the backup
	// sameLayout: both put every region in the same place (they differ in
	// a label, a volume id, the boot code...), so the verdicts are equal.
	sameLayout bool
}

// findBootConflict returns the FAT32 backup of the primary boot sector bs
// (raw is its sector) when the backup decodes and differs from it (the
// dirty bit aside), with each judged; nil when there is no such backup.
// The backup is looked for where the primary says, and, when that sector
// holds no boot sector, in sector 6 as the backup itself states (with any
// sector size from 512 to 4096 bytes).
func findBootConflict(dev *fio.Device, bs *BootSector, raw []byte) *bootConflict {
	if !bs.Is32 {
		return nil
	}
	ss := int64(bs.BytesPerSector)
	c := &bootConflict{}
	var named error // the sector the primary names holds no boot sector
	if s := bs.BackupBootSector; s != 0 && s != 0xFFFF {
		off := int64(s) * ss
		b, err := fsutil.ReadBytes(dev, off, ss)
		if err == nil {
			c.bs, err = DecodeBootSector(b)
		}
		if err != nil || !c.bs.Is32 {
			if err == nil {
				err = fmt.Errorf("a FAT12/16 boot sector")
			}
			named = fmt.Errorf("it names sector %d (byte %d) as its backup, which holds no FAT32 boot sector (%v)", s, off, err)
			c.bs = nil
		} else {
			c.off, c.raw = off, b
		}
	}
	if c.bs == nil && named != nil {
		for s := int64(512); s <= maxBootRead; s *= 2 {
			off := usualBackupSector * s
			if off == int64(bs.BackupBootSector)*ss {
				continue
			}
			b, err := fsutil.ReadBytes(dev, off, s)
			if err != nil {
				break
			}
			if b2, err := DecodeBootSector(b); err == nil && b2.Is32 && int64(b2.BytesPerSector) == s && b2.BackupBootSector == usualBackupSector {
				c.bs, c.off, c.raw = b2, off, b
				break
			}
		}
	}
	if c.bs == nil || bytes.Equal(bootBytes(raw), bootBytes(c.raw)) {
		return nil
	}
	c.primary = bootFault(dev, bs)
	if c.primary == nil && named != nil {
		c.primary = named
	}
	c.backup = bootFault(dev, c.bs)
	if s := int64(c.bs.BackupBootSector) * int64(c.bs.BytesPerSector); c.backup == nil && s != c.off {
		c.backup = fmt.Errorf("it lies at byte %d but names sector %d as the backup", c.off, c.bs.BackupBootSector)
	}
	l1, err1 := bs.Layout()
	l2, err2 := c.bs.Layout()
	c.sameLayout = err1 == nil && err2 == nil && *l1 == *l2 && bs.Media == c.bs.Media
	return c
}

// bootFault says why the volume bs describes is not the one on dev, or nil
// when it is (see the comment at the top of this file). Each reason names
// the structure and the byte where the boot sector's claim fails.
func bootFault(dev *fio.Device, bs *BootSector) error {
	l, err := bs.Layout()
	if err != nil {
		return err
	}
	if err := bs.unsupportedFATs(); err != nil {
		return err
	}
	err = fsutil.FATsFit(dev, l.TotalSize, l.NumFATs, l.FATCopyOffset, 4, func(b []byte) string {
		if !fatSignature(l.Type, bs.Media, b) {
			return fmt.Sprintf("FAT entry 0 for media byte %#02x (it holds % x)", bs.Media, b)
		}
		return ""
	})
	if err != nil {
		return err
	}
	ss := l.SectorSize
	need := fatBytes(l.Type, l.Clusters)
	if max := (need+ss-1)/ss*ss + need/8 + l.ClusterSize + 8*ss; l.FATSize > max {
		return fmt.Errorf("its FATs of %d bytes each are far larger than its %d clusters need (%d bytes): the FAT size or the cluster size is wrong", l.FATSize, l.Clusters, need)
	}
	if l.Type == FAT32 {
		root := l.RootCluster
		b, err := fsutil.ReadBytes(dev, l.FATOffset+4*int64(root), 4)
		if err != nil {
			return fmt.Errorf("the root cluster %d's FAT entry: %v", root, err)
		}
		switch e := binary.LittleEndian.Uint32(b) & mask32; {
		case e == 0, e == 1, e == bad32:
			return fmt.Errorf("its root directory's first cluster %d is not in use in FAT 1 (entry %#x at byte %d)", root, e, l.FATOffset+4*int64(root))
		}
		off := l.ClusterOffset(root)
		b, err = fsutil.ReadBytes(dev, off, 11)
		if err != nil {
			return fmt.Errorf("its root directory's first cluster %d: %v", root, err)
		}
		if string(b) == ".          " {
			return fmt.Errorf("its root directory's first cluster %d (byte %d) begins with a \".\" entry: it holds a subdirectory", root, off)
		}
		if l.FSInfoOffset != 0 {
			sec, err := fsutil.ReadBytes(dev, l.FSInfoOffset, ss)
			if err == nil {
				_, err = DecodeFSInfo(sec)
			}
			if err != nil {
				return fmt.Errorf("its FSINFO sector %d (byte %d) holds no FSINFO: %v", bs.FSInfoSector, l.FSInfoOffset, err)
			}
		}
	}
	return nil
}

// fatSignature reports whether b, the first bytes of a FAT, hold entry 0
// as a volume with media byte media has it: the media byte with every
// other bit of the entry set (FAT32: the low 28 bits).
func fatSignature(t Type, media byte, b []byte) bool {
	return len(b) >= 4 && b[0] == media && fatEntry0(t, b)
}

// fatEntry0 reports whether b, the first bytes of a FAT, hold entry 0 as
// fsck.fat knows it: every bit above the media byte set.
func fatEntry0(t Type, b []byte) bool {
	return len(b) >= 4 && entry0Sound(t, binary.LittleEndian.Uint32(b))
}

// entry0Sound is fatEntry0 for the first four bytes of a FAT read as one
// little-endian value, or for entry 0 as a Table gives it.
func entry0Sound(t Type, e uint32) bool {
	switch t {
	case FAT12:
		return e&0x0F00 == 0x0F00
	case FAT16:
		return e&0xFF00 == 0xFF00
	}
	return e&0x0FFFFF00 == 0x0FFFFF00
}

// notRepairedError is Repair's refusal of a volume whose boot sector and
// backup contradict each other (ErrBootConflict).
type notRepairedError struct{ msg string }

func (e *notRepairedError) Error() string        { return "fat: not repaired: " + e.msg }
func (e *notRepairedError) Is(target error) bool { return target == ErrBootConflict }

// describe says what is wrong: the boot sector differs from its backup
// (diffs, fsck.fat's offset:boot/backup list) and does not describe the
// volume, and whether the backup does.
func (c *bootConflict) describe(diffs string) string {
	if c.backup == nil {
		return fmt.Sprintf("the boot sector differs from its backup at byte %d (offset:boot/backup %s) and does not describe the volume: %v; the backup does (check the volume with it: OpenForCheck)", c.off, diffs, c.primary)
	}
	return fmt.Sprintf("the boot sector differs from its backup at byte %d (offset:boot/backup %s) and neither describes the volume: the boot sector: %v; the backup: %v", c.off, diffs, c.primary, c.backup)
}

// fatCopiesFault is fsck.fat's own test of a boot sector against the
// volume (it then says "Both FATs appear to be corrupt" and gives up): a
// FAT copy begins with entry 0, every bit above its media byte set. When
// no copy does where the boot sector says, the boot sector does not say
// where the FATs are (a damaged reserved-sector count, FAT size or sector
// size), and nothing read through it is the volume's: readers would show
// an empty or wrong tree, and a repair or a writer would write FATs over
// data. nil when one copy does, or the FATs cannot be read.
func fatCopiesFault(dev *fio.Device, l *Layout) error {
	var held []string
	for i := 0; i < l.NumFATs; i++ {
		off := l.FATCopyOffset(i)
		b, err := fsutil.ReadBytes(dev, off, 4)
		if err != nil {
			return nil
		}
		if fatEntry0(l.Type, b) {
			return nil
		}
		held = append(held, fmt.Sprintf("FAT %d at byte %d holds % x", i+1, off, b))
	}
	if len(held) == 0 {
		return nil
	}
	return fmt.Errorf("no FAT copy begins where the boot sector says (%s, not FAT entry 0 with every bit above the media byte set): the boot sector does not describe this volume (are its reserved sectors, FAT size or sector size damaged?)", strings.Join(held, ", "))
}
