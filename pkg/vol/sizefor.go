package vol

import (
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
)

// clusterShifts is how many cluster sizes a TreeSize tallies: 512 bytes
// (512<<0) to 32 MiB (512<<16), every size FAT and exFAT allow.
const clusterShifts = 17

// TreeSize tallies what a tree of files and directories takes on a new
// volume, for every cluster size at once, so that SizeFor can try one
// candidate volume after another without walking the tree again: a
// million files cost a few hundred bytes, not a list of their sizes.
//
// Directories are counted in 32-byte slots as each file system stores
// them: on FAT a short entry and the long name's slots per member, "."
// and ".." in every subdirectory, the label in the root; on exFAT the
// File, Stream Extension and File Name entries per member, and in the
// root the bitmap, up-case table and label entries.
type TreeSize struct {
	exFAT bool
	files [clusterShifts]int64 // data clusters, by cluster size 512<<i
	dirs  [clusterShifts]int64 // subdirectory clusters, by cluster size
	root  int64                // the root's slots (its members')
	// big names the first directory with more members than a directory
	// of the file system can hold at all.
	big string
	// rec is the most slots one name Slots counted takes (see dirSlots).
	rec int64

	// exFATTree, when set (SetExFAT), is the same tree tallied for
	// exFAT, which measures a geometry of type exFAT: the file system is
	// known only once the size is (an SD card is FAT up to 32 GiB, exFAT
	// over).
	exFATTree *TreeSize

	Files, Dirs, Bytes int64
	// TooLarge counts the files left out: larger than the file system
	// holds (FAT: 4 GiB - 1 bytes), which the copy refuses and names.
	TooLarge int64
}

// NewTreeSize starts a tally for FAT (FAT12, FAT16 and FAT32 count
// alike) or exFAT.
func NewTreeSize(exFAT bool) *TreeSize { return &TreeSize{exFAT: exFAT} }

// SetExFAT gives a FAT tally x, the same tree tallied for exFAT, to
// measure the geometries of type exFAT it is asked about (Need, Fits,
// RootClusters, SizeFor): for a size whose file system depends on it.
func (t *TreeSize) SetExFAT(x *TreeSize) { t.exFATTree = x }

// forGeometry is the tally that measures geometry g.
func (t *TreeSize) forGeometry(g Geometry) *TreeSize {
	if t.exFATTree != nil && !t.exFAT && g.Type == "exFAT" {
		return t.exFATTree
	}
	return t
}

// Slots is how many 32-byte directory slots a member named name takes.
func (t *TreeSize) Slots(name string) int64 {
	n := int64(fat.NameSlots(name))
	if t.exFAT {
		n = int64(exfat.NameEntries(name))
	}
	t.rec = max(t.rec, n)
	return n
}

// sectorSlots is the fewest slots a sector holds (512 bytes), where the
// rule that no record straddles a sector skips the most.
const sectorSlots = 512 / fat.DirEntrySize

// dirSlots is the most slots a directory of n slots takes once its
// records are placed as the codecs place them, in any order: none
// straddles a sector, so before each sector boundary at most w slots
// (one less than the longest record, t.rec) are skipped. With b
// boundaries in the total, total <= n + w*b and b <= total/sectorSlots
// + 1, so total <= (n + w) * sectorSlots / (sectorSlots - w).
func (t *TreeSize) dirSlots(n int64) int64 {
	w := min(t.rec, sectorSlots) - 1
	if w <= 0 {
		return n
	}
	return ((n+w)*sectorSlots + sectorSlots - w - 1) / (sectorSlots - w)
}

// Holds reports whether the file system holds a file of size bytes:
// FAT at most 4 GiB - 1 (fat.MaxFileSize); exFAT's limit is its heap's,
// which the sizing finds.
func (t *TreeSize) Holds(size int64) bool { return t.exFAT || size <= fat.MaxFileSize }

// AddFile counts a file of size bytes, or leaves out (TooLarge) one the
// file system cannot hold: the copy refuses it, and no size would hold it.
// Its name takes no slot either (the caller leaves it out of AddDir).
func (t *TreeSize) AddFile(size int64) {
	size = max(size, 0)
	if !t.Holds(size) {
		t.TooLarge++
		return
	}
	t.Files++
	t.Bytes += size
	for i := range t.files {
		cs := int64(512) << i
		t.files[i] += (size + cs - 1) / cs
	}
}

