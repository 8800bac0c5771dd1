package exfat

import (
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fserr"
)

// Sentinel errors. Every error this package returns for bad on-disk data or
// bad parameters wraps one of them, so callers can test with errors.Is.
var (
	// ErrNotExFAT means the data does not look like an exFAT file system.
	ErrNotExFAT error = fserr.New("exfat", "not an exFAT file system")
	// ErrUnsupported is wrapped by errors for volumes or requests this
	// package does not write: two FATs (TexFAT), a volume opened from its
	// backup boot region, space allocated past a file's end.
	ErrUnsupported = errors.ErrUnsupported
)

// The sentinels pkg/fat returns as well. Each is one kind with fat's
// (package internal/fserr): errors.Is(err, exfat.ErrNoSpace) holds for a
// full FAT volume too, and the text keeps this package's prefix.
var (
	// ErrCorrupt means the data is an exFAT file system with inconsistent
	// fields.
	ErrCorrupt error = fserr.ErrCorrupt.In("exfat")
	// ErrNoSpace means an allocation found too few free clusters.
	ErrNoSpace error = fserr.ErrNoSpace.In("exfat")
	// ErrInvalidParams means Plan cannot build a volume from the parameters.
	ErrInvalidParams error = fserr.ErrInvalidParams.In("exfat")
	// ErrDirFull is returned when a directory cannot take another entry set.
	ErrDirFull error = fserr.ErrDirFull.In("exfat")
	// ErrReadOnly is returned when a change is asked of a read-only volume.
	ErrReadOnly error = fserr.ErrReadOnly.In("exfat")
	// ErrClosed is returned when a volume is used after Close.
	ErrClosed error = fserr.ErrClosed.In("exfat")
)

// Errors for operations on the wrong kind of entry; they are the system's
// errno values so that messages read as cp's do and errors.Is works.
var (
	ErrNotDir   = fserr.ErrNotDir
	ErrIsDir    = fserr.ErrIsDir
	ErrNotEmpty = fserr.ErrNotEmpty
)

// FormatError says what was wrong and where, like debug/elf's FormatError:
// "exfat: boot sector: bytes per sector shift 13 at 0x6c: out of range
// 9..12". It wraps ErrNotExFAT or ErrCorrupt.
type FormatError = fserr.FormatError

// corruptf returns a FormatError wrapping ErrCorrupt.
func corruptf(structure, field string, off int64, value any, format string, args ...any) error {
	return &FormatError{Structure: structure, Field: field, Offset: off, Value: value, Msg: fmt.Sprintf(format, args...), Err: ErrCorrupt}
}

// NoSpaceError says how much was needed and how much was free; it wraps
// ErrNoSpace.
type NoSpaceError = fserr.NoSpaceError

// paramErrorf returns a Plan error: one sentence naming the limit, wrapping
// ErrInvalidParams.
func paramErrorf(format string, args ...any) error {
	return fserr.Paramf("exfat", format, args...)
}
