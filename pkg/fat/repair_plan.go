package fat

import (
	"fmt"
	"runtime"
	"sync"
)

// A plan is the repair Check works out while it checks: the FAT as it
// should be, the directory slots to rewrite, the clusters to fill before
// the FAT links them in, and the volume-wide fixes. Nothing is written
// until Repair executes it; until then it also serves as the overlay
// through which Repair's verification passes see the repaired volume.
type plan struct {
	v       *Volume
	salvage bool
	opts    CheckOptions // the bounds of the check, for the verification passes

	base    Table  // the FAT as the check read it (the sound copy)
	tb      Table  // base with the planned changes (a planTable); base itself until the first change
	release func() // gives back the bytes tb.Bytes built

	dirs   map[Cluster]*planDir // directories with slots to rewrite, by first cluster (0: the fixed root)
	data   []planData           // clusters to fill before the FAT links them in
	links  []Cluster            // entries of chains on disk the plan links to filled clusters
	filled map[Cluster]Cluster  // data by destination: the cluster on disk whose bytes it gets (see fillData), 0 for zeros
	cursor Cluster              // where allocation looks next
	looked uint32               // FAT entries allocation has looked at

	steps   []string // the plan, one sentence per fix, in order
	omitted int      // sentences beyond maxSteps
	volume  int      // how many steps were planned before the tree walk

	// Volume-wide fixes, written after the directories.
	restoreBoot bool      // copy the backup boot sector over the unusable primary
	bootLabel   *[11]byte // new label for the boot sector
	bootSig     bool      // set the extended boot signature (0x29), which makes the label field valid
	backupBoot  bool      // copy the primary boot sector over the backup
	newBackup   uint16    // make a backup boot sector in this sector (FAT32)
	newFSInfo   uint16    // make an FSINFO sector in this sector (FAT32)
	fsinfo      bool      // FSINFO needs rewriting
	copies      *fatCopies
	clearDirty  bool // clear the boot sector's dirty bit once nothing is left
	fat1Flags   bool // set FAT[1]'s clean-shutdown and no-hard-error bits once nothing is left

	// refuse, when set, is why the volume cannot be repaired at all: its
	// boot sector contradicts the backup and does not describe the volume
	// (boot_judge.go). Repair returns it and writes nothing.
	refuse error

	done bool // Repair has run (or, with DryRun, worked out what it would leave)

	work checkWork // the steps the check and its verification passes took
}

// planDir is a directory whose slots the plan rewrites.
type planDir struct {
	first    Cluster
	chain    []Cluster // nil for the fixed root
	raw      []byte    // the directory with the planned slots
	dirty    map[int]bool
	names    *ShortNameSet // short names in use, for new unique names; built on first need
	nextFSCK int           // uniqueName's next try: the names before it are in names
	work     *checkWork    // the plan's count
	reached  bool          // the last pass read it: only reachable directories are written
}

// planData is a cluster to fill: a copy of src, or zeros if src is 0.
type planData struct{ dst, src Cluster }

// maxSteps bounds the plan's list of sentences, as MaxProblems bounds the
// problems.
const maxSteps = DefaultMaxProblems

func newPlan(v *Volume, opts CheckOptions) *plan {
	opts.Visit, opts.Progress = nil, nil
	return &plan{v: v, salvage: opts.Salvage, opts: opts, base: v.table, tb: v.table, dirs: map[Cluster]*planDir{}, cursor: FirstCluster,
		work: checkWork{budget: opts.workBudget}}
}

// restart returns an empty plan for a walk that follows table tb, keeping
// the volume-wide fixes planned so far.
func (p *plan) restart(tb Table) *plan {
	p.free()
	q := newPlan(p.v, p.opts)
	q.base, q.tb = tb, tb
	q.restoreBoot, q.bootLabel, q.backupBoot, q.bootSig = p.restoreBoot, p.bootLabel, p.backupBoot, p.bootSig
	q.newBackup, q.newFSInfo = p.newBackup, p.newFSInfo
	q.steps = append(q.steps, p.steps[:p.volume]...)
	q.volume = p.volume
	q.work = p.work
	return q
}

