// Package names is the one rule for names going into a FAT or exFAT
// volume, shared by pkg/fat, pkg/exfat and the commands: trailing dots and
// spaces are dropped (as Windows and mcopy do), and characters the file
// system cannot hold, over-long names and DOS device names are refused
// with the reason.
//
// Clean is the rule as the commands apply it (a name that ends in a dot or
// a space is stored without them, with a note saying so); Check is the rule
// as the libraries apply it (such a name is refused, so that a library
// never stores a name other than the one it was given).
package names

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxUnits is the longest name either file system holds, in UTF-16 code
// units (FAT's long names and exFAT's File Name entries alike).
const MaxUnits = 255

// FS is one file system's rule.
type FS struct {
	name     string // "FAT" or "exFAT", for messages
	del      bool   // DEL (0x7f) is refused too
	trailing string // why trailing dots and spaces are dropped
}

// FAT's and exFAT's rules. The same characters are forbidden (the FAT
// specification's long-name rules; exFAT specification 7.7.3), but DEL,
// which FAT's names do not take (fsck.fat and DOS refuse it in short
// names, and a long name's short alias is made from it). exFAT itself
// could keep trailing dots and spaces, but Windows cannot open such
// names and Linux's exfat driver drops the dots, so they are dropped as on
// FAT. Device names (CON, AUX...) are Windows' and refused on both.
var (
	FAT   = FS{"FAT", true, "FAT names cannot end in a dot or a space (Windows and mcopy drop them too)"}
	ExFAT = FS{"exFAT", false, "names that end in a dot or a space cannot be opened on Windows, and Linux drops the dots"}
)

// Name is the file system's name, for messages ("FAT", "exFAT").
func (r FS) Name() string { return r.name }

// Error is a name the file system cannot store, with the reason.
type Error struct {
	Name   string // the name as given
	Reason string // why it cannot be stored ("holds ':', which FAT names cannot hold")
	// Err is a sentinel of the file system's package that the error
	// wraps (pkg/exfat's ErrBadName), or nil.
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("the name %q %s", e.Name, e.Reason) }
func (e *Error) Unwrap() error { return e.Err }

// Bad reports whether the file system's names cannot hold r: controls
// (U+0000-U+001F), " * / : < > ? \ | and, on FAT, DEL.
func (r FS) Bad(c rune) bool {
	return c < 0x20 || (r.del && c == 0x7f) || strings.ContainsRune("\"*/:<>?\\|", c)
}

// Clean applies the rule to a name going into a volume: it returns the name
// to store (trailing dots and spaces dropped) and, when that differs from
// name, a note saying why. A name that cannot be stored even so is an
// *Error; clean and note are still the stripped name and its note, so that
// a caller can offer a fixed name.
func (r FS) Clean(name string) (clean, note string, err error) {
	refuse := func(format string, a ...any) error {
		return &Error{Name: name, Reason: fmt.Sprintf(format, a...)}
	}
	if name == "" {
		return "", "", refuse("is empty")
	}
	if !utf8.ValidString(name) {
		return name, "", refuse("is not valid UTF-8")
	}
	clean = strings.TrimRight(name, " .")
	if clean != name {
		if clean == "" {
			return name, "", refuse("is nothing but dots and spaces, which %s cannot store", r.name)
		}
		note = r.trailing
	}
	if i := strings.IndexFunc(clean, r.Bad); i >= 0 {
		c, _ := utf8.DecodeRuneInString(clean[i:])
		return clean, note, refuse("holds %q, which %s names cannot hold", c, r.name)
	}
	if n := UTF16Len(clean); n > MaxUnits {
		return clean, note, refuse("is %d UTF-16 units long, more than %s's %d", n, r.name, MaxUnits)
	}
	if IsDevice(clean) {
		return clean, note, refuse("is a DOS device name (CON, PRN, AUX, NUL, COM1-9 and LPT1-9, with any extension), which Windows cannot open")
	}
	return clean, note, nil
}

// Check is the rule as a library applies it: a name that Clean would
// change (trailing dots or spaces) is refused like one it refuses, so that
// the name stored is always the name given.
func (r FS) Check(name string) error {
	clean, _, err := r.Clean(name)
	if err != nil {
		return err
	}
	if clean != name {
		last, _ := utf8.DecodeLastRuneInString(name)
		return &Error{Name: name, Reason: fmt.Sprintf("ends in %q: %s; drop the trailing dots and spaces first", last, r.trailing)}
	}
	return nil
}

// IsDevice reports whether a name is one DOS and Windows reserve for a
// device: CON, PRN, AUX, NUL, COM1-COM9 or LPT1-LPT9, in any case, with or
// without an extension ("con.txt" too), as Windows reads it.
//
// Only ASCII letters and digits spell one (no other letter upper-cases to
// one of theirs), so an ASCII fold decides it, without a copy of the name:
// every name a copy writes is asked about.
func IsDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.TrimRight(base, " ")
	if len(base) != 3 && len(base) != 4 {
		return false
	}
	var up [4]byte
	for i := range len(base) {
		c := base[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	if len(base) == 3 {
		w := string(up[:3])
		return w == "CON" || w == "PRN" || w == "AUX" || w == "NUL"
	}
	w := string(up[:3])
	return (w == "COM" || w == "LPT") && up[3] >= '1' && up[3] <= '9'
}

// UTF16Len is how many UTF-16 code units s takes (invalid UTF-8 counts as
// U+FFFD, one unit, as utf16.Encode([]rune(s)) has it), without making
// them.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
