// Package fsattr holds what FAT and exFAT share of a file's attribute
// bits: the same bits in the same places (exFAT kept FAT's), the letters
// they are listed as, and which of them SetAttr may change. Attr is
// exFAT's attribute type itself (its FileAttributes field is 16 bits);
// FAT keeps its own byte-wide Attr over the same bits, with the bits only
// it has (the volume label and long-name marks).
package fsattr

import (
	"fmt"
	"strings"
)

// Attr holds a file's attribute bits in a 16-bit field, as exFAT stores
// them (FAT's byte holds the low 8).
type Attr uint16

// The attribute bits both file systems have.
const (
	ReadOnly  Attr = 0x01
	Hidden    Attr = 0x02
	System    Attr = 0x04
	VolumeID  Attr = 0x08 // FAT only; reserved on exFAT
	Directory Attr = 0x10
	Archive   Attr = 0x20
)

// Shared holds the bits both file systems have: all but VolumeID.
const Shared = ReadOnly | Hidden | System | Directory | Archive

// Changeable holds the bits SetAttr may set or clear: the directory (and
// FAT's volume-label) bit says what an entry is and never changes.
const Changeable = ReadOnly | Hidden | System | Archive

// String lists the set bits among Shared as letters in the order R H S D
// A; "" when none is set.
func (a Attr) String() string { return String(a, Shared) }

// letters lists the bits in the order String prints them.
var letters = []struct {
	bit    Attr
	letter byte
}{
	{ReadOnly, 'R'}, {Hidden, 'H'}, {System, 'S'},
	{VolumeID, 'V'}, {Directory, 'D'}, {Archive, 'A'},
}

// String lists the bits of a that are set, among those in known, as
// letters in the order R H S V D A: "A" for an archived file, "D" for a
// directory, "RHS" for a protected system file; "" when none is set.
func String(a, known Attr) string {
	var b strings.Builder
	for _, l := range letters {
		if a&known&l.bit != 0 {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

// Check refuses set and clear when they name a bit outside Changeable:
// the error wraps errAttr (the codec's sentinel) and says which bits.
func Check(set, clear Attr, errAttr error) error {
	if bad := (set | clear) &^ Changeable; bad != 0 {
		return fmt.Errorf("%w (asked for %#02x)", errAttr, uint16(bad))
	}
	return nil
}

// Apply returns a with the bits in set set and those in clear cleared
// (set wins where both name a bit), and whether that changed a.
func Apply(a, set, clear Attr) (Attr, bool) {
	b := (a &^ clear) | set
	return b, b != a
}
