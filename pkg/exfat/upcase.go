package exfat

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// The up-case table maps every UTF-16 code unit to its upper-case form;
// names are compared, and their hashes computed, on the up-cased form
// (exFAT specification 7.2). On disk it may be compressed: the code unit
// 0xFFFF followed by a count n means "the next n code units map to
// themselves".
//
// DefaultUpcase is the table the specification recommends (its section
// 7.2.5.1), the one Windows and mkfs.exfat write: 5,836 bytes, checksum
// 0xE619D30D. It is built from upcaseRuns below, the table's 874 non-identity
// mappings written as runs, and compressed the way mkfs.exfat compresses
// it: runs of 512 or more identity mappings become 0xFFFF, n; shorter ones
// are written out. TestDefaultUpcaseMatchesMkfs holds the result to the
// bytes mkfs.exfat writes.
const (
	// DefaultUpcaseChecksum is the TableChecksum of the recommended table.
	DefaultUpcaseChecksum = 0xE619D30D
	// DefaultUpcaseSize is the byte length of its compressed form.
	DefaultUpcaseSize = 5836

	upcaseChars       = 0x10000
	upcaseCompressMin = 512    // identity runs at least this long are compressed
	upcaseMarker      = 0xFFFF // starts a compressed identity run
	// maxUpcaseBytes bounds a table read from disk: every code unit written
	// out, as fsck.exfat bounds it.
	maxUpcaseBytes = 2 * upcaseChars
)

// upcaseRun maps count code units first, first+step, ... to themselves plus
// delta.
type upcaseRun struct {
	first uint16
	count uint16
	step  uint16
	delta int32
}

// upcaseRuns are the non-identity mappings of the recommended up-case table.
var upcaseRuns = [...]upcaseRun{
	{0x0061, 26, 1, -32},
	{0x00E0, 23, 1, -32},
	{0x00F8, 7, 1, -32},
	{0x00FF, 1, 1, 121},
	{0x0101, 24, 2, -1},
	{0x0133, 3, 2, -1},
	{0x013A, 8, 2, -1},
	{0x014B, 23, 2, -1},
	{0x017A, 3, 2, -1},
	{0x0180, 1, 1, 195},
	{0x0183, 2, 2, -1},
	{0x0188, 1, 1, -1},
	{0x018C, 1, 1, -1},
	{0x0192, 1, 1, -1},
	{0x0195, 1, 1, 97},
	{0x0199, 1, 1, -1},
	{0x019A, 1, 1, 163},
	{0x019E, 1, 1, 130},
	{0x01A1, 3, 2, -1},
	{0x01A8, 1, 1, -1},
	{0x01AD, 1, 1, -1},
	{0x01B0, 1, 1, -1},
	{0x01B4, 2, 2, -1},
	{0x01B9, 1, 1, -1},
	{0x01BD, 1, 1, -1},
	{0x01BF, 1, 1, 56},
	{0x01C6, 1, 1, -2},
	{0x01C9, 1, 1, -2},
	{0x01CC, 1, 1, -2},
	{0x01CE, 8, 2, -1},
	{0x01DD, 1, 1, -79},
	{0x01DF, 9, 2, -1},
	{0x01F3, 1, 1, -2},
	{0x01F5, 1, 1, -1},
	{0x01F9, 20, 2, -1},
	{0x0223, 9, 2, -1},
	{0x023A, 1, 1, 10795},
	{0x023C, 1, 1, -1},
	{0x023E, 1, 1, 10792},
	{0x0242, 1, 1, -1},
	{0x0247, 5, 2, -1},
	{0x0253, 1, 1, -210},
	{0x0254, 1, 1, -206},
	{0x0256, 2, 1, -205},
	{0x0259, 1, 1, -202},
	{0x025B, 1, 1, -203},
	{0x0260, 1, 1, -205},
	{0x0263, 1, 1, -207},
	{0x0268, 1, 1, -209},
	{0x0269, 1, 1, -211},
	{0x026B, 1, 1, 10743},
	{0x026F, 1, 1, -211},
	{0x0272, 1, 1, -213},
	{0x0275, 1, 1, -214},
	{0x027D, 1, 1, 10727},
	{0x0280, 1, 1, -218},
	{0x0283, 1, 1, -218},
	{0x0288, 1, 1, -218},
	{0x0289, 1, 1, -69},
	{0x028A, 2, 1, -217},
	{0x028C, 1, 1, -71},
	{0x0292, 1, 1, -219},
	{0x037B, 3, 1, 130},
	{0x03AC, 1, 1, -38},
	{0x03AD, 3, 1, -37},
	{0x03B1, 17, 1, -32},
	{0x03C2, 1, 1, -31},
	{0x03C3, 9, 1, -32},
	{0x03CC, 1, 1, -64},
	{0x03CD, 2, 1, -63},
	{0x03D9, 12, 2, -1},
	{0x03F2, 1, 1, 7},
	{0x03F8, 1, 1, -1},
	{0x03FB, 1, 1, -1},
	{0x0430, 32, 1, -32},
	{0x0450, 16, 1, -80},
	{0x0461, 17, 2, -1},
	{0x048B, 27, 2, -1},
	{0x04C2, 7, 2, -1},
	{0x04CF, 1, 1, -15},
	{0x04D1, 34, 2, -1},
	{0x0561, 38, 1, -48},
	{0x1D7D, 1, 1, 3814},
	{0x1E01, 75, 2, -1},
	{0x1EA1, 45, 2, -1},
	{0x1F00, 8, 1, 8},
	{0x1F10, 6, 1, 8},
	{0x1F20, 8, 1, 8},
	{0x1F30, 8, 1, 8},
	{0x1F40, 6, 1, 8},
	{0x1F51, 4, 2, 8},
	{0x1F60, 8, 1, 8},
	{0x1F70, 2, 1, 74},
	{0x1F72, 4, 1, 86},
	{0x1F76, 2, 1, 100},
	{0x1F78, 2, 1, 128},
	{0x1F7A, 2, 1, 112},
	{0x1F7C, 2, 1, 126},
	{0x1F80, 8, 1, 8},
	{0x1F90, 8, 1, 8},
	{0x1FA0, 8, 1, 8},
	{0x1FB0, 2, 1, 8},
	{0x1FB3, 1, 1, 9},
	{0x1FCC, 1, 1, -9},
	{0x1FD0, 2, 1, 8},
	{0x1FE0, 2, 1, 8},
	{0x1FE5, 1, 1, 7},
	{0x1FFC, 1, 1, -9},
	{0x214E, 1, 1, -28},
	{0x2170, 16, 1, -16},
	{0x2184, 1, 1, -1},
	{0x24D0, 26, 1, -26},
	{0x2C30, 47, 1, -48},
	{0x2C61, 1, 1, -1},
	{0x2C68, 3, 2, -1},
	{0x2C76, 1, 1, -1},
	{0x2C81, 50, 2, -1},
	{0x2D00, 38, 1, -7264},
	{0xFF41, 26, 1, -32},
}

