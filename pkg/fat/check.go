package fat

import (
	"context"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Kinds of Problem. They are stable short strings: fverify prints them and
// scripts match on them. Each names one class of damage, as fsck.fat's
// messages do.
const (
	KindBootSector = "boot-sector" // a boot sector field is wrong, the primary is unusable, or the volume's last sector cannot be read
	KindBackupBoot = "backup-boot" // the FAT32 backup boot sector differs or is unusable
	KindFSInfo     = "fsinfo"      // FSINFO signatures or free count
	KindFATCopies  = "fat-copies"  // the FAT copies differ
	KindMedia      = "media"       // FAT[0] does not carry the boot sector's media byte
	KindFATEntry1  = "fat-entry1"  // FAT[1] is not an end-of-chain mark (its two flag bits aside)
	KindDirty      = "dirty"       // the dirty bit is set: the boot sector's state bit, or FAT[1]'s clean-shutdown or hard-error bit
	KindLabel      = "label"       // the volume label: boot sector and root entry disagree, invalid characters, extra or misplaced label entries

	KindDot      = "dot"           // a directory's "." entry is missing or wrong
	KindDotDot   = "dotdot"        // a directory's ".." entry is missing or wrong
	KindDirLink  = "dir-link"      // a directory entry points at its own directory, an ancestor or the root
	KindDup      = "duplicate"     // two members of a directory have the same name
	KindBadName  = "bad-name"      // a short name holds characters FAT does not allow
	KindDirSize  = "dir-size"      // a directory entry has a non-zero size
	KindStart    = "start-cluster" // a first cluster is 1, past the last cluster, free or bad
	KindAttr     = "attributes"    // reserved attribute bits or combinations
	KindDirEntry = "dir-entry"     // other trouble with a directory entry (nested too deep to check)
	KindAfterEnd = "after-end"     // entries after a directory's end marker, which Linux and fsck.fat read and Windows does not

	KindLFNChecksum   = "lfn-checksum"   // long name slots whose checksum does not match the short entry after them
	KindLFNSequence   = "lfn-sequence"   // long name slots with bad or out-of-order sequence numbers
	KindLFNOrphan     = "lfn-orphan"     // long name slots not followed by a short entry
	KindLFNUnfinished = "lfn-unfinished" // a long name whose first slots are missing
	KindLFNFields     = "lfn-fields"     // a long name slot's cluster or reserved field is not 0
	KindLFNDeleted    = "lfn-deleted"    // long name slots left behind by a deleted entry
	KindLFNName       = "lfn-name"       // long name slots holding an empty name, or before a volume label

	KindChain     = "chain"              // a chain runs into a free, bad or nonexistent cluster
	KindSize      = "size"               // a file's size does not match its chain's length
	KindLoop      = "loop"               // a chain loops back on itself
	KindCrossLink = "cross-link"         // a cluster belongs to two chains
	KindRename    = "interrupted-rename" // two entries name the same file: a move cut short
	KindLost      = "lost"               // a chain of allocated clusters no entry reaches

	KindCompare = "compare" // a file in the volume differs from its host original
)

// Problem is one thing wrong with a volume.
type Problem struct {
	Kind    string   `json:"kind"`            // one of the Kind* constants
	Path    string   `json:"path"`            // the file or directory concerned ("/" for the root), "" for volume-wide problems
	Paths   []string `json:"paths"`           // every path involved (both files of a cross-link), nil if only Path
	Cluster Cluster  `json:"cluster"`         // the cluster concerned, 0 if none
	Offset  int64    `json:"offset"`          // byte offset on the volume of the field or entry concerned, -1 if none
	Message string   `json:"message"`         // one sentence
	Fix     string   `json:"fix,omitempty"`   // what Repair does about it, "" if nothing
	Fixed   bool     `json:"fixed,omitempty"` // Repair did it

	tree bool // found by the tree walk, which Repair's verification repeats
}

// String formats the problem as one line: kind, path, message, and the
// cluster and byte offset where they are known.
func (p Problem) String() string {
	return fsutil.ProblemLine(p.Kind, p.Path, p.Message, uint32(p.Cluster), p.Offset, p.Fixed)
}

// CheckOptions tune Check. The zero value is the usual check.
type CheckOptions struct {
	// MaxDepth bounds the directory nesting Check descends into; 0 means
	// DefaultMaxDepth. Deeper directories are reported, not walked.
	MaxDepth int
	// MaxProblems stops listing problems after this many (the counts in the
	// report stay exact); 0 means DefaultMaxProblems.
	MaxProblems int
	// BootError is the primary boot sector's error when the volume was
	// opened from its backup (see OpenForCheck); it is reported, and
	// Repair copies the backup back over the primary.
	BootError error
	// Salvage plans lost chains to be saved as files FSCKnnnn.REC in the
	// root directory (fsck.fat -f) instead of freed.
	Salvage bool
	// Visit, if not nil, is called with the path of every file and
	// directory as it is checked (fverify -l).
	Visit func(path string)
	// Progress, if not nil, is told each step of the check as it starts
	// (fverify -v), one sentence each.
	Progress func(step string)
	// Context, if not nil, stops the check once it is done: at the start
	// of each step Progress is told of and of each directory, Check
	// returns its error (wrapped; errors.Is finds context.Canceled). A
	// check writes nothing, cancelled or not.
	Context context.Context

	workBudget int64 // tests: checkWork.budget
}

// Defaults for CheckOptions.
const (
	DefaultMaxDepth    = fsutil.CheckMaxDepth    // deeper than FAT paths go
	DefaultMaxProblems = fsutil.CheckMaxProblems // keeps a wrecked volume's report readable
)

// Report is what Check found, and the repair it planned.
type Report struct {
	Type     Type      `json:"-"`
	Problems []Problem `json:"problems"`
	Warnings []string  `json:"warnings"` // oddities that are not errors
	Omitted  int       `json:"omitted"`  // problems found beyond MaxProblems

	Files        int    `json:"files"`
	Dirs         int    `json:"directories"` // the root included
	Clusters     uint32 `json:"clusters"`
	FreeClusters uint32 `json:"free_clusters"` // free entries in the FAT the check followed
	BadClusters  uint32 `json:"bad_clusters"`
	LostClusters uint32 `json:"lost_clusters"`
	LostChains   int    `json:"lost_chains"`

	// Left lists what Repair could not fix (set by Repair; with DryRun,
	// what it would leave).
	Left []Problem `json:"left,omitempty"`

	plan        *plan // the fixes planned while checking
	maxProblems int
	leftOmitted int // problems left beyond MaxProblems

	// The omitted problems with a fix planned (the dirty bit's apart: it
	// is cleared only when nothing is left), and of them those Repair
	// fixed: what Fixed marks in the listed ones.
	omittedFixes, omittedDirtyFixes, omittedFixed int
}

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// Remaining is the number of problems Repair has not fixed: before a
// repair, every problem found.
func (r *Report) Remaining() int {
	if r.plan != nil && r.plan.done {
		return len(r.Left) + r.leftOmitted
	}
	return len(r.Problems) + r.Omitted
}

// Fixed is the number of problems Repair fixed, the omitted ones
// included (Problem.Fixed marks the listed ones).
func (r *Report) Fixed() int {
	n := r.omittedFixed
	for _, p := range r.Problems {
		if p.Fixed {
			n++
		}
	}
	return n
}

// Plan lists the fixes Check planned, one sentence each, in the order
// Repair would apply them (before Repair re-checks the planned volume and
// adds what that finds).
func (r *Report) Plan() []string {
	if r.plan == nil {
		return nil
	}
	return r.plan.sentences()
}

func (r *Report) add(p Problem) {
	if len(r.Problems) >= r.maxProblems {
		r.Omitted++
		switch {
		case p.Fix == "":
		case p.Kind == KindDirty:
			r.omittedDirtyFixes++
		default:
			r.omittedFixes++
		}
		return
	}
	r.Problems = append(r.Problems, p)
}

// merge appends the problems and counts of sub, a tree walk's report.
func (r *Report) merge(sub *Report) {
	for _, p := range sub.Problems {
		p.tree = true
		r.add(p)
	}
	r.Omitted += sub.Omitted
	r.omittedFixes += sub.omittedFixes
	r.omittedDirtyFixes += sub.omittedDirtyFixes
	r.Files, r.Dirs = sub.Files, sub.Dirs
	r.FreeClusters, r.BadClusters = sub.FreeClusters, sub.BadClusters
	r.LostClusters, r.LostChains = sub.LostClusters, sub.LostChains
}

func (r *Report) addf(kind, path string, c Cluster, off int64, format string, args ...any) {
	r.add(Problem{Kind: kind, Path: path, Cluster: c, Offset: off, Message: fmt.Sprintf(format, args...)})
}

func (r *Report) warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// Check checks the volume without writing to it, with fsck.fat's checks and
// more: the boot sector and its FAT32 backup (byte by byte), the volume's
// last sector, FSINFO, the reserved FAT entries 0 and 1 (media byte and
// the dirty flags), the FAT copies against each other (and which one is
// sound), the volume label, every directory entry and long name, every
// cluster chain, and the chains that no entry reaches. Damage is reported
// in the Report, each problem with the fix Repair would make; the error is
// only for what stops the check (the device cannot be read).
//
// Chains are walked with one bit per cluster for the clusters claimed
// (who claimed one is worked out only when a walk runs into it: a loop, a
// cross-link, an interrupted rename), so loops and cross-links end the
// walk, and the directory walk is bounded by depth and by the clusters
// already seen. The FAT copies are compared and counted a chunk at a time:
// memory does not grow with the volume but for the tree's own nodes, a
// small one per file and directory that holds its name, not its path
// (see nodeList). When the FAT copies differ, the tree is
// walked with each copy's chains scored, and the report then describes the
// volume as the soundest copy has it (FAT 1 on a tie): lost clusters and
// the free count are counted against that copy.
func Check(v *Volume, opts CheckOptions) (*Report, error) {
	step := fsutil.CheckStart(opts.Context, &opts.MaxDepth, &opts.MaxProblems, opts.Progress)
	l := v.layout
	rep := &Report{Type: l.Type, Clusters: l.Clusters, maxProblems: opts.MaxProblems}
	p := newPlan(v, opts)
	if err := step("checking the boot sector (%s, %d-byte sectors, %d-byte clusters, %d clusters, data from byte %d)",
		l.Type, l.SectorSize, l.ClusterSize, l.Clusters, l.DataOffset); err != nil {
		return nil, err
	}
	if err := checkBoot(v, rep, p, opts.BootError); err != nil {
		return nil, err
	}
	if p.refuse != nil {
		// The boot sector does not describe the volume: a walk would
		// follow FATs and directories that are not where it says.
		rep.warnf("the FATs and the directory tree were not checked: the boot sector does not say where they are")
		rep.FreeClusters = rep.Clusters
		rep.plan = p
		return rep, nil
	}
	if err := step("comparing the %d FAT copies of %d bytes from byte %d, while walking the directory tree and every cluster chain", l.NumFATs, l.FATSize, l.FATOffset); err != nil {
		return nil, err
	}
	job := startFATCopies(opts.Context, v, rep)
	sound := 0
	p.volume = len(p.steps)
	t, err := runTree(&image{v: v, tb: v.table}, p, opts)
	copies, cerr := job.wait(v, rep)
	if err == nil {
		err = cerr
	}
	if err != nil {
		if t != nil {
			t.release()
		}
		return nil, err
	}
	if len(copies.differ) > 0 {
		if sound, err = judgeCopies(v, rep, t, copies); err != nil {
			t.release()
			return nil, err
		}
		if sound != 0 {
			if err := step("walking the tree again with FAT %d, the sound copy", sound+1); err != nil {
				t.release()
				return nil, err
			}
			t.release()
			p = p.restart(copies.tables[sound])
			if t, err = runTree(&image{v: v, tb: copies.tables[sound]}, p, opts); err != nil {
				return nil, err
			}
		}
		p.copyFAT(copies, sound)
	}
	if err := step("counting free, bad and lost clusters"); err != nil {
		t.release()
		p.free()
		return nil, err
	}
	t.copies = copies
	t.lost()
	if err := step("checking the volume label"); err != nil {
		t.release()
		p.free()
		return nil, err
	}
	t.checkLabel()
	t.release()
	rep.merge(t.rep)
	checkReserved(v, rep, p, copies.tables[sound])
	if err := step("checking FSINFO"); err != nil {
		p.free()
		return nil, err
	}
	if err := checkFSInfo(v, rep, p); err != nil {
		return nil, err
	}
	checkDirty(v, rep, p)
	rep.plan = p
	return rep, nil
}
