package exfat

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/names"
)

// ErrBadName is wrapped by the errors for names exFAT cannot store.
var ErrBadName = errors.New("exfat: invalid file name")

// invalidNameChar reports whether a code unit may not appear in a file
// name (exFAT specification 7.7.3, table 35): controls and " * / : < > ? \ |.
func invalidNameChar(c uint16) bool {
	if c < 0x20 {
		return true
	}
	switch c {
	case '"', '*', '/', ':', '<', '>', '?', '\\', '|':
		return true
	}
	return false
}

// EncodeName converts a name to the UTF-16 an entry set stores and checks
// that exFAT can hold it: valid UTF-8, 1 to 255 code units, none of the
// invalid characters, not "." or "..".
func EncodeName(name string) ([]uint16, error) {
	if name == "" || name == "." || name == ".." {
		return nil, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("%w: %q is not valid UTF-8", ErrBadName, name)
	}
	u := utf16.Encode([]rune(name))
	if len(u) > MaxNameLength {
		return nil, fmt.Errorf("%w: %q is %d UTF-16 code units long; exFAT allows %d", ErrBadName, name, len(u), MaxNameLength)
	}
	for _, c := range u {
		if invalidNameChar(c) {
			return nil, fmt.Errorf("%w: %q holds %q, which exFAT does not allow in names", ErrBadName, name, rune(c))
		}
	}
	return u, nil
}

// ValidateName reports whether Create, Mkdir, Rename and Fallocate take
// name for a new entry: what EncodeName accepts, less names ending in a
// dot or a space and DOS device names (see checkNewName). The error wraps
// ErrBadName.
func ValidateName(name string) error { return checkNewName(name) }

// decodeName converts stored UTF-16 to a string; unpaired surrogates
// become U+FFFD.
func decodeName(u []uint16) string { return string(utf16.Decode(u)) }

// nameIndex is a directory's index of its members by up-cased name
// (fsutil.NameIndex: by a hash of it, not a copy).
type nameIndex struct{ fsutil.NameIndex[*Record] }

// add indexes r by its name.
func (x *nameIndex) add(up *Upcase, r *Record) {
	u := r.Set.Name
	x.Add(foldHash(up, u), r, namedAs(up, u), foldOf(up, u))
}

// get returns the member named u, or nil.
func (x *nameIndex) get(up *Upcase, u []uint16) *Record {
	return x.Get(foldHash(up, u), namedAs(up, u), foldOf(up, u))
}

// remove drops r's name from the index if r holds it.
func (x *nameIndex) remove(up *Upcase, r *Record) {
	u := r.Set.Name
	x.Remove(foldHash(up, u), r, namedAs(up, u), foldOf(up, u))
}

func namedAs(up *Upcase, u []uint16) func(*Record) bool {
	return func(r *Record) bool { return foldEqual(up, r.Set.Name, u) }
}

func foldOf(up *Upcase, u []uint16) func() string { return func() string { return foldKey(up, u) } }

// foldHash is the FNV-1a hash of foldKey(up, u), computed without building
// it.
func foldHash(up *Upcase, u []uint16) uint64 {
	h := fsutil.FoldHashInit
	for _, c := range u {
		c = up.ToUpper(c)
		h = (h ^ uint64(byte(c))) * fsutil.FoldHashPrime
		h = (h ^ uint64(byte(c>>8))) * fsutil.FoldHashPrime
	}
	return h
}

// foldEqual reports whether a and b are one name up-cased by up.
func foldEqual(up *Upcase, a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if up.ToUpper(a[i]) != up.ToUpper(b[i]) {
			return false
		}
	}
	return true
}

// foldKey is the key names are compared by: the name up-cased with the
// volume's table, as UTF-16 code units packed into a string.
func foldKey(up *Upcase, u []uint16) string {
	b := make([]byte, 2*len(u))
	for i, c := range u {
		c = up.ToUpper(c)
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return string(b)
}

// FoldName returns the form names are compared in on this volume: each
// UTF-16 code unit up-cased through the volume's up-case table, as exFAT
// compares names (so "ß" stays "ß", and the Kelvin sign is its own name
// unless the table maps it). Invalid UTF-8 is compared as written.
func (v *Volume) FoldName(s string) string {
	if !utf8.ValidString(s) {
		return s
	}
	u := utf16.Encode([]rune(s))
	for i, c := range u {
		u[i] = v.up.ToUpper(c)
	}
	return decodeName(u)
}

// checkNewName applies the toolkit's one rule for names (pkg/internal/names,
// the same on FAT) to the name a new or renamed entry is to get:
// ValidateName's refusals, and trailing dots and spaces (Windows cannot
// open such names) and DOS device names (CON, AUX.txt...). The error wraps
// ErrBadName. Existing entries keep whatever name they have.
func checkNewName(name string) error {
	if err := names.ExFAT.Check(name); err != nil {
		ne := err.(*names.Error)
		ne.Err = ErrBadName
		return ne
	}
	return nil
}
