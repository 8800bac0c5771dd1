// Package fsattr holds what FAT and exFAT share of a file's attribute
// bits: the same bits in the same places (exFAT kept FAT's), the letters
// they are listed as, and which of them SetAttr may change. The codecs
// keep their own Attr types (a byte on FAT, 16 bits on exFAT) and the bits
// only one has (FAT's volume label and long-name marks).
package fsattr

import (
	"fmt"
	"strings"
)

// The attribute bits both file systems have.
const (
	ReadOnly  = 0x01
	Hidden    = 0x02
	System    = 0x04
	VolumeID  = 0x08 // FAT only; reserved on exFAT
	Directory = 0x10
	Archive   = 0x20
)

// Changeable holds the bits SetAttr may set or clear: the directory (and
// FAT's volume-label) bit says what an entry is and never changes.
const Changeable = ReadOnly | Hidden | System | Archive

// letters lists the bits in the order String prints them.
var letters = []struct {
	bit    uint16
	letter byte
}{
	{ReadOnly, 'R'}, {Hidden, 'H'}, {System, 'S'},
	{VolumeID, 'V'}, {Directory, 'D'}, {Archive, 'A'},
}

// String lists the bits of a that are set, among those in known, as
// letters in the order R H S V D A: "A" for an archived file, "D" for a
// directory, "RHS" for a protected system file; "" when none is set.
func String(a, known uint16) string {
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
func Check(set, clear uint16, errAttr error) error {
	if bad := (set | clear) &^ Changeable; bad != 0 {
		return fmt.Errorf("%w (asked for %#02x)", errAttr, bad)
	}
	return nil
}

// Apply returns a with the bits in set set and those in clear cleared
// (set wins where both name a bit), and whether that changed a.
func Apply(a, set, clear uint16) (uint16, bool) {
	b := (a &^ clear) | set
	return b, b != a
}