// AddDir counts the directory at path (for messages; "" or "/" is the
// root) whose members take slots slots (the sum of Slots of their names).
func (t *TreeSize) AddDir(path string, slots int64) {
	if path == "" || path == "/" || path == "." {
		t.root += slots
		return
	}
	t.Dirs++
	n := slots
	limit := int64(exfat.MaxDirBytes / fat.DirEntrySize)
	if !t.exFAT {
		n += 2 // "." and ".."
		limit = fat.MaxDirEntries
	}
	if n > limit && t.big == "" {
		t.big = path
	}
	// fcp makes the directory whole (vol.DirSlots, MkdirSized): the
	// clusters its members' records take, at least one.
	n = min(t.dirSlots(n), limit)
	for i := range t.dirs {
		cs := int64(512) << i
		t.dirs[i] += max((n*fat.DirEntrySize+cs-1)/cs, 1)
	}
}

// dirGrowthCap is the most clusters a directory grows by at once, in
// both codecs (pkg/fat's and pkg/exfat's maxDirGrowth).
const dirGrowthCap = 32

// grownClusters is how many clusters a directory that needs n holds once
// written when it is made one cluster (the root) and grows: both codecs
// grow it by as many as it has (up to dirGrowthCap at once) each time it
// is full, so that a large one grows in a few runs; a tally that counted
// only n would refuse nothing that does not fit, and admit a tree the
// writer cannot finish.
func grownClusters(n int64) int64 {
	c := int64(1)
	for c < n {
		c += min(c, dirGrowthCap)
	}
	return c
}

// RootEntries is how many entries FAT12/16's fixed root directory needs
// for the root's members (and the label entry, with label), in whole
// 512-byte sectors of 16 entries: what -r asks for.
func (t *TreeSize) RootEntries(label bool) int64 {
	n := t.root
	if label {
		n++
	}
	return (n + 15) / 16 * 16
}

// Geometry is what a candidate volume offers a tree.
type Geometry struct {
	Type        string // "FAT12", "FAT16", "FAT32" or "exFAT"
	Size        int64  // the volume's bytes
	ClusterSize int64
	// Free is the clusters free on the new, empty volume.
	Free int64
	// RootEntries is FAT12/16's fixed root directory, in slots; 0 when
	// the root is a chain of clusters (FAT32, exFAT).
	RootEntries int64
	// Label: the FAT root holds a volume label entry.
	Label bool
}

// FATGeometry is what the FAT of layout l offers (label: the root holds a
// label entry).
func FATGeometry(l *fat.Layout, label bool) Geometry {
	g := Geometry{Type: l.Type.String(), Size: l.TotalSize, ClusterSize: l.ClusterSize, Free: int64(l.Clusters), Label: label}
	if l.Type == fat.FAT32 {
		g.Free-- // the root's first cluster
	} else {
		g.RootEntries = l.RootDirSize / fat.DirEntrySize
	}
	return g
}

// ExFATGeometry is what the exFAT of layout l offers: its clusters less
// the bitmap's, the up-case table's and the root directory's.
func ExFATGeometry(l *exfat.Layout) Geometry {
	cs := l.ClusterSize
	used := (l.BitmapBytes()+cs-1)/cs + (int64(len(exfat.DefaultUpcaseBytes()))+cs-1)/cs + 1
	return Geometry{Type: "exFAT", Size: l.TotalSize, ClusterSize: cs, Free: int64(l.Clusters) - used}
}

// ErrTreeTooBig wraps every refusal of a tree that does not fit.
var ErrTreeTooBig = errors.New("the tree does not fit")

// Need is how many clusters the tree takes on a volume of geometry g
// (its root's own cluster not counted again), and why it cannot go there
// whatever the free space: a FAT12/16 root directory too small for the
// root's members, a directory with more members than one can hold, a
// cluster size outside what the tally knows.
func (t *TreeSize) Need(g Geometry) (int64, error) {
	t = t.forGeometry(g)
	i := shiftOf(g.ClusterSize)
	if i < 0 {
		return 0, fmt.Errorf("%w: cluster size %d is not one of FAT's or exFAT's", ErrTreeTooBig, g.ClusterSize)
	}
	if t.big != "" {
		return 0, fmt.Errorf("%w: directory %s has more members than a directory can hold", ErrTreeTooBig, t.big)
	}
	need := t.files[i] + t.dirs[i]
	root := t.rootSlots(g)
	if g.RootEntries > 0 {
		if root > g.RootEntries {
			return 0, fmt.Errorf("%w: the root directory's members take %d slots and a %s root holds %d (give more --root-entries, or FAT32)",
				ErrTreeTooBig, root, g.Type, g.RootEntries)
		}
		return need, nil
	}
	// The root's first cluster is the volume's own (Free leaves it out).
	return need + t.RootClusters(g) - 1, nil
}

// rootSlots is what the root's members take on a volume of geometry g,
// with the entries the volume puts there itself.
func (t *TreeSize) rootSlots(g Geometry) int64 {
	switch {
	case t.exFAT:
		return t.root + 3 // the bitmap, up-case table and label entries
	case g.Label:
		return t.root + 1
	}
	return t.root
}