// Upcase is a decompressed up-case table.
type Upcase struct {
	m [upcaseChars]uint16
}

var (
	defaultOnce   sync.Once
	defaultTable  *Upcase
	defaultRawTbl []byte
)

func buildDefault() {
	u := &Upcase{}
	for i := range u.m {
		u.m[i] = uint16(i)
	}
	for _, r := range upcaseRuns {
		c := int32(r.first)
		for range r.count {
			u.m[c] = uint16(c + r.delta)
			c += int32(r.step)
		}
	}
	defaultTable, defaultRawTbl = u, u.Compress()
}

// DefaultUpcase returns the recommended up-case table, decompressed. The
// caller must not modify it.
func DefaultUpcase() *Upcase {
	defaultOnce.Do(buildDefault)
	return defaultTable
}

// DefaultUpcaseBytes returns the recommended up-case table in its
// compressed on-disk form. The caller must not modify it.
func DefaultUpcaseBytes() []byte {
	defaultOnce.Do(buildDefault)
	return defaultRawTbl
}

// Compress encodes the table as mkfs.exfat does: identity runs of 512 or
// more code units as 0xFFFF and their length, everything else written out.
func (u *Upcase) Compress() []byte {
	var out []byte
	put := func(v uint16) { out = binary.LittleEndian.AppendUint16(out, v) }
	for i := 0; i < upcaseChars; {
		if int(u.m[i]) != i {
			put(u.m[i])
			i++
			continue
		}
		j := i
		for j < upcaseChars && int(u.m[j]) == j {
			j++
		}
		// A run up to the table's end has 65,536 - i code units; a count
		// field holds at most 65,535, which is all it can be from i >= 1.
		if j-i >= upcaseCompressMin && j-i < upcaseChars {
			put(upcaseMarker)
			put(uint16(j - i))
		} else {
			for k := i; k < j; k++ {
				put(uint16(k))
			}
		}
		i = j
	}
	return out
}

// DecodeUpcase decompresses an up-case table read from disk. Code units
// the table does not reach map to themselves. raw must hold whole code
// units and at most 131,072 bytes; a run that would pass the last code unit
// is cut there.
func DecodeUpcase(raw []byte) (*Upcase, error) {
	if len(raw) == 0 || len(raw)%2 != 0 || len(raw) > maxUpcaseBytes {
		return nil, corruptf("up-case table", "data length", -1, len(raw), "must be a positive even number of bytes up to %d", maxUpcaseBytes)
	}
	u := &Upcase{}
	for i := range u.m {
		u.m[i] = uint16(i)
	}
	k := 0
	for i := 0; i+1 < len(raw) && k < upcaseChars; i += 2 {
		v := binary.LittleEndian.Uint16(raw[i:])
		if v == upcaseMarker && i+3 < len(raw) {
			k += int(binary.LittleEndian.Uint16(raw[i+2:]))
			i += 2
			continue
		}
		u.m[k] = v
		k++
	}
	return u, nil
}

// UpcaseChecksum is the TableChecksum of an up-case table's on-disk bytes
// (exFAT specification 7.2.2): the boot checksum's rotate-and-add over
// every byte.
func UpcaseChecksum(raw []byte) uint32 {
	var sum uint32
	for _, b := range raw {
		sum = (sum>>1 | sum<<31) + uint32(b)
	}
	return sum
}

// ToUpper maps one UTF-16 code unit.
func (u *Upcase) ToUpper(c uint16) uint16 { return u.m[c] }

// Upper returns the up-cased form of a name in UTF-16.
func (u *Upcase) Upper(name []uint16) []uint16 {
	out := make([]uint16, len(name))
	for i, c := range name {
		out[i] = u.m[c]
	}
	return out
}

// NameHash is the NameHash field of a stream extension entry for name
// (exFAT specification 7.6.4): a 16-bit rotate-and-add over the up-cased
// name's code units, low byte first.
func (u *Upcase) NameHash(name []uint16) uint16 {
	var h uint16
	for _, c := range name {
		c = u.m[c]
		h = (h>>1 | h<<15) + uint16(c&0xFF)
		h = (h>>1 | h<<15) + uint16(c>>8)
	}
	return h
}

// String summarizes the table for debugging.
func (u *Upcase) String() string {
	n := 0
	for i, v := range u.m {
		if int(v) != i {
			n++
		}
	}
	return fmt.Sprintf("up-case table (%d mappings)", n)
}
