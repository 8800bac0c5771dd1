package exfat

import (
	"encoding/binary"
	"fmt"
)

// EntrySize is the size of one directory entry.
const EntrySize = 32

// Entry types (exFAT specification 6.2 and 7). The type byte holds a type
// code (bits 0-4), TypeImportance (bit 5: benign), TypeCategory (bit 6:
// secondary) and InUse (bit 7). 0x00 ends the directory; an entry with
// InUse clear (0x01-0x7F) is unused.
const (
	TypeEndOfDirectory = 0x00
	TypeBitmap         = 0x81 // allocation bitmap (critical primary)
	TypeUpcase         = 0x82 // up-case table (critical primary)
	TypeLabel          = 0x83 // volume label (critical primary)
	TypeFile           = 0x85 // file or directory (critical primary)
	TypeGUID           = 0xA0 // volume GUID (benign primary)
	TypePadding        = 0xA1 // TexFAT padding (benign primary)
	TypeStream         = 0xC0 // stream extension (critical secondary)
	TypeName           = 0xC1 // file name (critical secondary)
	TypeVendorExt      = 0xE0 // vendor extension (benign secondary)
	TypeVendorAlloc    = 0xE1 // vendor allocation (benign secondary)

	typeInUse     = 0x80
	typeSecondary = 0x40
	typeBenign    = 0x20
)

// deletedType is the type byte of an entry of type t once deleted: InUse
// cleared. An entry whose type was already 0x00 or 0x80 (a damaged set
// may hold one) becomes an unused file entry instead of 0x00, which would
// end the directory there and hide every member after it.
func deletedType(t byte) byte {
	if t &^= typeInUse; t == TypeEndOfDirectory {
		return TypeFile &^ typeInUse
	}
	return t
}

// Common entry fields.
const (
	offEntryType      = 0
	offSecondaryCount = 1  // primary entries: secondary entries that follow
	offSetChecksum    = 2  // primary entries: 2 bytes
	offFirstCluster   = 20 // entries with an allocation: 4 bytes
	offDataLength     = 24 // entries with an allocation: 8 bytes
)

// File directory entry (7.4).
const (
	offFileAttributes = 4
	offCreateTime     = 8
	offModifyTime     = 12
	offAccessTime     = 16
	offCreate10ms     = 20
	offModify10ms     = 21
	offCreateUTC      = 22
	offModifyUTC      = 23
	offAccessUTC      = 24
)

// Stream extension entry (7.6).
const (
	offStreamFlags   = 1
	offNameLength    = 3
	offNameHash      = 4
	offValidLength   = 8
	streamAllocOK    = 0x01 // AllocationPossible
	streamNoFATChain = 0x02 // NoFatChain: the clusters are one contiguous run
)

// File name entry (7.7): 15 UTF-16 code units from byte 2.
const (
	offNameChars  = 2
	charsPerEntry = 15
	// MaxNameLength is the longest name in UTF-16 code units.
	MaxNameLength = 255
)

// Allocation bitmap (7.1), up-case table (7.2), volume label (7.3) and
// volume GUID (7.5) entries.
const (
	offBitmapFlags    = 1
	offUpcaseChecksum = 4
	offLabelLength    = 1
	offLabelChars     = 2
	// MaxLabelLength is the longest volume label in UTF-16 code units.
	MaxLabelLength = 11
	offGUIDFlags   = 4
	offGUID        = 6
)

// FileEntry is the primary entry of a file or directory's entry set.
type FileEntry struct {
	SecondaryCount uint8
	SetChecksum    uint16
	Attr           Attr
	Create         Timestamp
	Modify         Timestamp
	Access         Timestamp // Ms10 is always 0
}

// DecodeFileEntry reads a file directory entry (b[0] is 0x85, or 0x05 if
// deleted).
func DecodeFileEntry(b []byte) FileEntry {
	le := binary.LittleEndian
	return FileEntry{
		SecondaryCount: b[offSecondaryCount],
		SetChecksum:    le.Uint16(b[offSetChecksum:]),
		Attr:           Attr(le.Uint16(b[offFileAttributes:])),
		Create:         Timestamp{le.Uint32(b[offCreateTime:]), b[offCreate10ms], b[offCreateUTC]},
		Modify:         Timestamp{le.Uint32(b[offModifyTime:]), b[offModify10ms], b[offModifyUTC]},
		Access:         Timestamp{Raw: le.Uint32(b[offAccessTime:]), UTCOffset: b[offAccessUTC]},
	}
}

