package fat

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ftools/ftools/pkg/internal/names"
)

// MaxLongNameUnits is the longest long name, in UTF-16 code units.
const MaxLongNameUnits = 255

// Layout of an LFN slot. A long name is split into 13-unit pieces, one per
// slot, stored before the short entry in reverse order: the slot holding the
// end of the name comes first and carries lfnLastFlag.
const (
	lfnOrd      = 0  // uint8 LDIR_Ord: sequence number 1..20, | lfnLastFlag
	lfnName1    = 1  // 5 UTF-16 units
	lfnAttr     = 11 // uint8 LDIR_Attr: AttrLongName
	lfnType     = 12 // uint8 LDIR_Type: 0
	lfnChecksum = 13 // uint8 LDIR_Chksum: ShortNameChecksum of the short entry
	lfnName2    = 14 // 6 UTF-16 units
	lfnCluster  = 26 // uint16 LDIR_FstClusLO: 0
	lfnName3    = 28 // 2 UTF-16 units
	lfnLastFlag = 0x40
	lfnSeqMask  = 0x3F
	lfnUnits    = 13                                           // UTF-16 units per slot
	lfnMaxSlots = (MaxLongNameUnits + lfnUnits - 1) / lfnUnits // 20
	lfnPadUnit  = 0xFFFF                                       // fills a slot after the terminator
)

// lfnUnitOffsets are the byte offsets of the 13 units within a slot.
var lfnUnitOffsets = [lfnUnits]int{
	lfnName1, lfnName1 + 2, lfnName1 + 4, lfnName1 + 6, lfnName1 + 8,
	lfnName2, lfnName2 + 2, lfnName2 + 4, lfnName2 + 6, lfnName2 + 8, lfnName2 + 10,
	lfnName3, lfnName3 + 2,
}

// nameError is an invalid long name, or one that cannot be stored.
type nameError struct {
	name string
	msg  string
	err  error
}

func (e *nameError) Error() string { return fmt.Sprintf("fat: long name %q: %s", e.name, e.msg) }
func (e *nameError) Unwrap() error { return e.err }

// ShortNameChecksum returns the checksum of an on-disk short name that every
// LFN slot of the name carries (rotate right by one, add the next byte).
func ShortNameChecksum(name ShortName) uint8 {
	var sum uint8
	for _, c := range name {
		sum = (sum>>1 | sum<<7) + c
	}
	return sum
}

// forbiddenLong lists the printable characters FAT forbids in long names.
const forbiddenLong = "\"*/:<>?\\|"

// ValidateLongName checks a name going into a volume: valid UTF-8, not empty,
// not "." or "..", at most 255 UTF-16 units, and none of the characters FAT
// forbids (" * / : < > ? \ | and U+0000-U+001F). Names ending in a space or a
// dot are refused too: Windows and mtools silently strip those (mtools stores
// "foo." as "foo"), which would make the stored name differ from the one
// asked for; call CleanLongName first to get their behaviour. Errors are not
// sentinels; they name the name and the offending character (%q) or limit.
func ValidateLongName(name string) error {
	switch {
	case name == "":
		return &nameError{name: name, msg: "empty"}
	case name == "." || name == "..":
		return &nameError{name: name, msg: "reserved for the directory's own entries"}
	case !utf8.ValidString(name):
		return &nameError{name: name, msg: "not valid UTF-8"}
	}
	for _, r := range name {
		if r < 0x20 || strings.ContainsRune(forbiddenLong, r) {
			return &nameError{name: name, msg: fmt.Sprintf("character %q not allowed in FAT names", r)}
		}
	}
	if n := utf16Len(name); n > MaxLongNameUnits {
		return &nameError{name: name, msg: fmt.Sprintf("%d UTF-16 units, more than the limit of %d", n, MaxLongNameUnits)}
	}
	if last := name[len(name)-1]; last == ' ' || last == '.' {
		return &nameError{name: name, msg: fmt.Sprintf("ends with %q (Windows and mtools would strip it; see CleanLongName)", rune(last))}
	}
	return nil
}

// CleanLongName strips trailing spaces and dots from name, as Windows and
// mtools do before storing a long name.
func CleanLongName(name string) string { return strings.TrimRight(name, " .") }

func utf16Len(s string) int { return names.UTF16Len(s) }

// utf16Units converts s to UTF-16; invalid UTF-8 becomes U+FFFD.
func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }

// LongNameSlots encodes name (as UTF-16) into LFN slots in on-disk order: the
// slot with the 0x40 "last" flag and the highest sequence number first, each
// 32 bytes with checksum sum. A name whose length is not a multiple of 13
// units is terminated by 0x0000 and padded with 0xFFFF. It checks only what the
// encoding needs (not empty, valid UTF-8, at most 255 units); use
// ValidateLongName for the characters.
func LongNameSlots(name string, sum uint8) ([][DirEntrySize]byte, error) {
	if name == "" {
		return nil, &nameError{name: name, msg: "empty"}
	}
	if !utf8.ValidString(name) {
		return nil, &nameError{name: name, msg: "not valid UTF-8"}
	}
	units := utf16Units(name)
	if len(units) > MaxLongNameUnits {
		return nil, &nameError{name: name, msg: fmt.Sprintf("%d UTF-16 units, more than the limit of %d", len(units), MaxLongNameUnits)}
	}
	n := (len(units) + lfnUnits - 1) / lfnUnits
	slots := make([][DirEntrySize]byte, n)
	for seq := 1; seq <= n; seq++ {
		s := &slots[n-seq]
		s[lfnOrd] = byte(seq)
		if seq == n {
			s[lfnOrd] |= lfnLastFlag
		}
		s[lfnAttr] = byte(AttrLongName)
		s[lfnChecksum] = sum
		for i, off := range lfnUnitOffsets {
			u := uint16(lfnPadUnit)
			switch k := (seq-1)*lfnUnits + i; {
			case k < len(units):
				u = units[k]
			case k == len(units):
				u = 0
			}
			binary.LittleEndian.PutUint16(s[off:], u)
		}
	}
	return slots, nil
}

// lfnSlotUnits appends the 13 units of an LFN slot to dst.
func lfnSlotUnits(dst []uint16, slot []byte) []uint16 {
	for _, off := range lfnUnitOffsets {
		dst = append(dst, binary.LittleEndian.Uint16(slot[off:]))
	}
	return dst
}

// checkNewName applies the toolkit's one rule for names (pkg/internal/names,
// the same on exFAT) to the name a new or renamed entry is to get:
// ValidateLongName's refusals, and DEL and DOS device names (CON, AUX.txt...)
// too, which Windows cannot open. Existing entries keep whatever name they
// have: only names being stored are checked.
func checkNewName(name string) error { return names.FAT.Check(name) }
