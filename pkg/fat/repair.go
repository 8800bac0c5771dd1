package fat

import (
	"context"
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// RepairOptions tune Repair.
type RepairOptions struct {
	// DryRun works out the repair, and what it would leave, without
	// writing anything.
	DryRun bool
	// Context, if not nil, stops the repair once it is done, between its
	// steps: before each verification pass and before the first write
	// (nothing written), and between the copies of shared clusters
	// (whatever of the dirty bit, the boot sector's own fixes and the
	// copies, into clusters the FAT still marks free, reached the device
	// by then: a cut there leaves the same).
	// From the FAT's write on, the repair runs to its end. Repair then
	// returns the context's error (wrapped).
	Context context.Context
}

// maxPasses bounds the verification passes: each checks the volume as the
// plan leaves it and plans what that finds (a truncated directory's
// entries, say); the plan is final when a pass finds nothing new to fix.
const maxPasses = 4

// Repair carries out the repair Check planned in rep (Check's report on v)
// and returns the plan, one sentence per fix. It repairs what fsck.fat -a
// repairs, and keeps more: shared clusters are copied so that both files
// keep their bytes, renamed members keep their long names, and a FAT copy
// whose chains hold together is used when FAT 1's do not.
//
// Before writing, Repair checks the volume as the plan would leave it,
// again and again until a pass finds nothing new to fix (at most four
// passes); what is left then is in rep.Left, and the problems fixed are
// marked Fixed. The dirty bit (and FAT[1]'s flags) are cleared only when
// nothing is left.
//
// The writes go out through the volume's commit path, in its crash-safe
// order: the dirty bit is set first, and the boot sector's own fixes
// (label, backup, where FSINFO is) follow it, as they depend on no
// cluster; then the data (copies of shared clusters, zeroed new directory
// clusters); then the FAT, every copy in one batch; then the directory
// entries; then FSINFO; and last, when nothing is left, the dirty bit is
// cleared (Volume.Close, with the flushes of the sync policy between). A
// crash in between leaves a dirty volume that Repair can take up again.
// v must be open on a writable device unless DryRun is set.
//
// A cancelled repair (opts.Context) stops at a point a cut could stop it
// at, and leaves what the cut would: nothing written, or a dirty volume
// whose problems a new Check finds again (with the dirty bit), none new.
func Repair(v *Volume, rep *Report, opts RepairOptions) ([]string, error) {
	p := rep.plan
	if p == nil {
		return nil, errors.New("fat: Repair needs the report Check made")
	}
	if p.refuse != nil {
		return nil, p.refuse
	}
	if !opts.DryRun && !v.dev.Writable() {
		return nil, ErrReadOnly
	}
	left, omitted, err := p.verify(opts.Context)
	if err != nil {
		return nil, err
	}
	for _, pr := range rep.Problems {
		if pr.Fix == "" && !pr.tree {
			left = append(left, pr)
		}
	}
	if err := fsutil.Cancelled(opts.Context); err != nil {
		return nil, err
	}
	clean := len(left) == 0 && omitted == 0
	if !clean {
		for _, pr := range rep.Problems {
			if pr.Kind == KindDirty {
				left = append(left, pr)
			}
		}
	}
	rep.Left, p.done = left, true
	rep.leftOmitted = omitted
	if opts.DryRun || !p.changed() {
		return p.sentences(), nil
	}
	if err := p.execute(opts.Context, clean); err != nil {
		// execute gave back the planned FAT: this report cannot repair
		// again (a new Check can).
		p.refuse = fmt.Errorf("fat: not repaired: the repair from this report stopped part way (%v): check the volume again", err)
		return p.sentences(), err
	}
	for i := range rep.Problems {
		pr := &rep.Problems[i]
		pr.Fixed = pr.Fix != "" && (clean || pr.Kind != KindDirty)
	}
	rep.omittedFixed = rep.omittedFixes
	if clean {
		rep.omittedFixed += rep.omittedDirtyFixes
	}
	return p.sentences(), nil
}

// verify checks the volume as the plan leaves it, planning what each pass
// finds, and returns what the last pass found.
func (p *plan) verify(ctx context.Context) ([]Problem, int, error) {
	opts := CheckOptions{MaxDepth: p.opts.MaxDepth, MaxProblems: p.opts.MaxProblems, Context: ctx}
	var left []Problem
	omitted := 0
	for pass := 0; pass < maxPasses; pass++ {
		for _, pd := range p.dirs {
			pd.reached = false
		}
		before := len(p.steps) + p.omitted
		t, err := runTree(&image{v: p.v, tb: p.tb, plan: p}, p, opts)
		if err != nil {
			return nil, 0, err
		}
		t.lost()
		t.checkLabel()
		t.release()
		left, omitted = t.rep.Problems, t.rep.Omitted
		if len(p.steps)+p.omitted == before {
			break
		}
	}
	return left, omitted, nil
}

// execute writes the plan in the volume's crash-safe order; clean says
// nothing is left, so the dirty flags may be cleared. Once ctx is done it
// stops between the copies of shared clusters (into clusters nothing
// names yet), before the FAT is written.
func (p *plan) execute(ctx context.Context, clean bool) error {
	v, l := p.v, p.v.layout
	defer p.free()
	if err := v.begin(); err != nil {
		return err
	}
	// The boot sector's fixes (label, backup, FSINFO's place) depend on no
	// cluster: they go first, so that the commit's flushes cover them
	// before the dirty bit is cleared.
	if err := p.writeBoot(); err != nil {
		return err
	}
	buf := make([]byte, l.ClusterSize)
	// The clusters written so far: a copy from one of them reads it only
	// once the writes queued for it have landed (as fillData has it: a
	// copy gets its source as the copies before it leave it).
	written := make(map[Cluster]bool, len(p.data))
	for _, d := range p.data {
		if err := fsutil.Cancelled(ctx); err != nil {
			return err
		}
		clear(buf)
		if written[d.src] {
			if err := v.flushData(); err != nil {
				return err
			}
			clear(written)
		}
		written[d.dst] = true
		if d.src != 0 {
			if _, err := v.dev.ReadAt(buf, l.ClusterOffset(d.src)); err != nil {
				return fmt.Errorf("fat: reading cluster %d to copy it: %w", d.src, err)
			}
		}
		if err := v.writeData(l.ClusterOffset(d.dst), buf); err != nil {
			return err
		}
	}
	if clean && p.fat1Flags {
		c, e := fat1Flags(l.Type)
		p.set(1, p.tb.Get(1)|c|e)
	}
	// Links from chains on disk to filled clusters wait for the commit's
	// entries phase, after a barrier behind the data; until then every
	// copy gets the sound copy's value (holdLink would take FAT 1's).
	for _, c := range p.links {
		if v.held == nil {
			v.held = map[Cluster]heldLink{}
		}
		v.held[c] = heldLink{old: p.base.Get(c), phase: phaseEntries}
	}
	if err := p.syncFAT(); err != nil {
		return err
	}
	for _, pd := range p.dirs {
		if !pd.reached || len(pd.dirty) == 0 {
			continue
		}
		d := &dir{v: v, first: pd.first, chain: pd.chain, raw: pd.raw, dirty: map[int]struct{}{}}
		for s := range pd.dirty {
			d.markDirty(s, 1)
		}
	}
	p.syncFSInfo()
	if err := v.Commit(); err != nil {
		return err
	}
	// Close clears the dirty bit when this session owns it: only when
	// nothing is left (it also clears one the volume came with).
	v.dirty.Set = clean && v.boot.Dirty()
	return v.Close()
}

// syncFSInfo plans FSINFO rewritten when its free count, hint or
// signatures are not what the repaired FAT needs.
func (p *plan) syncFSInfo() {
	v, l := p.v, p.v.layout
	if l.Type != FAT32 || l.FSInfoOffset == 0 {
		return
	}
	if v.info == nil {
		sec := make([]byte, l.SectorSize)
		if _, err := v.dev.ReadAt(sec, l.FSInfoOffset); err != nil {
			return // the commit's own FSINFO write is skipped; Check reports it again
		}
		v.info, v.infoRaw = &FSInfo{FreeCount: FSInfoUnknown, NextFree: FSInfoUnknown}, sec
		v.infoDirty = true
	}
	nf := v.validNextFree(v.info.NextFree)
	if v.info.FreeCount != v.freeCount() || v.info.NextFree != nf || p.fsinfo {
		v.info.FreeCount, v.info.NextFree = v.freeCount(), nf
		v.infoDirty = true
	}
}

// writeBoot writes the boot sector when the plan restores it from the
// backup or changes its label, and the FAT32 backup boot sector when it
// differed or the primary changed.
func (p *plan) writeBoot() error {
	v, l := p.v, p.v.layout
	changed := p.restoreBoot
	if p.bootSig && v.boot.BootSig != ExtBootSig {
		v.boot.BootSig = ExtBootSig
		changed = true
	}
	if p.bootLabel != nil && *p.bootLabel != v.boot.VolumeLabel {
		v.boot.VolumeLabel = *p.bootLabel
		changed = true
	}
	if p.newFSInfo != 0 {
		// The sector first, then the boot sector that points at it.
		sec := make([]byte, l.SectorSize)
		fi := &FSInfo{FreeCount: v.freeCount(), NextFree: v.validNextFree(FSInfoUnknown)}
		fi.Encode(sec)
		off := int64(p.newFSInfo) * l.SectorSize
		if _, err := v.dev.WriteAt(sec, off); err != nil {
			return fmt.Errorf("fat: writing FSINFO at byte %d: %w", off, err)
		}
		v.boot.FSInfoSector, l.FSInfoOffset = p.newFSInfo, off
		v.info, v.infoRaw = fi, sec
		changed = true
	}
	if p.newBackup != 0 {
		v.boot.BackupBootSector, l.BackupBootOffset = p.newBackup, int64(p.newBackup)*l.SectorSize
		changed = true
	}
	// The backup before the primary: a crash in between leaves a backup
	// that differs, never a primary that names a backup not yet written.
	// The backup gets every byte of the primary (EncodeOver keeps those
	// BootSector does not model), with the dirty bit clear.
	if l.Type == FAT32 && l.BackupBootOffset != 0 && (changed || p.backupBoot) {
		v.boot.EncodeOver(v.raw)
		if _, err := v.dev.WriteAt(bootBytes(v.raw), l.BackupBootOffset); err != nil {
			return fmt.Errorf("fat: writing the backup boot sector at byte %d: %w", l.BackupBootOffset, err)
		}
	}
	if changed {
		return v.writeBoot()
	}
	return nil
}
