package fat

import (
	"bytes"
	"fmt"
)

// Repair fixes on v's device what is safe to fix among the problems rep
// (Check's report on v) lists, marks those problems Fixed, and returns one
// sentence per fix. v must be open on a writable device; nothing else in
// the volume is changed. The fixes, in the order they are written:
//
//   - a primary boot sector Check could not use (v was opened from the
//     backup, see OpenForCheck): the backup is copied over it;
//   - FAT copies that differ from FAT 1, when FAT 1 is the sound one (it
//     carries the media byte and its chains check out at least as well):
//     FAT 1's differing sectors are copied over them, in one batch;
//   - FSINFO with bad signatures, a wrong free count or an invalid hint: it
//     is rewritten with the free count of FAT 1 and a valid hint;
//   - a backup boot sector that differs from the primary: the primary is
//     copied over it;
//   - the dirty bit: it is cleared, last.
//
// Lost clusters, cross-links, bad chains and directory damage are left
// alone: fixing them means choosing which data to give up.
func Repair(v *Volume, rep *Report) ([]string, error) {
	if !v.dev.Writable() {
		return nil, ErrReadOnly
	}
	l := v.layout
	var fixes []string
	mark := func(kind string, match func(Problem) bool) {
		for i := range rep.Problems {
			if p := &rep.Problems[i]; p.Kind == kind && (match == nil || match(*p)) {
				p.Fixed = true
			}
		}
	}
	if rep.fromBackup {
		if _, err := v.dev.WriteAt(v.raw, 0); err != nil {
			return fixes, fmt.Errorf("fat: restoring the boot sector from its backup: %w", err)
		}
		fixes = append(fixes, fmt.Sprintf("restored the boot sector from the backup at byte %d", l.BackupBootOffset))
		mark(KindBootSector, func(p Problem) bool { return p.Offset == 0 })
		rep.fromBackup = false
	}
	if len(rep.badCopies) > 0 && rep.fat1Sound {
		fixed, err := copyFAT1(v, rep.badCopies)
		if err != nil {
			return fixes, err
		}
		fixes = append(fixes, fixed...)
		mark(KindFATCopies, nil)
		rep.badCopies = nil
	}
	if rep.fsinfoBad {
		msg, err := rewriteFSInfo(v, rep.FreeClusters)
		if err != nil {
			return fixes, err
		}
		fixes = append(fixes, msg)
		mark(KindFSInfo, nil)
		rep.fsinfoBad = false
	}
	if rep.backupStale && l.BackupBootOffset != 0 {
		if _, err := v.dev.WriteAt(withoutDirty(v.raw), l.BackupBootOffset); err != nil {
			return fixes, fmt.Errorf("fat: writing the backup boot sector: %w", err)
		}
		fixes = append(fixes, fmt.Sprintf("copied the boot sector over the backup at byte %d", l.BackupBootOffset))
		mark(KindBackupBoot, nil)
		rep.backupStale = false
	}
	if rep.dirty {
		// Flip the one bit in the sector as read, rather than re-encoding
		// it, so that no other byte changes.
		off := ext16 + relState
		if v.boot.Is32 {
			off = ext32 + relState
		}
		raw := bytes.Clone(v.raw)
		raw[off] &^= stateDirty
		if _, err := v.dev.WriteAt(raw, 0); err != nil {
			return fixes, fmt.Errorf("fat: clearing the dirty bit: %w", err)
		}
		copy(v.raw, raw)
		v.boot.SetDirty(false)
		v.wasDirty = false
		fixes = append(fixes, "cleared the dirty bit")
		mark(KindDirty, nil)
		rep.dirty = false
	}
	return fixes, nil
}

// copyFAT1 writes FAT 1's sectors over the sectors of each listed copy that
// differ from them, all in one batch.
func copyFAT1(v *Volume, copies []int) ([]string, error) {
	l := v.layout
	fat1 := v.table.Bytes()
	ss := l.SectorSize
	b := v.dev.NewBatch()
	var fixes []string
	for _, i := range copies {
		base := l.FATCopyOffset(i)
		other := make([]byte, l.FATSize)
		if _, err := v.dev.ReadAt(other, base); err != nil {
			return nil, fmt.Errorf("fat: reading FAT %d: %w", i+1, err)
		}
		sectors := 0
		for s := int64(0); s < l.FATSize; s += ss {
			e := min(s+ss, l.FATSize)
			if bytes.Equal(fat1[s:e], other[s:e]) {
				continue
			}
			// Extend over the following differing sectors: one write per run.
			for e < l.FATSize && !bytes.Equal(fat1[e:min(e+ss, l.FATSize)], other[e:min(e+ss, l.FATSize)]) {
				e = min(e+ss, l.FATSize)
			}
			if err := b.Write(base+s, fat1[s:e]); err != nil {
				return nil, fmt.Errorf("fat: writing FAT %d: %w", i+1, err)
			}
			sectors += int((e - s + ss - 1) / ss)
			s = e - ss
		}
		fixes = append(fixes, fmt.Sprintf("copied FAT 1 over FAT %d (%d sectors differed)", i+1, sectors))
	}
	if err := b.Flush(); err != nil {
		return nil, fmt.Errorf("fat: writing the FAT copies: %w", err)
	}
	return fixes, nil
}

// rewriteFSInfo writes FSINFO with free as the free count and a valid next
// free hint: the old one if it is valid, else the cluster before the first
// free one.
func rewriteFSInfo(v *Volume, free uint32) (string, error) {
	l := v.layout
	sec := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(sec, l.FSInfoOffset); err != nil {
		return "", fmt.Errorf("fat: reading FSINFO: %w", err)
	}
	fi := &FSInfo{FreeCount: free, NextFree: FSInfoUnknown}
	if old, err := DecodeFSInfo(sec); err == nil {
		fi.NextFree = old.NextFree
	}
	fi.NextFree = v.validNextFree(fi.NextFree)
	fi.Encode(sec)
	if _, err := v.dev.WriteAt(sec, l.FSInfoOffset); err != nil {
		return "", fmt.Errorf("fat: writing FSINFO: %w", err)
	}
	v.info, v.infoRaw = fi, sec
	return fmt.Sprintf("rewrote FSINFO: free count %d, next free cluster %d", fi.FreeCount, fi.NextFree), nil
}
