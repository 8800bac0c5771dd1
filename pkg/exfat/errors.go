package exfat

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Sentinel errors. Every error this package returns for bad on-disk data or
// bad parameters wraps one of them, so callers can test with errors.Is.
var (
	// ErrNotExFAT means the data does not look like an exFAT file system.
	ErrNotExFAT = errors.New("exfat: not an exFAT file system")
	// ErrCorrupt means the data is an exFAT file system with inconsistent
	// fields.
	ErrCorrupt = errors.New("exfat: file system is corrupt")
	// ErrNoSpace means an allocation found too few free clusters.
	ErrNoSpace = errors.New("exfat: no space left on volume")
	// ErrInvalidParams means Plan cannot build a volume from the parameters.
	ErrInvalidParams = errors.New("exfat: impossible format parameters")
	// ErrReadOnly is returned when a change is asked of a read-only volume.
	ErrReadOnly = errors.New("exfat: volume is open read-only")
	// ErrClosed is returned when a volume is used after Close.
	ErrClosed = errors.New("exfat: volume is closed")
	// ErrUnsupported is wrapped by errors for volumes or requests this
	// package does not write: two FATs (TexFAT), a volume opened from its
	// backup boot region, space allocated past a file's end.
	ErrUnsupported = errors.ErrUnsupported
)

// Errors for operations on the wrong kind of entry; they are the system's
// errno values so that messages read as cp's do and errors.Is works.
var (
	ErrNotDir   error = syscall.ENOTDIR
	ErrIsDir    error = syscall.EISDIR
	ErrNotEmpty error = syscall.ENOTEMPTY
)

// FormatError says what was wrong and where, like debug/elf's FormatError.
type FormatError struct {
	Structure string // "boot sector", "allocation bitmap", "entry set", ...
	Field     string // "bytes per sector shift"
	Offset    int64  // byte offset of the field (from the structure's start, or the volume's), -1 if none
	Value     any    // the offending value, nil if none
	Msg       string // "out of range 9..12"
	Err       error  // sentinel it wraps (ErrNotExFAT or ErrCorrupt)
}

// Error formats the error as
// "exfat: boot sector: bytes per sector shift 13 at 0x6c: out of range 9..12".
func (e *FormatError) Error() string {
	return fsutil.FormatErrorText("exfat", e.Structure, e.Field, e.Value, e.Offset, e.Msg)
}

// Unwrap returns the sentinel the error wraps.
func (e *FormatError) Unwrap() error { return e.Err }

// corruptf returns a FormatError wrapping ErrCorrupt.
func corruptf(structure, field string, off int64, value any, format string, args ...any) error {
	return &FormatError{Structure: structure, Field: field, Offset: off, Value: value, Msg: fmt.Sprintf(format, args...), Err: ErrCorrupt}
}

// NoSpaceError says how much was needed and how much was free.
type NoSpaceError struct {
	Need, Free int64 // bytes
}

func (e *NoSpaceError) Error() string {
	return fmt.Sprintf("no space left on volume: need %d bytes, %d free", e.Need, e.Free)
}

func (e *NoSpaceError) Unwrap() error { return ErrNoSpace }

// paramError is a Plan error: one sentence naming the limit, wrapping
// ErrInvalidParams.
type paramError struct{ msg string }

func (e *paramError) Error() string { return "exfat: " + e.msg }
func (e *paramError) Unwrap() error { return ErrInvalidParams }

func paramErrorf(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}