// free gives back the planned FAT's bytes.
func (p *plan) free() {
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// step records one fix and returns its sentence.
func (p *plan) step(format string, args ...any) string {
	s := fmt.Sprintf(format, args...)
	if len(p.steps) < maxSteps {
		p.steps = append(p.steps, s)
	} else {
		p.omitted++
	}
	return s
}

// sentences is the plan as printed.
func (p *plan) sentences() []string {
	out := append([]string(nil), p.steps...)
	if p.omitted > 0 {
		out = append(out, fmt.Sprintf("... and %d more fixes", p.omitted))
	}
	return out
}

// set plans FAT entry c to hold val, on top of the base table (the
// planned entries only are held: planTable).
func (p *plan) set(c, val Cluster) {
	if p.tb == p.base {
		pt := newPlanTable(p.base)
		release := sync.OnceFunc(pt.release)
		runtime.AddCleanup(p, func(r func()) { r() }, release)
		p.tb, p.release = pt, release
	}
	p.tb.Set(c, val)
}

// changed reports whether the plan changes anything on the volume.
func (p *plan) changed() bool {
	return len(p.steps) > 0 || p.omitted > 0
}

// alloc finds a cluster that is free both in the FAT as read and in the
// plan, so that nothing the repair frees is reused before the entries
// that named it are gone, and marks it the end of a chain. It looks at
// each entry once in the plan's life: one it passed was in use as read
// (for good) or taken by the plan, so a full volume costs one sweep, not
// one per cluster wanted.
func (p *plan) alloc() (Cluster, bool) {
	n := p.tb.Entries()
	for p.looked < n-2 && !p.work.spent() {
		p.looked++
		p.work.fatReads++
		c := p.cursor
		if p.cursor++; uint32(p.cursor) >= n {
			p.cursor = FirstCluster
		}
		if p.tb.IsFree(p.tb.Get(c)) && p.base.IsFree(p.base.Get(c)) {
			p.set(c, p.tb.EOC())
			return c, true
		}
	}
	return 0, false
}

// dir returns the plan of the directory whose first cluster is first and
// whose clusters are chain, holding raw (its contents as the pass read them).
func (p *plan) dir(first Cluster, chain []Cluster, raw []byte) *planDir {
	if pd := p.dirs[first]; pd != nil {
		return pd
	}
	pd := &planDir{first: first, chain: chain, raw: raw, dirty: map[int]bool{}, reached: true, work: &p.work}
	p.dirs[first] = pd
	return pd
}

// slot returns slot i of the directory for writing.
func (pd *planDir) slot(i int) []byte {
	pd.dirty[i] = true
	return pd.raw[i*DirEntrySize : (i+1)*DirEntrySize]
}

// remove marks slots from..from+n-1 deleted, as fsck.fat does: the first
// byte 0xE5, long name slots zeroed besides it so that no stray
// attributes are left.
func (pd *planDir) remove(from, n int) {
	for i := from; i < from+n; i++ {
		b := pd.slot(i)
		if Attr(b[direntAttr])&attrLongNameMask == AttrLongName {
			clear(b)
		}
		b[0] = SlotDeleted
	}
}

// usedNames returns the set of short names the directory holds.
func (pd *planDir) usedNames() *ShortNameSet {
	if pd.names == nil {
		pd.names, pd.nextFSCK = NewShortNameSet(), 0
		pd.work.dirSlots += int64(len(pd.raw) / DirEntrySize)
		recs, _ := ParseDir(pd.raw, FAT32) // names only: the type does not matter
		for _, r := range recs {
			pd.names.Add(r.Short)
		}
	}
	return pd.names
}

// uniqueName returns the first of FSCK0000.000, FSCK0000.001, ... (the
// names fsck.fat gives) that the directory does not hold, and takes it.
func (pd *planDir) uniqueName() (ShortName, bool) {
	used := pd.usedNames()
	for ; pd.nextFSCK < 10000000 && !pd.work.spent(); pd.nextFSCK++ {
		var n ShortName
		pd.work.nameTries++
		copy(n[:], fmt.Sprintf("FSCK%07d", pd.nextFSCK))
		if !used.Has(n) {
			used.Add(n)
			pd.nextFSCK++
			return n, true
		}
	}
	return ShortName{}, false
}

// image is the volume as one check pass sees it: the device and the FAT
// the pass follows, with, on the passes that verify a repair plan, the
// plan's writes on top.
type image struct {
	v    *Volume
	tb   Table
	plan *plan // nil: the device as it is
}

// readDir reads the directory whose first cluster is first (0: the fixed
// root) and whose clusters are chain. Through a plan, it returns the
// planned contents, and the directory's plan follows the chain read now.
func (im *image) readDir(first Cluster, chain []Cluster) ([]byte, error) {
	v, l := im.v, im.v.layout
	var pd *planDir
	if im.plan != nil {
		pd = im.plan.dirs[first]
	}
	if first == 0 {
		if pd != nil {
			pd.reached = true
			return pd.raw, nil
		}
		raw := make([]byte, l.RootDirSize)
		if _, err := v.dev.ReadAt(raw, l.RootDirOffset); err != nil {
			return nil, fmt.Errorf("fat: reading the root directory at byte %d: %w", l.RootDirOffset, err)
		}
		return raw, nil
	}
	cs := l.ClusterSize
	raw := make([]byte, int64(len(chain))*cs)
	if err := v.readClusters(raw, chain); err != nil {
		return nil, err
	}
	if im.plan != nil {
		for i, c := range chain {
			im.plan.fill(raw[int64(i)*cs:int64(i+1)*cs], c)
		}
	}
	if pd != nil {
		// The sectors holding planned slots, and no others: execute
		// writes just those, over the clusters as the plan fills them.
		ss := l.SectorSize
		perSec, per := int(ss/DirEntrySize), int(cs/DirEntrySize)
		dirty := map[int]bool{}
		for s := range pd.dirty {
			if i := s / per; i < len(chain) && i < len(pd.chain) && pd.chain[i] == chain[i] {
				dirty[s] = true
				off := int64(s/perSec) * ss
				copy(raw[off:off+ss], pd.raw[off:off+ss])
			}
		}
		pd.chain, pd.raw, pd.dirty, pd.names, pd.reached = chain, raw, dirty, nil, true
	}
	return raw, nil
}

// linkTo plans FAT entry c, in a chain an entry on disk names, to link to
// a cluster the plan fills: that link must reach the disk only after the
// cluster's contents (Volume.holdLink).
func (p *plan) linkTo(c, to Cluster) {
	p.set(c, to)
	p.links = append(p.links, c)
}

// fillData plans cluster dst filled with a copy of cluster src (zeros
// if src is 0) before the FAT links it in. The copies are made in plan
// order, each from src as the copies before it leave it: when src is
// itself a cluster the plan fills (a chain crossing a planned copy), dst
// gets what src gets, which is the bytes on disk of the cluster filled
// records for src. execute reads src itself, after the earlier copies
// into it have landed; what filled records is what fill reads.
func (p *plan) fillData(dst, src Cluster) {
	if p.filled == nil {
		p.filled = map[Cluster]Cluster{}
	}
	p.data = append(p.data, planData{dst: dst, src: src})
	if from, ok := p.filled[src]; ok {
		src = from
	}
	p.filled[dst] = src
}

// fill overwrites buf, the contents of cluster c as read, with what the
// plan puts there.
func (p *plan) fill(buf []byte, c Cluster) {
	src, ok := p.filled[c]
	if !ok {
		return
	}
	if src == 0 {
		clear(buf)
	} else if _, err := p.v.dev.ReadAt(buf, p.v.layout.ClusterOffset(src)); err != nil {
		clear(buf)
	}
}
