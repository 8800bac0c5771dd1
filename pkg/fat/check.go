package fat

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Kinds of Problem. They are stable short strings: fverify prints them and
// scripts match on them.
const (
	KindBootSector = "boot-sector" // a boot sector field is wrong, or the primary is unusable
	KindBackupBoot = "backup-boot" // the FAT32 backup boot sector differs or is unusable
	KindFSInfo     = "fsinfo"      // FSINFO signatures, free count or next free hint
	KindFATCopies  = "fat-copies"  // the FAT copies differ
	KindMedia      = "media"       // FAT[0] does not carry the boot sector's media byte
	KindDirEntry   = "dir-entry"   // a directory entry's name, attributes or fields are invalid
	KindDot        = "dot"         // a directory's "." entry is missing or wrong
	KindDotDot     = "dotdot"      // a directory's ".." entry is missing or wrong
	KindLFN        = "lfn"         // a long name sequence is broken or does not match its entry
	KindDuplicate  = "duplicate"   // two members of a directory have the same name
	KindLabel      = "label"       // a volume label outside the root, or more than one
	KindChain      = "chain"       // a cluster chain starts out of range or runs through a free, bad or reserved cluster
	KindCrossLink  = "cross-link"  // a cluster belongs to two chains
	KindSize       = "size"        // a file's size does not match its chain's length
	KindLoop       = "loop"        // a chain or a directory tree loops back on itself
	KindLost       = "lost"        // allocated clusters no chain reaches
	KindDirty      = "dirty"       // the dirty bit is set
	KindCompare    = "compare"     // a file in the volume differs from its host original
)

// Problem is one thing wrong with a volume.
type Problem struct {
	Kind    string   `json:"kind"`    // one of the Kind* constants
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
	s := p.Kind + ": "
	if p.Path != "" {
		s += p.Path + ": "
	}
	s += p.Message
	switch {
	case p.Cluster != 0 && p.Offset >= 0:
		s += fmt.Sprintf(" (cluster %d, byte %d)", p.Cluster, p.Offset)
	case p.Cluster != 0:
		s += fmt.Sprintf(" (cluster %d)", p.Cluster)
	case p.Offset >= 0:
		s += fmt.Sprintf(" (byte %d)", p.Offset)
	}
	if p.Fixed {
		s += " [fixed]"
	}
	return s
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
}

// Defaults for CheckOptions.
const (
	// DefaultMaxDepth is deeper than any path Windows or Linux can name on
	// FAT (260 characters allow at most 130 levels).
	DefaultMaxDepth = 256
	// DefaultMaxProblems keeps a wrecked volume's report readable.
	DefaultMaxProblems = 10000
)

// Report is what Check found.
type Report struct {
	Type     Type      `json:"-"`
	Problems []Problem `json:"problems"`
	Warnings []string  `json:"warnings"` // oddities that are not errors
	Omitted  int       `json:"omitted"`  // problems found beyond MaxProblems

	Files        int    `json:"files"`
	Dirs         int    `json:"directories"` // the root included
	Clusters     uint32 `json:"clusters"`
	FreeClusters uint32 `json:"free_clusters"` // free entries in FAT 1
	BadClusters  uint32 `json:"bad_clusters"`
	LostClusters uint32 `json:"lost_clusters"`

	// What Repair needs to know.
	fromBackup  bool  // the volume was opened from the backup boot sector
	badCopies   []int // FAT copies (0-based) that differ from FAT 1
	fat1Sound   bool  // FAT 1 is at least as consistent as every differing copy
	fsinfoBad   bool  // FSINFO needs rewriting
	backupStale bool  // the backup boot sector needs the primary copied over it
	dirty       bool  // the dirty bit is set
	maxProblems int
}

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

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

