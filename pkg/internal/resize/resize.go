// Package resize holds what growing and shrinking a FAT or exFAT volume in
// place share: the options a codec's Resize takes, the plan it makes (and,
// with DryRun, only makes), and the refusals. Each codec (pkg/fat,
// pkg/exfat) implements
//
//	func Resize(dev *fio.Device, o resize.Options) (*resize.Plan, error)
//
// over a volume that starts at dev's offset 0; pkg/vol dispatches to it
// after its check and owns partitions and image files.
package resize

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Options say how to resize.
type Options struct {
	// Size is the file system's new size in bytes (rounded down to
	// whole sectors, then to what the layout needs; Plan.NewSize says
	// what was chosen). The device must already hold Size bytes when
	// growing; when shrinking the caller shortens it after Resize.
	Size int64
	// DryRun makes the plan and writes nothing.
	DryRun bool
	// Force allows a resize whose crash states DESIGN.md does not allow
	// (Plan.Unsafe); without it such a resize is refused before anything
	// is written.
	Force bool
	// Context cancels the resize between two steps that each leave the
	// volume whole (nil: context.Background).
	Context context.Context
	// Progress, if set, is told the bytes moved so far and the total.
	Progress func(done, total int64)
	// Undo, if set, receives the undo file (see UndoWriter) a resize
	// that is not crash-safe writes, and syncs when it can, before its
	// first unsafe write; FAT's growth past its FATs' spare sectors (the
	// data area moves) needs it. With DryRun nothing is written to it.
	Undo io.Writer
}

// Plan is what a resize does (or, with DryRun, would do).
type Plan struct {
	Type           string `json:"fat_type"`
	OldSize        int64  `json:"old_size"`
	NewSize        int64  `json:"new_size"`
	ClusterSize    int64  `json:"cluster_size"`
	OldClusters    uint32 `json:"old_clusters"`
	NewClusters    uint32 `json:"new_clusters"`
	MoveClusters   int64  `json:"move_clusters"` // clusters copied elsewhere
	MoveBytes      int64  `json:"move_bytes"`
	OldFATSectors  uint32 `json:"old_fat_sectors"` // exFAT: its FAT's
	NewFATSectors  uint32 `json:"new_fat_sectors"`
	OldBitmapBytes int64  `json:"old_bitmap_bytes,omitempty"` // exFAT
	NewBitmapBytes int64  `json:"new_bitmap_bytes,omitempty"`
	// Unsafe says why a cut during this resize could leave a volume
	// outside the crash states DESIGN.md allows (empty: it cannot).
	Unsafe string `json:"unsafe,omitempty"`
	// Steps are the plan's steps in order, in words.
	Steps  []string `json:"steps"`
	DryRun bool     `json:"dry_run"`
}

// ErrTooSmall says the data does not fit in the size asked for.
var ErrTooSmall = errors.New("the volume's data does not fit in the size asked for")

// TooSmallError is the refusal to shrink below what the data needs.
type TooSmallError struct {
	Asked, Need int64  // bytes
	What        string // what lies past the end and cannot move, if anything
}

func (e *TooSmallError) Error() string {
	s := fmt.Sprintf("cannot shrink to %d bytes: the volume needs at least %d", e.Asked, e.Need)
	if e.What != "" {
		s += " (" + e.What + ")"
	}
	return s + "; nothing was changed"
}

func (e *TooSmallError) Is(target error) bool { return target == ErrTooSmall }

// ErrTypeLimit says the new size crosses the type's cluster-count limits.
var ErrTypeLimit = errors.New("the new size crosses the file system type's limits")

// TypeLimitError is the refusal of a size whose cluster count the FAT
// type cannot have with the volume's cluster size: it matches
// ErrTypeLimit, and says what a resize that keeps the layout can reach
// instead and what a new file system of the size asked for would need
// (fresize converts neither the cluster size nor the type).
type TypeLimitError struct {
	Asked int64  // bytes
	Why   string // the limit crossed, in words
	// Nearest is the size in bytes nearest Asked that keeps the type and
	// the cluster size (the largest when growing, the smallest when
	// shrinking), or 0 when there is none.
	Nearest int64
	// NearestMovesData says a growth to Nearest needs more FAT sectors
	// than the FATs have spare: the data area moves (Options.Undo and
	// Force).
	NearestMovesData bool
	// MakeType and MakeClusterSize are a FAT type ("12", "16", "32") and
	// cluster size in bytes with which a new file system of Asked bytes
	// can be made, the volume's own type first; MakeType is "" when none
	// fits.
	MakeType        string
	MakeClusterSize int64
}

func (e *TypeLimitError) Error() string {
	s := fmt.Sprintf("resize to %d bytes: %s", e.Asked, e.Why)
	if e.Nearest > 0 {
		s += fmt.Sprintf("; the nearest size this layout holds is %d bytes", e.Nearest)
	}
	if e.MakeType != "" {
		s += fmt.Sprintf("; a new FAT%s file system of %d bytes with %d-byte clusters would fit, but converting the cluster size or type is not done in place", e.MakeType, e.Asked, e.MakeClusterSize)
	}
	return s + "; nothing was changed"
}

func (e *TypeLimitError) Is(target error) bool { return target == ErrTypeLimit }

// ErrFATFull says growing the volume needs a larger FAT than the room
// before the data area (FAT) or cluster heap (exFAT) holds: that area
// would have to move.
var ErrFATFull = errors.New("the FAT has no room for the new clusters")

// FATFullError is the refusal to grow past what the FAT can count; it
// matches ErrFATFull and names the largest size the FAT can count, which
// a grow to the largest size possible can use instead.
type FATFullError struct {
	Asked, Largest int64 // bytes
	Msg            string
}

func (e *FATFullError) Error() string        { return e.Msg }
func (e *FATFullError) Is(target error) bool { return target == ErrFATFull }

// CheckRoom refuses a resize to newSize bytes on a device (or window)
// that holds have bytes, unless it is a dry run: the caller extends the
// image file or partition only once the plan holds. fs names the codec
// in the error ("fat", "exfat").
func CheckRoom(fs string, newSize, have int64, dryRun bool) error {
	if newSize > have && !dryRun {
		return fmt.Errorf("%s: resize to %d bytes: the device or image holds only %d bytes; extend it first", fs, newSize, have)
	}
	return nil
}

// ErrUnsafe says the resize needs Options.Force.
var ErrUnsafe = errors.New("the resize is not crash-safe")