// RootClusters is how many clusters a root directory that is a chain of
// clusters (FAT32's, exFAT's) takes for the tree on a volume of geometry
// g, as Need counts them (as it grows from one); 0 for FAT12/16's fixed
// root. A format made for the tree (fat.FormatParams.RootClusters) makes
// the root that size at once, ahead of the data.
func (t *TreeSize) RootClusters(g Geometry) int64 {
	t = t.forGeometry(g)
	if g.RootEntries > 0 || g.ClusterSize <= 0 {
		return 0
	}
	return grownClusters((t.rootSlots(g)*fat.DirEntrySize + g.ClusterSize - 1) / g.ClusterSize)
}

func shiftOf(cs int64) int {
	for i := range clusterShifts {
		if int64(512)<<i == cs {
			return i
		}
	}
	return -1
}

// Headroom is free space asked for on top of what the tree takes: Bytes,
// and Percent of the tree's clusters.
type Headroom struct {
	Bytes   int64
	Percent int
}

// clusters is the headroom in clusters of cs bytes for a tree of need
// clusters.
func (h Headroom) clusters(need, cs int64) int64 {
	return (max(h.Bytes, 0)+cs-1)/cs + (need*int64(max(h.Percent, 0))+99)/100
}

// Fits says whether the tree with headroom h fits a volume of geometry g:
// nil, or an error wrapping ErrTreeTooBig that says by how much it does
// not.
func (t *TreeSize) Fits(g Geometry, h Headroom) error {
	need, err := t.Need(g)
	if err != nil {
		return err
	}
	total := need + h.clusters(need, g.ClusterSize)
	if total > g.Free {
		return fmt.Errorf("%w: it takes %d clusters of %d bytes (%d bytes) and a %s of %d bytes has %d free",
			ErrTreeTooBig, total, g.ClusterSize, total*g.ClusterSize, g.Type, g.Size, g.Free)
	}
	return nil
}

// SizeOptions say which sizes SizeFor tries.
type SizeOptions struct {
	// Plan is the volume a candidate size makes (the caller's whole
	// planning: table, type, cluster size rule), or why it makes none.
	Plan func(size int64) (Geometry, error)
	// Step: every size tried is a multiple of it (the alignment); Min
	// and Max bound the search.
	Step, Min, Max int64
	Headroom       Headroom
}

// SizeFor is the smallest size, a multiple of o.Step from o.Min to o.Max,
// whose volume (o.Plan) holds the tree with the headroom asked for, and
// that volume's geometry. It doubles the size from o.Min until one fits,
// then halves the gap down to the smallest that does (fitting grows with
// the size, but for a change of FAT type or cluster size at a boundary,
// where it may find a size a little over the smallest). A tree that fits
// no size up to o.Max is refused with an error wrapping ErrTreeTooBig
// that says what the last volume it tried lacks.
func SizeFor(t *TreeSize, o SizeOptions) (int64, Geometry, error) {
	if o.Step <= 0 || o.Plan == nil {
		return 0, Geometry{}, errors.New("vol: SizeFor: give SizeOptions.Plan and Step")
	}
	fits := func(k int64) (Geometry, error) {
		g, err := o.Plan(k * o.Step)
		if err != nil {
			return g, err
		}
		return g, t.Fits(g, o.Headroom)
	}
	lo, top := max((o.Min+o.Step-1)/o.Step, 1), o.Max/o.Step
	if top < lo {
		return 0, Geometry{}, fmt.Errorf("%w: no size from %d to %d bytes", ErrTreeTooBig, o.Min, o.Max)
	}
	// Double the size until one fits: the sizes a type allows end
	// somewhere (FAT12 and FAT16 at their most clusters), so the largest
	// is no bound to halve from.
	var why error
	below, hi := lo-1, int64(-1)
	for k := lo; ; k = min(2*k, top) {
		_, err := fits(k)
		if err == nil {
			hi = k
			break
		}
		if errors.Is(err, ErrTreeTooBig) || why == nil {
			why = fmt.Errorf("%d bytes: %w", k*o.Step, err)
		}
		below = k
		if k == top {
			break
		}
	}
	if hi < 0 {
		if !errors.Is(why, ErrTreeTooBig) {
			why = fmt.Errorf("%w: %w", ErrTreeTooBig, why)
		}
		return 0, Geometry{}, why
	}
	for below+1 < hi {
		mid := below + (hi-below)/2
		if _, err := fits(mid); err == nil {
			hi = mid
		} else {
			below = mid
		}
	}
	g, err := fits(hi)
	return hi * o.Step, g, err
}
