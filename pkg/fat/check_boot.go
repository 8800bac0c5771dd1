package fat

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// volFix reports a volume-wide problem with its fix.
func volFix(rep *Report, p *plan, pr Problem, format string, args ...any) {
	pr.Fix = p.step(format, args...)
	rep.add(pr)
}

// volProblem reports a volume-wide problem Repair cannot fix.
func volProblem(rep *Report, kind string, off int64, format string, args ...any) {
	rep.add(Problem{Kind: kind, Offset: off, Message: fmt.Sprintf(format, args...)})
}

// checkBoot checks what Layout does not: the primary boot sector (when the
// volume was opened from its backup), the volume against the device, its
// last sector, and the FAT32 backup boot sector byte by byte.
func checkBoot(v *Volume, rep *Report, p *plan, bootErr error) error {
	bs, l := v.boot, v.layout
	for _, w := range bs.Warnings() {
		// checkDirty reports the dirty bit; checkReservedSectors a missing
		// backup or FSINFO, which fsck.fat makes; checkLabel an extended
		// boot signature that is not 0x29.
		if !strings.HasPrefix(w, "dirty bit") && !strings.HasPrefix(w, "extended boot signature") &&
			(l.Type != FAT32 || w != "no backup boot sector" && w != "no FSINFO sector") {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if bootErr != nil {
		p.restoreBoot = true
		volFix(rep, p, Problem{Kind: KindBootSector, Offset: 0, Message: fmt.Sprintf("the boot sector is unusable (%v); checked with the backup at byte %d", bootErr, l.BackupBootOffset)},
			"copy the backup boot sector over the boot sector")
	}
	if l.TotalSize > v.dev.Size() {
		off := int64(offTotalSectors32)
		if bs.TotalSectors16 != 0 {
			off = offTotalSectors16
		}
		volProblem(rep, KindBootSector, off, "%s", fsutil.CutShort(l.TotalSize, v.dev.Path(), v.dev.Size()))
	} else {
		last := make([]byte, l.SectorSize)
		if _, err := v.dev.ReadAt(last, l.TotalSize-l.SectorSize); err != nil {
			volProblem(rep, KindBootSector, l.TotalSize-l.SectorSize, "the volume's last sector cannot be read: %v", err)
		}
	}
	if fault := fatCopiesFault(v.dev, l); fault != nil {
		// Refused, as fsck.fat gives up ("Both FATs appear to be
		// corrupt"): a repair would write FATs over data.
		p.refuse = &notRepairedError{msg: fault.Error()}
		volProblem(rep, KindBootSector, l.FATOffset, "%s", fault)
		return nil
	}
	if l.Type != FAT32 || bootErr != nil {
		return nil
	}
	if c := findBootConflict(v.dev, bs, v.raw); c != nil && c.primary != nil && !c.sameLayout {
		// Never copied over the backup: the repair is refused, and
		// OpenForCheck checks such a volume with its backup when the
		// backup describes it.
		diffs := strings.Join(byteDiffs(bootBytes(v.raw), bootBytes(c.raw), 16), ", ")
		msg := c.describe(diffs)
		p.refuse = &notRepairedError{msg: msg}
		volProblem(rep, KindBootSector, int64(max(firstDiff(bootBytes(v.raw), bootBytes(c.raw)), 0)), "%s", msg)
		return nil
	}
	checkReservedSectors(v, rep, p)
	if l.BackupBootOffset == 0 {
		return nil
	}
	b := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(b, l.BackupBootOffset); err != nil {
		return fmt.Errorf("fat: reading the backup boot sector at byte %d: %w", l.BackupBootOffset, err)
	}
	if _, err := DecodeBootSector(b); err != nil {
		p.backupBoot = true
		volFix(rep, p, Problem{Kind: KindBackupBoot, Offset: l.BackupBootOffset, Message: fmt.Sprintf("the backup boot sector is unusable: %v", err)},
			"copy the boot sector over its backup")
		return nil
	}
	// Every byte of the sector, as read: the reserved bytes 52-63 and the
	// signature too, which BootSector does not model. Only the dirty bit
	// is left out: it lives in the primary only, as Linux keeps it, and
	// checkDirty reports it.
	primary, backup := bootBytes(v.raw), bootBytes(b)
	if diffs := byteDiffs(primary, backup, 16); len(diffs) > 0 {
		p.backupBoot = true
		i := firstDiff(primary, backup)
		volFix(rep, p, Problem{Kind: KindBackupBoot, Offset: l.BackupBootOffset + int64(i),
			Message: fmt.Sprintf("the backup boot sector differs from the boot sector (offset:boot/backup) %s", strings.Join(diffs, ", "))},
			"copy the boot sector over its backup")
	}
	return nil
}

// bootBytes is a FAT32 boot sector as read with its dirty bit clear: what
// the backup boot sector must hold, byte for byte.
func bootBytes(sector []byte) []byte {
	out := bytes.Clone(sector)
	if len(out) > ext32+relState {
		out[ext32+relState] &^= stateDirty
	}
	return out
}

// checkReservedSectors plans a FAT32 volume without a backup boot sector
// or without FSINFO given one, where fsck.fat puts them: the backup in
// sector 6 (else the last reserved sector), FSINFO in the first reserved
// sector after the boot sector that the backup does not take.
func checkReservedSectors(v *Volume, rep *Report, p *plan) {
	bs := v.boot
	res := int(bs.ReservedSectors)
	backup := int(bs.BackupBootSector)
	if backup == 0 || backup == 0xFFFF {
		backup = 0
		if res < 3 {
			rep.warnf("no backup boot sector, and no room for one in the %d reserved sectors", res)
		} else {
			backup = 6
			if res < 7 || int(bs.FSInfoSector) == 6 {
				if backup = res - 1; backup == int(bs.FSInfoSector) {
					backup--
				}
			}
			p.newBackup = uint16(backup)
			volFix(rep, p, Problem{Kind: KindBackupBoot, Offset: offBackupBootSector, Message: "there is no backup boot sector"},
				"make a backup boot sector in sector %d", backup)
		}
	}
	if fs := bs.FSInfoSector; fs == 0 || fs == 0xFFFF {
		s := 1
		for s < res && s == backup {
			s++
		}
		if s >= res {
			rep.warnf("no FSINFO sector, and no room for one in the %d reserved sectors", res)
			return
		}
		p.newFSInfo = uint16(s)
		volFix(rep, p, Problem{Kind: KindFSInfo, Offset: offFSInfoSector, Message: "there is no FSINFO sector"},
			"make an FSINFO sector in sector %d", s)
	}
}

// byteDiffs lists the bytes where a and b differ as fsck.fat does,
// "offset:a/b" in hex, at most limit of them and then how many more.
func byteDiffs(a, b []byte, limit int) []string {
	var out []string
	more := 0
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] == b[i] {
			continue
		}
		if len(out) < limit {
			out = append(out, fmt.Sprintf("%d:%02x/%02x", i, a[i], b[i]))
		} else {
			more++
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	return out
}

// firstDiff is the index of the first byte where a and b differ, or -1.
var firstDiff = fsutil.FirstDiff

// copyFAT plans every FAT copy made equal to the plan's table, which
// starts from copy sound.
func (p *plan) copyFAT(fc *fatCopies, sound int) {
	p.copies = fc
	for _, i := range fc.differ {
		if sound == i {
			p.step("copy FAT %d over FAT 1 and the other copies", i+1)
			return
		}
	}
	for _, i := range fc.differ {
		p.step("copy FAT %d over FAT %d", sound+1, i+1)
	}
}

// FAT[1]'s flag bits: set means clean. FAT12 has none.
func fat1Flags(t Type) (clean, noError Cluster) {
	switch t {
	case FAT16:
		return 0x8000, 0x4000
	case FAT32:
		return 0x08000000, 0x04000000
	}
	return 0, 0
}

// checkReserved checks FAT entries 0 and 1 of tb (the sound copy): entry
// 0 must hold the media byte with all other bits set; entry 1 an end of
// chain mark, whose top bits on FAT16 (15, 14) and FAT32 (27, 26) say the
// volume was shut down cleanly and met no disk error.
func checkReserved(v *Volume, rep *Report, p *plan, tb Table) {
	l := v.layout
	want := Cluster(0xF00) | Cluster(v.boot.Media)
	switch l.Type {
	case FAT16:
		want |= 0xFF00
	case FAT32:
		want |= 0x0FFFFF00
	}
	if got := tb.Get(0); got != want {
		volFix(rep, p, Problem{Kind: KindMedia, Offset: l.FATOffset, Message: fmt.Sprintf("FAT entry 0 is %#x, want %#x for media byte %#02x", uint32(got), uint32(want), v.boot.Media)},
			"set FAT entry 0 to %#x", uint32(want))
		p.set(0, want)
	}
	clean, noErr := fat1Flags(l.Type)
	e1 := tb.Get(1)
	off := fatEntryOffset(l, 1)
	if !tb.IsEOC(e1 | clean | noErr) {
		fixed := (tb.EOC() &^ (clean | noErr)) | (e1 & (clean | noErr))
		volFix(rep, p, Problem{Kind: KindFATEntry1, Offset: off, Message: fmt.Sprintf("FAT entry 1 is %#x, not an end-of-chain mark", uint32(e1))},
			"set FAT entry 1 to %#x", uint32(fixed))
		p.set(1, fixed)
	}
	if clean != 0 && e1&clean == 0 {
		p.fat1Flags = true
		volFix(rep, p, Problem{Kind: KindDirty, Offset: off, Message: "FAT entry 1's clean-shutdown bit is clear: the volume was not unmounted cleanly"},
			"set FAT entry 1's clean-shutdown bit once nothing else is left")
	}
	if noErr != 0 && e1&noErr == 0 {
		p.fat1Flags = true
		volFix(rep, p, Problem{Kind: KindDirty, Offset: off, Message: "FAT entry 1's hard-error bit is clear: the last writer met a disk error"},
			"set FAT entry 1's hard-error bit once nothing else is left")
	}
}

// checkDirty checks the boot sector's dirty bit.
func checkDirty(v *Volume, rep *Report, p *plan) {
	if !v.boot.Dirty() {
		return
	}
	off := int64(ext16 + relState)
	if v.boot.Is32 {
		off = ext32 + relState
	}
	p.clearDirty = true
	volFix(rep, p, Problem{Kind: KindDirty, Offset: off, Message: "the dirty bit is set: the volume was not unmounted cleanly"},
		"clear the dirty bit once nothing else is left")
}

// checkFSInfo checks the FAT32 FSINFO sector's signatures and free count
// (against the FAT the check followed); an unknown free count and an
// out-of-range next free hint are warnings: both are hints that readers
// check before use.
func checkFSInfo(v *Volume, rep *Report, p *plan) error {
	l := v.layout
	if l.Type != FAT32 {
		return nil
	}
	if l.FSInfoOffset == 0 {
		return nil // the boot sector's warnings say so
	}
	sec := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(sec, l.FSInfoOffset); err != nil {
		return fmt.Errorf("fat: reading FSINFO at byte %d: %w", l.FSInfoOffset, err)
	}
	fi, err := DecodeFSInfo(sec)
	if err != nil {
		p.fsinfo = true
		off := l.FSInfoOffset
		var fe *FormatError
		if errors.As(err, &fe) && fe.Offset >= 0 {
			off += fe.Offset
		}
		volFix(rep, p, Problem{Kind: KindFSInfo, Offset: off, Message: err.Error()}, "rewrite FSINFO with its signatures and the free count")
		return nil
	}
	switch {
	case fi.FreeCount == FSInfoUnknown:
		rep.warnf("FSINFO's free count is not set (%#x); the FAT has %d free clusters", fi.FreeCount, rep.FreeClusters)
	case fi.FreeCount != rep.FreeClusters:
		p.fsinfo = true
		volFix(rep, p, Problem{Kind: KindFSInfo, Offset: l.FSInfoOffset + offFSInfoFree,
			Message: fmt.Sprintf("free count is %d but the FAT has %d free clusters", fi.FreeCount, rep.FreeClusters)},
			"set FSINFO's free count to the FAT's once repaired")
	}
	if nf := fi.NextFree; nf != FSInfoUnknown && (nf < 2 || nf > uint32(l.MaxCluster())) {
		rep.warnf("FSINFO's next free cluster hint %d is out of range 2..%d (readers ignore it)", nf, l.MaxCluster())
	}
	return nil
}
