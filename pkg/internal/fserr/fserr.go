// Package fserr holds the errors pkg/fat and pkg/exfat share: one set of
// sentinels, the FormatError that names a bad field and its offset, the
// NoSpaceError that says how much was missing, and the Plan parameter
// error.
//
// A codec gives each shared sentinel its own package prefix with In
// ("fat: no space left on volume"), as the Go convention for sentinel
// text asks, yet errors.Is matches by kind: an error of either codec is
// ErrNoSpace, fat.ErrNoSpace and exfat.ErrNoSpace alike.
package fserr

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Sentinel is an error kind, with the prefix of the package that returns
// it. Two sentinels of one kind match each other under errors.Is.
type Sentinel struct {
	pkg  string    // "fat", "exfat"; "" for the shared kind itself
	msg  string    // without the prefix
	kind *Sentinel // the shared kind; itself for a kind
}

// Kind makes a new error kind, without a package prefix.
func Kind(msg string) *Sentinel {
	s := &Sentinel{msg: msg}
	s.kind = s
	return s
}

// New makes a sentinel only one codec returns ("fat: not a FAT file
// system"): a kind of its own, with pkg's prefix.
func New(pkg, msg string) *Sentinel {
	s := Kind(msg)
	s.pkg = pkg
	return s
}

// In is the kind s as package pkg returns it: its text gets pkg's prefix,
// and it matches s and every other package's sentinel of the kind.
func (s *Sentinel) In(pkg string) *Sentinel {
	return &Sentinel{pkg: pkg, msg: s.msg, kind: s.kind}
}

func (s *Sentinel) Error() string {
	if s.pkg == "" {
		return s.msg
	}
	return s.pkg + ": " + s.msg
}

// Is reports whether target is a sentinel of the same kind.
func (s *Sentinel) Is(target error) bool {
	t, ok := target.(*Sentinel)
	return ok && t.kind == s.kind
}

// The sentinels both codecs return. Every error pkg/fat and pkg/exfat
// return for bad on-disk data, bad parameters or a full volume wraps one
// of them (or fs.ErrNotExist and its friends, for paths).
var (
	// ErrCorrupt: the data is a file system of the codec's kind with
	// inconsistent fields.
	ErrCorrupt = Kind("file system is corrupt")
	// ErrNoSpace: an allocation found too few free clusters.
	ErrNoSpace = Kind("no space left on volume")
	// ErrDirFull: a directory cannot take another name.
	ErrDirFull = Kind("directory is full")
	// ErrInvalidParams: Plan cannot build a volume from the parameters.
	ErrInvalidParams = Kind("impossible format parameters")
	// ErrReadOnly: a change was asked of a read-only volume.
	ErrReadOnly = Kind("volume is open read-only")
	// ErrClosed: the volume was used after Close.
	ErrClosed = Kind("volume is closed")
)

// Errors for operations on the wrong kind of entry: the system's errno
// values, so that messages read as cp's do and errors.Is works.
var (
	ErrNotDir   error = syscall.ENOTDIR
	ErrIsDir    error = syscall.EISDIR
	ErrNotEmpty error = syscall.ENOTEMPTY
)

// prefix is the package prefix of the first sentinel err wraps, "" when
// it wraps none.
func prefix(err error) string {
	var s *Sentinel
	if errors.As(err, &s) {
		return s.pkg
	}
	return ""
}

// FormatError says what was wrong and where, like debug/elf's FormatError.
type FormatError struct {
	Structure string // "boot sector", "FSINFO", "allocation bitmap", "entry set", ...
	Field     string // "bytes per sector"
	Offset    int64  // byte offset of the field from the structure's start (or the volume's), -1 if none
	Value     any    // the offending value, nil if none
	Msg       string // "not a power of two"
	Err       error  // sentinel it wraps (the codec's ErrNotFAT, ErrNotExFAT or ErrCorrupt)
}

// Error formats the error as
// "fat: boot sector: bytes per sector 300 at 0x0b: not a power of two":
// the prefix of the package whose sentinel it wraps, then each part, left
// out when empty (Field "", Value nil, Offset -1, Msg "").
func (e *FormatError) Error() string {
	var b strings.Builder
	if p := prefix(e.Err); p != "" {
		b.WriteString(p + ": ")
	}
	b.WriteString(e.Structure)
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	if e.Value != nil {
		fmt.Fprintf(&b, " %v", e.Value)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " at 0x%02x", e.Offset)
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
	}
	return b.String()
}

// Unwrap returns the sentinel the error wraps.
func (e *FormatError) Unwrap() error { return e.Err }

// NoSpaceError says how much was needed and how much was free.
type NoSpaceError struct {
	Need, Free int64 // bytes
}

func (e *NoSpaceError) Error() string {
	return fmt.Sprintf("no space left on volume: need %d bytes, %d free", e.Need, e.Free)
}

// Unwrap returns ErrNoSpace.
func (e *NoSpaceError) Unwrap() error { return ErrNoSpace }

// ParamError is a Plan error: one sentence naming the limit, wrapping
// ErrInvalidParams.
type ParamError struct{ Pkg, Msg string }

func (e *ParamError) Error() string { return e.Pkg + ": " + e.Msg }

// Unwrap returns ErrInvalidParams.
func (e *ParamError) Unwrap() error { return ErrInvalidParams }

// Paramf makes package pkg's ParamError from a format.
func Paramf(pkg, format string, args ...any) error {
	return &ParamError{Pkg: pkg, Msg: fmt.Sprintf(format, args...)}
}

// IsFull reports whether err means the volume or a directory is full.
func IsFull(err error) bool {
	return errors.Is(err, ErrNoSpace) || errors.Is(err, ErrDirFull)
}
