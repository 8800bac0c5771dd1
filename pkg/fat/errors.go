package fat

import (
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Sentinel errors. Every error this package returns for bad on-disk data or
// bad parameters wraps one of them, so callers can test with errors.Is.
var (
	// ErrNotFAT means the data does not look like a FAT file system at all.
	ErrNotFAT = errors.New("fat: not a FAT file system")
	// ErrCorrupt means the data is a FAT file system with inconsistent fields.
	ErrCorrupt = errors.New("fat: file system is corrupt")
	// ErrNoSpace means an allocation found no free cluster.
	ErrNoSpace = errors.New("fat: no space left on volume")
	// ErrInvalidParams means Plan cannot build a volume from the parameters.
	ErrInvalidParams = errors.New("fat: impossible format parameters")
	// ErrBootConflict means Repair refused, writing nothing: the boot
	// sector does not describe the volume on the device. Either no FAT
	// copy begins where it says (any FAT type), or the FAT32 boot sector
	// differs from its backup and neither describes it (or the volume was
	// not opened from the backup: see OpenForCheck).
	ErrBootConflict = errors.New("fat: the boot sector does not describe the volume")
)

// FormatError says what was wrong and where, like debug/elf's FormatError.
type FormatError struct {
	Structure string // "boot sector", "FSINFO", "FAT", ...
	Field     string // "bytes per sector"
	Offset    int64  // byte offset of the field from the structure's start (or volume), -1 if none
	Value     any    // the offending value, nil if none
	Msg       string // "not a power of two"
	Err       error  // sentinel it wraps (ErrNotFAT or ErrCorrupt)
}

// Error formats the error as
// "fat: boot sector: bytes per sector 300 at 0x0b: not a power of two".
func (e *FormatError) Error() string {
	return fsutil.FormatErrorText("fat", e.Structure, e.Field, e.Value, e.Offset, e.Msg)
}

// Unwrap returns the sentinel the error wraps.
func (e *FormatError) Unwrap() error { return e.Err }

// paramError is a Plan error: one sentence naming the limit, wrapping
// ErrInvalidParams.
type paramError struct{ msg string }

func (e *paramError) Error() string { return "fat: " + e.msg }
func (e *paramError) Unwrap() error { return ErrInvalidParams }

func paramErrorf(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}
