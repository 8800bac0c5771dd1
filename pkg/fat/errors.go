package fat

import "github.com/ftools/ftools/pkg/internal/fserr"

// Sentinel errors. Every error this package returns for bad on-disk data or
// bad parameters wraps one of them, so callers can test with errors.Is.
var (
	// ErrNotFAT means the data does not look like a FAT file system at all.
	ErrNotFAT error = fserr.New("fat", "not a FAT file system")
	// ErrBootConflict means Repair refused, writing nothing: the boot
	// sector does not describe the volume on the device. Either no FAT
	// copy begins where it says (any FAT type), or the FAT32 boot sector
	// differs from its backup and neither describes it (or the volume was
	// not opened from the backup: see OpenForCheck).
	ErrBootConflict error = fserr.New("fat", "the boot sector does not describe the volume")
)

// The sentinels pkg/exfat returns as well. Each is one kind with exfat's
// (package internal/fserr): errors.Is(err, fat.ErrNoSpace) holds for a full
// exFAT volume too, and the text keeps this package's prefix.
var (
	// ErrCorrupt means the data is a FAT file system with inconsistent fields.
	ErrCorrupt error = fserr.ErrCorrupt.In("fat")
	// ErrNoSpace means an allocation found no free cluster.
	ErrNoSpace error = fserr.ErrNoSpace.In("fat")
	// ErrInvalidParams means Plan cannot build a volume from the parameters.
	ErrInvalidParams error = fserr.ErrInvalidParams.In("fat")
	// ErrDirFull is returned when a directory cannot take another name.
	ErrDirFull error = fserr.ErrDirFull.In("fat")
)

// FormatError says what was wrong and where, like debug/elf's FormatError:
// "fat: boot sector: bytes per sector 300 at 0x0b: not a power of two". It
// wraps ErrNotFAT or ErrCorrupt.
type FormatError = fserr.FormatError

// NoSpaceError says how much was needed and how much was free; it wraps
// ErrNoSpace.
type NoSpaceError = fserr.NoSpaceError

// paramErrorf returns a Plan error: one sentence naming the limit, wrapping
// ErrInvalidParams.
func paramErrorf(format string, args ...any) error {
	return fserr.Paramf("fat", format, args...)
}