// Encode writes the entry into b[:32], reserved bytes zeroed.
func (e *FileEntry) Encode(b []byte) {
	le := binary.LittleEndian
	clear(b[:EntrySize])
	b[offEntryType] = TypeFile
	b[offSecondaryCount] = e.SecondaryCount
	le.PutUint16(b[offSetChecksum:], e.SetChecksum)
	le.PutUint16(b[offFileAttributes:], uint16(e.Attr))
	le.PutUint32(b[offCreateTime:], e.Create.Raw)
	le.PutUint32(b[offModifyTime:], e.Modify.Raw)
	le.PutUint32(b[offAccessTime:], e.Access.Raw)
	b[offCreate10ms] = e.Create.Ms10
	b[offModify10ms] = e.Modify.Ms10
	b[offCreateUTC] = e.Create.UTCOffset
	b[offModifyUTC] = e.Modify.UTCOffset
	b[offAccessUTC] = e.Access.UTCOffset
}

// IsDir reports whether the entry is a directory.
func (e *FileEntry) IsDir() bool { return e.Attr&AttrDirectory != 0 }

// StreamEntry is the stream extension entry: where the data is and how long.
type StreamEntry struct {
	Flags           uint8 // streamAllocOK, streamNoFATChain
	NameLength      uint8
	NameHash        uint16
	FirstCluster    Cluster // before the lengths: 24 bytes, not 32, kept per name
	ValidDataLength uint64
	DataLength      uint64
}

// DecodeStreamEntry reads a stream extension entry.
func DecodeStreamEntry(b []byte) StreamEntry {
	le := binary.LittleEndian
	return StreamEntry{
		Flags:           b[offStreamFlags],
		NameLength:      b[offNameLength],
		NameHash:        le.Uint16(b[offNameHash:]),
		ValidDataLength: le.Uint64(b[offValidLength:]),
		FirstCluster:    Cluster(le.Uint32(b[offFirstCluster:])),
		DataLength:      le.Uint64(b[offDataLength:]),
	}
}

// Encode writes the entry into b[:32], reserved bytes zeroed.
func (e *StreamEntry) Encode(b []byte) {
	le := binary.LittleEndian
	clear(b[:EntrySize])
	b[offEntryType] = TypeStream
	b[offStreamFlags] = e.Flags
	b[offNameLength] = e.NameLength
	le.PutUint16(b[offNameHash:], e.NameHash)
	le.PutUint64(b[offValidLength:], e.ValidDataLength)
	le.PutUint32(b[offFirstCluster:], uint32(e.FirstCluster))
	le.PutUint64(b[offDataLength:], e.DataLength)
}

// NoFATChain reports whether the data is one contiguous run of clusters
// that the FAT does not describe.
func (e *StreamEntry) NoFATChain() bool { return e.Flags&streamNoFATChain != 0 }

// encodeNameEntry writes a file name entry holding chars (at most 15; the
// rest is zero-filled).
func encodeNameEntry(b []byte, chars []uint16) {
	clear(b[:EntrySize])
	b[offEntryType] = TypeName
	for i, c := range chars {
		binary.LittleEndian.PutUint16(b[offNameChars+2*i:], c)
	}
}

// decodeNameChars appends the 15 code units of a file name entry to dst.
func decodeNameChars(dst []uint16, b []byte) []uint16 {
	for i := range charsPerEntry {
		dst = append(dst, binary.LittleEndian.Uint16(b[offNameChars+2*i:]))
	}
	return dst
}

// AllocEntry is an allocation bitmap or up-case table entry: a system file
// in the root directory, chained in the FAT.
type AllocEntry struct {
	Type         uint8
	Flags        uint8  // bitmap: bit 0 names the FAT it belongs to (TexFAT)
	Checksum     uint32 // up-case table: TableChecksum
	FirstCluster Cluster
	DataLength   uint64
}

