package exfat

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Kinds of Problem, besides those found parsing directories (set-checksum,
// entry-set, name-hash, name, dir-entry, duplicate). They are stable short
// strings: fverify prints them and scripts match on them.
const (
	KindBootSector   = "boot-sector"        // the main boot sector's fields are unusable, or it describes more than the device holds
	KindBootChecksum = "boot-checksum"      // the main boot region's checksum does not match
	KindBackupBoot   = "backup-boot"        // the backup boot region is unusable or differs from the main one
	KindBitmap       = "bitmap"             // the allocation bitmap's entry, size or chain is wrong
	KindUpcase       = "upcase"             // the up-case table's entry, size or checksum is wrong
	KindLabel        = "label"              // the volume label entry is invalid or repeated
	KindChain        = "chain"              // a file's clusters leave the heap, or its FAT chain breaks or loops
	KindSize         = "size"               // a size disagrees with the clusters, or a valid data length exceeds the size
	KindCrossLink    = "cross-link"         // a cluster belongs to two files
	KindFree         = "free"               // a cluster a file uses is marked free in the bitmap
	KindLost         = "lost"               // clusters marked in use that no file uses
	KindDepth        = "depth"              // directories nested deeper than Check follows
	KindDirty        = "dirty"              // the VolumeDirty flag is set
	KindRename       = "interrupted-rename" // two entries name the same file: a move cut short
)

// Problem is one thing wrong with a volume.
type Problem struct {
	Kind    string   `json:"kind"`    // one of the Kind constants
	Path    string   `json:"path"`    // the file or directory concerned ("/" for the root), "" for volume-wide problems
	Paths   []string `json:"paths"`   // every path involved (both files of a cross-link), nil if only Path
	Cluster Cluster  `json:"cluster"` // the cluster concerned, 0 if none
	Offset  int64    `json:"offset"`  // byte offset on the volume of the field or entry concerned, -1 if none
	Message string   `json:"message"` // one sentence
	Fixed   bool     `json:"fixed,omitempty"`
}

// String formats the problem as one line: kind, path, message, and the
// cluster and byte offset where they are known.
func (p Problem) String() string {
	return fsutil.ProblemLine(p.Kind, p.Path, p.Message, uint32(p.Cluster), p.Offset, p.Fixed)
}

// CheckOptions tune Check. The zero value is the usual check.
type CheckOptions struct {
	// MaxDepth bounds the directory nesting Check descends into; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxProblems stops listing problems after this many (the counts in
	// the report stay exact); 0 means DefaultMaxProblems.
	MaxProblems int
	// Visit, if set, is called with the path of each file and directory
	// as it is checked (fverify -l).
	Visit func(path string)
	// Progress, if set, is told of each stage of the check (fverify -v).
	Progress func(stage string)
	// Context, if not nil, stops the check once it is done: at the start
	// of each stage Progress is told of and of each directory, Check
	// returns its error (wrapped; errors.Is finds context.Canceled). A
	// check writes nothing, cancelled or not.
	Context context.Context
}

// Defaults for CheckOptions.
const (
	DefaultMaxDepth    = fsutil.CheckMaxDepth
	DefaultMaxProblems = fsutil.CheckMaxProblems
)

// Report is what Check found.
type Report struct {
	Problems []Problem `json:"problems"`
	Warnings []string  `json:"warnings"`
	Omitted  int       `json:"omitted"`

	Files        int    `json:"files"`
	Dirs         int    `json:"directories"` // the root included
	Clusters     uint32 `json:"clusters"`
	FreeClusters uint32 `json:"free_clusters"` // free in the bitmap
	LostClusters uint32 `json:"lost_clusters"`

	// What Repair needs to know.
	fromBackup  bool
	backupStale bool
	refuse      error // why Repair writes nothing (Volume.bootConflict)
	dirty       bool
	percent     uint8 // the true PercentInUse, when the boot sector's differs
	percentBad  bool
	unmarked    []Extent   // in use by files, free in the bitmap
	lost        []Extent   // marked in use, used by nothing
	hashFixes   []entryFix // entry sets whose only fault is the name hash
	renameFixes []entryFix // second entries of interrupted renames, to delete
	setFixes    []entryFix // entry sets whose checksum fails, to delete (as fsck.exfat -y does)
	chainCuts   []Cluster  // last clusters of files whose chains run on past their size
	// sysUnclaimed: a system file's (bitmap's, up-case table's) clusters
	// could not be claimed; they may be among the lost ones, which must
	// then stay marked.
	sysUnclaimed bool
	maxProblems  int
	work         checkWork // steps taken, for tests
}

// entryFix is an entry set to rewrite: the set's bytes and where its
// directory's clusters are.
type entryFix struct {
	exts []Extent
	slot int
	set  []byte
	free []Extent // a deleted set's clusters that no other entry uses
}

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// Tidy reports whether Repair has something to set right on a volume
// with no problem: a PercentInUse the bitmap contradicts, only a warning
// (fsck.exfat does not report it) but one Repair fixes.
func (r *Report) Tidy() bool { return r.percentBad }

// Remaining is the number of problems Repair has not fixed.
func (r *Report) Remaining() int {
	n := r.Omitted
	for _, p := range r.Problems {
		if !p.Fixed {
			n++
		}
	}
	return n
}

func (r *Report) add(p Problem) {
	if len(r.Problems) >= r.maxProblems {
		r.Omitted++
		return
	}
	r.Problems = append(r.Problems, p)
}

func (r *Report) addf(kind, path string, c Cluster, off int64, format string, args ...any) {
	r.add(Problem{Kind: kind, Path: path, Cluster: c, Offset: off, Message: fmt.Sprintf(format, args...)})
}

// Check checks the volume without writing to it, as fsck.exfat -n does:
// the boot regions and their checksums, the backup against the main
// region, the VolumeDirty flag, the allocation bitmap and up-case table
// (its checksum), every directory's entry sets (set checksums, name
// lengths and hashes, names, duplicates), every file's clusters against
// its size (FAT chains walked with a bound), clusters two files share,
// clusters in use but marked free, and clusters marked in use that no
// file uses (lost). Damage goes into the Report; the error is only for
// what stops the check (the device cannot be read).
func Check(v *Volume, opts CheckOptions) (*Report, error) {
	progress := fsutil.CheckStart(opts.Context, &opts.MaxDepth, &opts.MaxProblems, opts.Progress)
	l := v.layout
	rep := &Report{Clusters: l.Clusters, maxProblems: opts.MaxProblems}
	for _, w := range v.warnings {
		if w != v.cutShort {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if err := progress("checking the boot regions and their checksums"); err != nil {
		return nil, err
	}
	if err := checkBoot(v, rep); err != nil {
		return nil, err
	}
	if v.boot.Dirty() {
		rep.dirty = true
		rep.addf(KindDirty, "", 0, offVolumeFlags, "the VolumeDirty flag is set: the volume was not unmounted cleanly")
	}
	if err := progress("checking the allocation bitmap, the up-case table and every directory and file"); err != nil {
		return nil, err
	}
	t := newTreeCheck(v, rep, opts)
	if err := t.run(); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkBoot reports a main boot region that Open had to replace with the
// backup, and a backup region that is unusable or differs from the main
// one (VolumeFlags and PercentInUse aside: the specification keeps them in
// the main boot sector only).
func checkBoot(v *Volume, rep *Report) error {
	l := v.layout
	ss := int(l.SectorSize)
	if v.bootConflict != nil {
		rep.refuse = fmt.Errorf("exfat: not repaired: %w", v.bootConflict)
		rep.addf(KindBootSector, "", 0, 0, "%v", v.bootConflict)
		return nil
	}
	if v.cutShort != "" {
		rep.addf(KindBootSector, "", 0, offVolumeLength, "%s", v.cutShort)
	}
	if v.fromBackup {
		rep.fromBackup = true
		kind := KindBootSector
		var fe *FormatError
		if errors.As(v.bootErr, &fe) && fe.Field == "boot checksum" {
			kind = KindBootChecksum
		}
		rep.addf(kind, "", 0, 0, "the main boot region is unusable (%v); checked with the backup at byte %d", v.bootErr, l.BackupBootOffset)
		return nil
	}
	n := int64(bootRegionSectors * ss)
	main := make([]byte, n)
	backup := make([]byte, n)
	if _, err := v.dev.ReadAt(main, 0); err != nil {
		return fmt.Errorf("exfat: reading the main boot region: %w", err)
	}
	if _, err := v.dev.ReadAt(backup, l.BackupBootOffset); err != nil {
		return fmt.Errorf("exfat: reading the backup boot region at byte %d: %w", l.BackupBootOffset, err)
	}
	if _, err := CheckBootRegion(backup, ss, l.BackupBootOffset); err != nil {
		rep.backupStale = true
		rep.addf(KindBackupBoot, "", 0, l.BackupBootOffset, "the backup boot region is unusable: %v", err)
		return nil
	}
	for _, b := range [][]byte{main, backup} {
		b[offVolumeFlags], b[offVolumeFlags+1], b[offPercentInUse] = 0, 0, 0
	}
	if !bytes.Equal(main, backup) {
		i := fsutil.FirstDiff(main, backup)
		rep.backupStale = true
		rep.addf(KindBackupBoot, "", 0, l.BackupBootOffset+int64(i), "the backup boot region differs from the main one, first at byte %d of the region", i)
	}
	return nil
}
