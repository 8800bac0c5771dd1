package fat

import (
	"encoding/binary"
	"time"

	"github.com/ftools/ftools/pkg/internal/fsattr"
)

// DirEntrySize is the size of one directory slot: a short entry or an LFN slot.
const DirEntrySize = 32

// Byte offsets of the fields of a short directory entry.
const (
	direntName        = 0  // [11]byte DIR_Name: 8.3 name, space padded
	direntAttr        = 11 // uint8 DIR_Attr
	direntNTRes       = 12 // uint8 DIR_NTRes: lower-case flags
	direntCreateTenth = 13 // uint8 DIR_CrtTimeTenth: 10 ms units 0..199
	direntCreateTime  = 14 // uint16 DIR_CrtTime
	direntCreateDate  = 16 // uint16 DIR_CrtDate
	direntAccessDate  = 18 // uint16 DIR_LstAccDate
	direntClusterHigh = 20 // uint16 DIR_FstClusHI on FAT32; on FAT12/16 OS/2's extended-attribute handle, not part of the cluster
	direntModTime     = 22 // uint16 DIR_WrtTime
	direntModDate     = 24 // uint16 DIR_WrtDate
	direntClusterLow  = 26 // uint16 DIR_FstClusLO
	direntSize        = 28 // uint32 DIR_FileSize
	shortNameLen      = 11
	shortBaseLen      = 8
	shortExtLen       = 3
	attrLongNameMask  = 0x3F
)

// Attr holds the attribute bits of a directory entry (DIR_Attr).
type Attr uint8

// Attribute bits: fsattr's, as a byte. AttrLongName is the combination
// that marks an LFN slot.
const (
	AttrReadOnly  = Attr(fsattr.ReadOnly)
	AttrHidden    = Attr(fsattr.Hidden)
	AttrSystem    = Attr(fsattr.System)
	AttrVolumeID  = Attr(fsattr.VolumeID)
	AttrDirectory = Attr(fsattr.Directory)
	AttrArchive   = Attr(fsattr.Archive)
	AttrLongName  = AttrReadOnly | AttrHidden | AttrSystem | AttrVolumeID
)

// DIR_NTRes flags: Windows NT and Linux ("shortname=mixed") store a name whose
// base and/or extension is all lower case as an upper-case short name plus
// these flags, without LFN slots.
const (
	NTLowerBase = 0x08
	NTLowerExt  = 0x10
)

// Values of the first name byte with a special meaning.
const (
	SlotEnd     = 0x00 // this slot and all after it are free
	SlotDeleted = 0xE5 // this slot is free (deleted)
	SlotKanjiE5 = 0x05 // the name really starts with byte 0xE5
)

// DirEntry is a decoded 32-byte short directory entry.
type DirEntry struct {
	Name        [11]byte // on-disk 8.3 name (see ShortName)
	Attr        Attr
	NTRes       uint8 // NTLowerBase / NTLowerExt
	CreateTenth uint8 // 10 ms units 0..199 added to CreateTime
	CreateTime  uint16
	CreateDate  uint16
	AccessDate  uint16
	Cluster     Cluster // FstClusHI<<16 | FstClusLO (FAT32), FstClusLO alone (FAT12/16: see ClusterFor)
	ModTime     uint16
	ModDate     uint16
	Size        uint32
}

