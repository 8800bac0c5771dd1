package fat

import "fmt"

// unsupportedFATs refuses a FAT count other than 1 or 2. Readers accept
// any count (Linux and mtools do), but fsck.fat checks only volumes with 1
// or 2 FATs ("only 1 or 2 FATs are supported"), so fverify reports such a
// volume as fsck.fat does and writers refuse it: a volume that no checker
// can check is not one to change.
func (bs *BootSector) unsupportedFATs() error {
	if n := bs.NumFATs; n > 2 {
		return &FormatError{Structure: "boot sector", Field: "number of FATs", Offset: offNumFATs, Value: n,
			Msg: fmt.Sprintf("fsck.fat checks only volumes with 1 or 2 FATs, and ftools writes only those (byte %d may be damaged)", offNumFATs), Err: ErrCorrupt}
	}
	return nil
}