// Check checks the volume without writing to it: the boot sector and its
// FAT32 backup, FSINFO, the media byte in FAT[0], the FAT copies against
// each other, every directory and every cluster chain, and the clusters
// that no chain reaches. Damage is reported in the Report; the error is
// only for what stops the check (the device cannot be read). Chains are
// walked with a per-cluster owner table, so loops and cross-links end the
// walk, and the directory walk is bounded by depth and by the clusters
// already seen.
func Check(v *Volume, opts CheckOptions) (*Report, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = DefaultMaxProblems
	}
	l := v.layout
	rep := &Report{Type: l.Type, Clusters: l.Clusters, maxProblems: opts.MaxProblems, fromBackup: opts.BootError != nil}
	if rep.fromBackup {
		rep.addf(KindBootSector, "", 0, 0, "the boot sector is unusable (%v); checked with the backup at byte %d", opts.BootError, l.BackupBootOffset)
	}
	if err := checkBoot(v, rep); err != nil {
		return nil, err
	}
	checkMedia(v, rep)
	copies, err := readFATCopies(v, rep)
	if err != nil {
		return nil, err
	}
	t := newTreeCheck(v, rep, opts)
	if err := t.walk(); err != nil {
		return nil, err
	}
	t.lost()
	if len(rep.badCopies) > 0 {
		judgeCopies(v, rep, t, copies)
	}
	if err := checkFSInfo(v, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkBoot checks what Layout does not: the volume against the device, the
// dirty bit and the FAT32 backup boot sector.
func checkBoot(v *Volume, rep *Report) error {
	bs, l := v.boot, v.layout
	for _, w := range bs.Warnings() {
		if !bs.Dirty() || !strings.HasPrefix(w, "dirty bit") { // reported as a problem below
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if l.TotalSize > v.dev.Size() {
		rep.addf(KindBootSector, "", 0, offTotalSectors32, "the boot sector says the volume has %d bytes but the device holds only %d", l.TotalSize, v.dev.Size())
	}
	if bs.Dirty() {
		ext := int64(ext16)
		if bs.Is32 {
			ext = ext32
		}
		rep.dirty = true
		rep.addf(KindDirty, "", 0, ext+relState, "the dirty bit is set: the volume was not unmounted cleanly")
	}
	if l.Type != FAT32 || rep.fromBackup {
		return nil
	}
	if l.BackupBootOffset == 0 {
		rep.Warnings = append(rep.Warnings, "no backup boot sector")
		return nil
	}
	b := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(b, l.BackupBootOffset); err != nil {
		return fmt.Errorf("fat: reading the backup boot sector at byte %d: %w", l.BackupBootOffset, err)
	}
	if _, err := DecodeBootSector(b); err != nil {
		rep.backupStale = true
		rep.addf(KindBackupBoot, "", 0, l.BackupBootOffset, "the backup boot sector is unusable: %v", err)
		return nil
	}
	// The dirty bit lives in the primary only, as Linux keeps it.
	primary, backup := withoutDirty(v.raw), withoutDirty(b)
	if i := firstDiff(primary[:bootSectorSize], backup[:bootSectorSize]); i >= 0 {
		rep.backupStale = true
		rep.addf(KindBackupBoot, "", 0, l.BackupBootOffset+int64(i), "the backup boot sector differs from the boot sector, first at byte %d of the sector", i)
	}
	return nil
}

// firstDiff is the index of the first byte where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// checkMedia checks that FAT[0] holds the media byte with all other bits set.
func checkMedia(v *Volume, rep *Report) {
	want := Cluster(0xF00) | Cluster(v.boot.Media)
	switch v.layout.Type {
	case FAT16:
		want |= 0xFF00
	case FAT32:
		want |= 0x0FFFFF00
	}
	if got := v.table.Get(0); got != want {
		rep.addf(KindMedia, "", 0, v.layout.FATOffset, "FAT entry 0 is %#x, want %#x for media byte %#02x", uint32(got), uint32(want), v.boot.Media)
	}
}

// readFATCopies reads FAT copies 2.. (one request each) and notes which
// differ from FAT 1 in the bytes that hold entries.
func readFATCopies(v *Volume, rep *Report) ([][]byte, error) {
	l := v.layout
	if l.NumFATs < 2 {
		return nil, nil
	}
	if v.boot.Is32 && v.boot.ExtFlags&0x80 != 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("FAT mirroring is off (only FAT %d is active); the copies were not compared", v.boot.ExtFlags&0x0F+1))
		return nil, nil
	}
	n := fatBytes(l.Type, l.Clusters)
	fat1 := v.table.Bytes()[:n]
	copies := make([][]byte, l.NumFATs)
	for i := 1; i < l.NumFATs; i++ {
		off := l.FATCopyOffset(i)
		if off+l.FATSize > v.dev.Size() {
			rep.addf(KindFATCopies, "", 0, off, "FAT %d lies past the end of the device", i+1)
			continue
		}
		b, release := bigAlloc(l.FATSize)
		if _, err := v.dev.ReadAt(b, off); err != nil {
			release()
			return nil, fmt.Errorf("fat: reading FAT %d at byte %d: %w", i+1, off, err)
		}
		j := firstDiff(fat1, b[:n])
		if j < 0 {
			// Equal copies are not needed again.
			release()
			continue
		}
		// A differing copy is kept (in the heap: this is the rare case)
		// for judging which copy is sound.
		copies[i] = bytes.Clone(b)
		release()
		b = copies[i]
		diff := 0
		for k := j; k < int(n); k++ {
			if fat1[k] != b[k] {
				diff++
			}
		}
		rep.badCopies = append(rep.badCopies, i)
		rep.addf(KindFATCopies, "", 0, off+int64(j), "FAT %d differs from FAT 1 in %d bytes, first at byte %d of the FAT", i+1, diff, j)
	}
	return copies, nil
}

// judgeCopies decides whether FAT 1 may be copied over the others: its
// FAT[0] must carry the media byte and its chains must check out at least
// as well as each differing copy's.
func judgeCopies(v *Volume, rep *Report, t *treeCheck, copies [][]byte) {
	if v.table.Get(0)&0xFF != Cluster(v.boot.Media) {
		rep.Warnings = append(rep.Warnings, "FAT 1 does not carry the media byte: it will not be copied over the other FATs")
		return
	}
	mine := t.score(v.table)
	for _, i := range rep.badCopies {
		tb, err := NewTable(v.layout.Type, bytes.Clone(copies[i]), v.layout.Clusters)
		if err != nil {
			return
		}
		if theirs := t.score(tb); theirs < mine {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("FAT %d has fewer chain errors (%d) than FAT 1 (%d): FAT 1 will not be copied over it", i+1, theirs, mine))
			return
		}
	}
	rep.fat1Sound = true
}