// DecodeDirEntry decodes the first 32 bytes of b as a FAT32 entry: the
// cluster number takes bytes 20-21 as its high word. For FAT12/16 call
// ClusterFor afterwards (ParseDir does). A shorter b (a truncated slot) is
// decoded as if zero-padded, so it never panics.
func DecodeDirEntry(b []byte) DirEntry {
	if len(b) < DirEntrySize {
		var pad [DirEntrySize]byte
		copy(pad[:], b)
		b = pad[:]
	}
	le := binary.LittleEndian
	var e DirEntry
	copy(e.Name[:], b[direntName:direntName+shortNameLen])
	e.Attr = Attr(b[direntAttr])
	e.NTRes = b[direntNTRes]
	e.CreateTenth = b[direntCreateTenth]
	e.CreateTime = le.Uint16(b[direntCreateTime:])
	e.CreateDate = le.Uint16(b[direntCreateDate:])
	e.AccessDate = le.Uint16(b[direntAccessDate:])
	e.Cluster = Cluster(uint32(le.Uint16(b[direntClusterHigh:]))<<16 | uint32(le.Uint16(b[direntClusterLow:])))
	e.ModTime = le.Uint16(b[direntModTime:])
	e.ModDate = le.Uint16(b[direntModDate:])
	e.Size = le.Uint32(b[direntSize:])
	return e
}

// ClusterFor drops the high word of the cluster number on FAT12 and FAT16.
// There bytes 20-21 are not part of it: OS/2 keeps a handle of the file's
// extended attributes in them, and fsck.fat, mtools and Linux ignore them.
// Encode then writes them as zero, as Linux does whenever it writes an entry.
func (e *DirEntry) ClusterFor(t Type) {
	if t != FAT32 {
		e.Cluster &= 0xFFFF
	}
}

// Encode writes e into the first 32 bytes of b. It panics if len(b) < 32, a
// programming error like an out-of-range slice index.
func (e *DirEntry) Encode(b []byte) {
	_ = b[DirEntrySize-1]
	le := binary.LittleEndian
	copy(b[direntName:direntName+shortNameLen], e.Name[:])
	b[direntAttr] = byte(e.Attr)
	b[direntNTRes] = e.NTRes
	b[direntCreateTenth] = e.CreateTenth
	le.PutUint16(b[direntCreateTime:], e.CreateTime)
	le.PutUint16(b[direntCreateDate:], e.CreateDate)
	le.PutUint16(b[direntAccessDate:], e.AccessDate)
	le.PutUint16(b[direntClusterHigh:], uint16(uint32(e.Cluster)>>16))
	le.PutUint16(b[direntModTime:], e.ModTime)
	le.PutUint16(b[direntModDate:], e.ModDate)
	le.PutUint16(b[direntClusterLow:], uint16(e.Cluster))
	le.PutUint32(b[direntSize:], e.Size)
}

// IsLongName reports whether the slot is an LFN slot (attributes 0x0F in the
// low six bits).
func (e *DirEntry) IsLongName() bool { return e.Attr&attrLongNameMask == AttrLongName }

// IsDir reports whether the entry is a directory (and not an LFN slot).
func (e *DirEntry) IsDir() bool { return !e.IsLongName() && e.Attr&AttrDirectory != 0 }

// IsLabel reports whether the entry is the volume label (and not an LFN slot).
func (e *DirEntry) IsLabel() bool { return !e.IsLongName() && e.Attr&AttrVolumeID != 0 }

// SetTimes sets the creation (with tenths), modification and access date
// fields from the given times, converted with ToDOSTime.
func (e *DirEntry) SetTimes(create, mod, access time.Time) {
	e.CreateDate, e.CreateTime, e.CreateTenth = ToDOSTime(create)
	e.ModDate, e.ModTime, _ = ToDOSTime(mod)
	e.AccessDate, _, _ = ToDOSTime(access)
}

// ModTimeValue returns the modification time (2-second resolution).
func (e *DirEntry) ModTimeValue() time.Time { return FromDOSTime(e.ModDate, e.ModTime, 0) }

// CreateTimeValue returns the creation time (10 ms resolution).
func (e *DirEntry) CreateTimeValue() time.Time {
	return FromDOSTime(e.CreateDate, e.CreateTime, e.CreateTenth)
}

// AccessTimeValue returns the last access date at midnight local time.
func (e *DirEntry) AccessTimeValue() time.Time { return FromDOSTime(e.AccessDate, 0, 0) }

// ShortNameOf returns the entry's name as a ShortName.
func (e *DirEntry) ShortNameOf() ShortName { return ShortName(e.Name) }
