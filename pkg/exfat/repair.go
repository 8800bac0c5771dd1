package exfat

import (
	"context"
	"fmt"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Repair fixes on v's device what is safe to fix among the problems rep
// (Check's report on v) lists, marks those problems Fixed, and returns one
// sentence per fix. v must be open on a writable device. The fixes, in
// the order they are written, with a barrier before the last:
//
//   - a main boot region Check could not use (v was opened from the
//     backup): the backup region is copied over it;
//   - a backup region that is unusable or differs: the main one is copied
//     over it;
//   - clusters files use that the bitmap marks free: they are marked in
//     use (as fsck.exfat does);
//   - name hashes that do not match their names: rewritten, with the set
//     checksum (as fsck.exfat does), when the up-case table is sound;
//   - an interrupted move (two entries naming one file): the entry found
//     second is deleted, the file stays under the first name;
//   - a FAT chain that goes on past its file's size (left by a cut while
//     a fragmented file was extended) and shares no cluster: it is ended
//     where the size ends, and the clusters cut off are freed with the
//     lost clusters;
//   - lost clusters, marked in use but used by no file: marked free, but
//     only when the whole tree was read without damage (a broken chain or
//     an unreadable entry set may name them);
//   - PercentInUse: set from the bitmap;
//   - the VolumeDirty flag: cleared, last, and only when no problem is
//     left unfixed, so that the next mount still warns about what remains.
//
// A cancelled repair (opts.Context) stops before the first of those
// steps (nothing written) or between them: after a boot region's copy,
// or after the batch of the rest and its barrier, where a cut between
// them would leave the volume, the VolumeDirty flag as it was.
//
// Cross-links, broken chains, wrong sizes, bad set checksums and unknown
// entries are left alone: fixing them means choosing which data to give up.
//
// With opts.DryRun nothing is written (v may be read-only): the sentences
// say what would be fixed, and the problems that would be are marked
// Fixed, so that Remaining says what a repair would leave.
func Repair(v *Volume, rep *Report, opts RepairOptions) ([]string, error) {
	dry := opts.DryRun
	if rep.refuse != nil {
		return nil, rep.refuse
	}
	if err := fsutil.Cancelled(opts.Context); err != nil {
		return nil, err
	}
	if !dry && !v.dev.Writable() {
		return nil, ErrReadOnly
	}
	l := v.layout
	ss := int(l.SectorSize)
	used := int64(l.Clusters) - int64(v.FreeClusters()) // as the repair leaves the bitmap
	var fixes []string
	mark := func(kinds ...string) {
		for i := range rep.Problems {
			for _, k := range kinds {
				if rep.Problems[i].Kind == k {
					rep.Problems[i].Fixed = true
				}
			}
		}
	}
	copyRegion := func(from, to int64) error {
		if dry {
			return nil
		}
		region := make([]byte, bootRegionSectors*ss)
		if _, err := v.dev.ReadAt(region, from); err != nil {
			return fmt.Errorf("exfat: reading the boot region at byte %d: %w", from, err)
		}
		// The copy carries no dirty flag: the main sector's flags are
		// written separately, last.
		region[offVolumeFlags], region[offVolumeFlags+1] = 0, 0
		if _, err := v.dev.WriteAt(region, to); err != nil {
			return fmt.Errorf("exfat: writing the boot region at byte %d: %w", to, err)
		}
		return nil
	}
	if rep.fromBackup {
		if err := copyRegion(l.BackupBootOffset, 0); err != nil {
			return fixes, err
		}
		v.fromBackup, v.bootErr, rep.fromBackup = false, nil, false
		fixes = append(fixes, fmt.Sprintf("restored the main boot region from the backup at byte %d", l.BackupBootOffset))
		mark(KindBootSector, KindBootChecksum)
		if err := v.barrierUnless(dry); err != nil {
			return fixes, err
		}
	}
	cancelled := func() error {
		if dry {
			return nil
		}
		return fsutil.Cancelled(opts.Context)
	}
	if rep.backupStale {
		if err := cancelled(); err != nil {
			return fixes, err
		}
		if err := copyRegion(0, l.BackupBootOffset); err != nil {
			return fixes, err
		}
		rep.backupStale = false
		fixes = append(fixes, fmt.Sprintf("copied the main boot region over the backup at byte %d", l.BackupBootOffset))
		mark(KindBackupBoot)
	}
	if err := cancelled(); err != nil {
		return fixes, err
	}
	b := v.dev.NewBatch()
	if len(rep.unmarked) > 0 && v.bitmap != nil {
		n := extentsClusters(rep.unmarked)
		for _, e := range rep.unmarked {
			if !dry {
				v.bitmap.mark(e, true)
			}
		}
		used += int64(n)
		rep.unmarked = nil
		fixes = append(fixes, fmt.Sprintf("marked %d clusters that files use as in use in the allocation bitmap", n))
		mark(KindFree)
	}
	for _, f := range rep.hashFixes {
		if dry {
			break
		}
		for i := 0; i < len(f.set); i += EntrySize {
			off, err := fileOffset(l, f.exts, int64(f.slot*EntrySize+i))
			if err != nil {
				return fixes, err
			}
			if err := b.Write(off, f.set[i:i+EntrySize]); err != nil {
				return fixes, err
			}
		}
	}
	if n := len(rep.hashFixes); n > 0 {
		rep.hashFixes = nil
		fixes = append(fixes, fmt.Sprintf("rewrote the name hash of %d entry sets", n))
		mark(KindNameHash)
	}
	for _, f := range append(rep.renameFixes, rep.setFixes...) {
		if dry {
			break
		}
		for i := 0; i < len(f.set)/EntrySize; i++ {
			off, err := fileOffset(l, f.exts, int64((f.slot+i)*EntrySize))
			if err != nil {
				return fixes, err
			}
			var typ [1]byte
			if _, err := v.dev.ReadAt(typ[:], off); err != nil {
				return fixes, fmt.Errorf("exfat: reading the entry at byte %d: %w", off, err)
			}
			typ[0] = deletedType(typ[0])
			if err := b.Write(off, typ[:]); err != nil {
				return fixes, err
			}
		}
	}
	if n := len(rep.setFixes); n > 0 {
		// Their clusters, unless another entry uses them too, are free
		// with them (in the batch that deletes the sets, as lost
		// clusters are: no valid entry names them either way).
		freed := int64(0)
		for _, f := range rep.setFixes {
			for _, e := range f.free {
				if v.bitmap != nil && !dry {
					v.bitmap.mark(e, false)
				}
				freed += int64(e.Len)
			}
		}
		if v.bitmap != nil {
			used -= freed
		}
		rep.setFixes = nil
		fixes = append(fixes, fmt.Sprintf("deleted %d entry sets whose checksum fails, as fsck.exfat -y does, and freed the %d clusters they named", n, freed))
		mark(KindSetChecksum)
	}
	if n := len(rep.renameFixes); n > 0 {
		rep.renameFixes = nil
		fixes = append(fixes, fmt.Sprintf("deleted the second entry of %d files left under two names by an interrupted move", n))
		mark(KindRename)
	}
	if n := len(rep.chainCuts); n > 0 && !dry {
		for _, c := range rep.chainCuts {
			if err := v.fat.Set(c, fatEOC); err != nil {
				return fixes, err
			}
		}
		if err := v.fat.flush(b); err != nil {
			return fixes, err
		}
	}
	if n := len(rep.chainCuts); n > 0 {
		rep.chainCuts = nil
		fixes = append(fixes, fmt.Sprintf("ended %d cluster chains where their files' sizes end", n))
		for i := range rep.Problems {
			if p := &rep.Problems[i]; p.Kind == KindSize && strings.Contains(p.Message, "goes on past") {
				p.Fixed = true
			}
		}
		// The clusters cut off are among the lost ones, freed below.
	}
	if len(rep.lost) > 0 && v.bitmap != nil && rep.treeSound() {
		for _, e := range rep.lost {
			if !dry {
				v.bitmap.mark(e, false)
			}
		}
		used -= int64(rep.LostClusters)
		fixes = append(fixes, fmt.Sprintf("marked %d lost clusters free", rep.LostClusters))
		rep.lost = nil
		mark(KindLost)
	}
	if !dry {
		if v.bitmap != nil {
			if err := v.bitmap.flush(b, l); err != nil {
				return fixes, err
			}
		}
		if err := b.Flush(); err != nil {
			return fixes, fmt.Errorf("exfat: writing repairs: %w", err)
		}
		if err := v.barrier(); err != nil {
			return fixes, err
		}
	}
	if err := cancelled(); err != nil {
		return fixes, err
	}
	flags := false
	if rep.percentBad && v.bitmap != nil {
		pct := uint8(max(used, 0) * 100 / int64(l.Clusters))
		if !dry {
			v.boot.PercentInUse = pct
		}
		rep.percentBad = false
		fixes = append(fixes, fmt.Sprintf("set percent in use to %d", pct))
		flags = true
	}
	if rep.dirty && rep.Remaining() == 1 {
		if !dry {
			v.boot.SetDirty(false)
			v.dirty.Was = false
		}
		rep.dirty = false
		fixes = append(fixes, "cleared the VolumeDirty flag")
		mark(KindDirty)
		flags = true
	}
	if flags && !dry {
		if err := v.writeBootFlags(); err != nil {
			return fixes, err
		}
		if err := v.barrier(); err != nil {
			return fixes, err
		}
	}
	return fixes, nil
}

// treeSound reports whether Check read every entry set and chain whole,
// so that clusters it found unused are truly unused.
func (r *Report) treeSound() bool {
	if r.sysUnclaimed {
		return false
	}
	for _, p := range r.Problems {
		if p.Fixed {
			continue
		}
		switch p.Kind {
		case KindChain, KindSize, KindCrossLink, KindEntrySet, KindSetChecksum, KindDepth, KindBitmap, KindDirEntry, KindRename, KindDuplicate:
			return false
		}
	}
	return r.Omitted == 0
}

// RepairOptions tune Repair; they are pkg/fat's that apply to exFAT.
type RepairOptions struct {
	// DryRun works the repair out without writing anything.
	DryRun bool
	// Context, if not nil, stops the repair once it is done, between the
	// steps listed in Repair's doc (each written whole, with its barrier),
	// and Repair returns its error (wrapped). The steps done are marked
	// Fixed; a new Repair with the report goes on with the rest.
	Context context.Context
}

// barrierUnless is a barrier, except in a dry run.
func (v *Volume) barrierUnless(dry bool) error {
	if dry {
		return nil
	}
	return v.barrier()
}