// DecodeAllocEntry reads an allocation bitmap or up-case table entry.
func DecodeAllocEntry(b []byte) AllocEntry {
	le := binary.LittleEndian
	e := AllocEntry{Type: b[offEntryType], FirstCluster: Cluster(le.Uint32(b[offFirstCluster:])), DataLength: le.Uint64(b[offDataLength:])}
	switch e.Type {
	case TypeBitmap:
		e.Flags = b[offBitmapFlags]
	case TypeUpcase:
		e.Checksum = le.Uint32(b[offUpcaseChecksum:])
	}
	return e
}

// Encode writes the entry into b[:32], reserved bytes zeroed.
func (e *AllocEntry) Encode(b []byte) {
	le := binary.LittleEndian
	clear(b[:EntrySize])
	b[offEntryType] = e.Type
	switch e.Type {
	case TypeBitmap:
		b[offBitmapFlags] = e.Flags
	case TypeUpcase:
		le.PutUint32(b[offUpcaseChecksum:], e.Checksum)
	}
	le.PutUint32(b[offFirstCluster:], uint32(e.FirstCluster))
	le.PutUint64(b[offDataLength:], e.DataLength)
}

// decodeLabel reads a volume label entry's code units. A character count
// above 11 is an error naming the entry's byte offset off.
func decodeLabel(b []byte, off int64) ([]uint16, error) {
	n := int(b[offLabelLength])
	if n > MaxLabelLength {
		return nil, corruptf("volume label entry", "character count", off+offLabelLength, n, "is above %d", MaxLabelLength)
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[offLabelChars+2*i:])
	}
	return out, nil
}

// encodeLabel writes a volume label entry (at most 11 code units).
func encodeLabel(b []byte, label []uint16) {
	clear(b[:EntrySize])
	b[offEntryType] = TypeLabel
	b[offLabelLength] = uint8(len(label))
	for i, c := range label {
		binary.LittleEndian.PutUint16(b[offLabelChars+2*i:], c)
	}
}

// GUIDEntry is the volume GUID entry: a benign primary entry with no
// secondaries.
type GUIDEntry struct {
	SetChecksum uint16
	Flags       uint16
	GUID        [16]byte
}

// DecodeGUIDEntry reads a volume GUID entry.
func DecodeGUIDEntry(b []byte) GUIDEntry {
	e := GUIDEntry{SetChecksum: binary.LittleEndian.Uint16(b[offSetChecksum:]), Flags: binary.LittleEndian.Uint16(b[offGUIDFlags:])}
	copy(e.GUID[:], b[offGUID:offGUID+16])
	return e
}

// Encode writes the entry into b[:32] with its set checksum.
func (e *GUIDEntry) Encode(b []byte) {
	clear(b[:EntrySize])
	b[offEntryType] = TypeGUID
	binary.LittleEndian.PutUint16(b[offGUIDFlags:], e.Flags)
	copy(b[offGUID:], e.GUID[:])
	e.SetChecksum = SetChecksum(b[:EntrySize])
	binary.LittleEndian.PutUint16(b[offSetChecksum:], e.SetChecksum)
}

// FormatGUID writes a GUID as Windows shows one: its first three fields
// little-endian.
func FormatGUID(g [16]byte) string {
	return fmt.Sprintf("%08X-%04X-%04X-%X-%X",
		binary.LittleEndian.Uint32(g[0:]), binary.LittleEndian.Uint16(g[4:]), binary.LittleEndian.Uint16(g[6:]), g[8:10], g[10:])
}

// SetChecksum is the SetChecksum of an entry set (exFAT specification
// 6.3.3): a 16-bit rotate-and-add over every byte of its entries but the
// checksum field itself (bytes 2 and 3 of the primary entry).
func SetChecksum(set []byte) uint16 {
	var sum uint16
	for i, b := range set {
		if i == offSetChecksum || i == offSetChecksum+1 {
			continue
		}
		sum = (sum>>1 | sum<<15) + uint16(b)
	}
	return sum
}