// checkFSInfo checks the FAT32 FSINFO sector's signatures and both hints.
func checkFSInfo(v *Volume, rep *Report) error {
	l := v.layout
	if l.Type != FAT32 {
		return nil
	}
	if l.FSInfoOffset == 0 {
		rep.Warnings = append(rep.Warnings, "no FSINFO sector")
		return nil
	}
	sec := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(sec, l.FSInfoOffset); err != nil {
		return fmt.Errorf("fat: reading FSINFO at byte %d: %w", l.FSInfoOffset, err)
	}
	fi, err := DecodeFSInfo(sec)
	if err != nil {
		rep.fsinfoBad = true
		off := l.FSInfoOffset
		var fe *FormatError
		if errors.As(err, &fe) && fe.Offset >= 0 {
			off += fe.Offset
		}
		rep.addf(KindFSInfo, "", 0, off, "%v", err)
		return nil
	}
	if fi.FreeCount != FSInfoUnknown && fi.FreeCount != rep.FreeClusters {
		rep.fsinfoBad = true
		rep.addf(KindFSInfo, "", 0, l.FSInfoOffset+offFSInfoFree, "free count is %d but the FAT has %d free clusters", fi.FreeCount, rep.FreeClusters)
	}
	if nf := fi.NextFree; nf != FSInfoUnknown && (nf < 2 || nf > uint32(l.MaxCluster())) {
		rep.fsinfoBad = true
		rep.addf(KindFSInfo, "", 0, l.FSInfoOffset+offFSInfoNext, "next free cluster %d is out of range 2..%d", nf, l.MaxCluster())
	}
	return nil
}
