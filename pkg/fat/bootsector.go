package fat

import (
	"encoding/binary"
	"math/bits"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Offsets of the boot sector fields (the BIOS parameter block) common to
// all three FAT types.
const (
	offJump              = 0x00 // 3 bytes: x86 jump over the BPB (EB xx 90 or E9 xx xx)
	offOEMName           = 0x03 // 8 bytes: name of the formatting system
	offBytesPerSector    = 0x0B // uint16: 512, 1024, 2048 or 4096 (up to 32768 read)
	offSectorsPerCluster = 0x0D // uint8: power of two 1..128
	offReservedSectors   = 0x0E // uint16: sectors before the first FAT, boot sector included
	offNumFATs           = 0x10 // uint8: number of FAT copies
	offRootEntries       = 0x11 // uint16: FAT12/16 fixed root directory entries; 0 on FAT32
	offTotalSectors16    = 0x13 // uint16: total sectors if < 65536, else 0
	offMedia             = 0x15 // uint8: media descriptor, 0xF0 or 0xF8..0xFF
	offFATSize16         = 0x16 // uint16: sectors per FAT on FAT12/16; 0 on FAT32
	offSectorsPerTrack   = 0x18 // uint16: CHS geometry for INT 13h
	offHeads             = 0x1A // uint16: CHS geometry for INT 13h
	offHiddenSectors     = 0x1C // uint32: sectors before the volume (partition start)
	offTotalSectors32    = 0x20 // uint32: total sectors if TotalSectors16 is 0
)

// Offsets of the FAT32 extended BPB.
const (
	offFATSize32        = 0x24 // uint32: sectors per FAT
	offExtFlags         = 0x28 // uint16: bit 7 set = only the FAT in bits 0-3 is active
	offFSVersion        = 0x2A // uint16: 0.0
	offRootCluster      = 0x2C // uint32: first cluster of the root directory
	offFSInfoSector     = 0x30 // uint16: sector of FSINFO in the reserved region
	offBackupBootSector = 0x32 // uint16: sector of the boot sector copy, 0 if none
	offReserved32       = 0x34 // 12 bytes: zero
	ext32               = 0x40 // start of the FAT32 extended boot record
	bootCode32          = 0x5A // boot code area on FAT32
)

// Offsets of the extended boot record, relative to its start: 0x24 on
// FAT12/16, 0x40 on FAT32.
const (
	ext16          = 0x24 // start of the FAT12/16 extended boot record
	relDriveNumber = 0x00 // uint8: BIOS drive number (0x80 hard disk, 0x00 floppy)
	relState       = 0x01 // uint8: reserved; bit 0 is the dirty bit for Linux and fsck.fat
	relBootSig     = 0x02 // uint8: 0x29 when the next three fields are valid
	relVolumeID    = 0x03 // uint32: volume serial number
	relVolumeLabel = 0x07 // 11 bytes: label, space padded
	relFSType      = 0x12 // 8 bytes: "FAT12   ", informational only
	bootCode16     = 0x3E // boot code area on FAT12/16
)

const (
	offSignature   = 0x1FE // 0x55 0xAA
	bootSectorSize = 512   // the part of the sector the fields live in
	stateDirty     = 0x01  // bit of State that marks an unclean volume
	// ExtBootSig is the BootSig value that says VolumeID, VolumeLabel and
	// FSType are present.
	ExtBootSig = 0x29
	// extBootSigOld says only VolumeID is present (DOS 4.0 style).
	extBootSigOld = 0x28
)

// noLabel is the label of a volume without one.
const noLabel = "NO NAME    "

// BootSector is the decoded first sector of a FAT volume.
type BootSector struct {
	Jump              [3]byte // x86 jump to the boot code
	OEMName           [8]byte // formatting system's name
	BytesPerSector    uint16  // logical sector size
	SectorsPerCluster uint8   // power of two
	ReservedSectors   uint16  // sectors before the first FAT
	NumFATs           uint8   // FAT copies
	RootEntries       uint16  // fixed root directory entries (FAT12/16)
	TotalSectors16    uint16  // total sectors when below 65536
	Media             uint8   // media descriptor, also in FAT entry 0
	FATSize16         uint16  // sectors per FAT (FAT12/16); 0 marks FAT32
	SectorsPerTrack   uint16  // CHS geometry
	Heads             uint16  // CHS geometry
	HiddenSectors     uint32  // sectors before the volume
	TotalSectors32    uint32  // total sectors when TotalSectors16 is 0

	FATSize32        uint32 // FAT32 only: sectors per FAT
	ExtFlags         uint16 // FAT32 only: FAT mirroring flags
	FSVersion        uint16 // FAT32 only: version, 0
	RootCluster      uint32 // FAT32 only: root directory's first cluster
	FSInfoSector     uint16 // FAT32 only: FSINFO sector number
	BackupBootSector uint16 // FAT32 only: backup boot sector number, 0 if none

	DriveNumber uint8    // BIOS drive number
	State       uint8    // byte after the drive number (0x25 / 0x41): bit 0 is the dirty bit as Linux and fsck.fat use it
	BootSig     uint8    // 0x29 when VolumeID/Label/FSType are present
	VolumeID    uint32   // serial number
	VolumeLabel [11]byte // label in the OEM code page, space padded
	FSType      [8]byte  // "FAT12   ", "FAT16   " or "FAT32   "

	Is32 bool // laid out as FAT32 (extended BPB at 0x40), decided from FATSize16 == 0
	// NoSignature says the 0x55 0xAA at 510 was missing. Such a volume is
	// used all the same, as fsck.fat, mtools and Linux use it (Warnings
	// reports it); Encode writes the signature.
	NoSignature bool
	BootCode    []byte // boot code area up to the signature at 510 (448 or 420 bytes); may be nil
}

// DecodeBootSector decodes the first sector of a volume. b must hold at
// least 512 bytes. Every field is checked with Validate; a missing 0x55 0xAA
// signature at 510 is not an error (NoSignature). Errors are *FormatError wrapping ErrNotFAT
// when the sector is not a FAT boot sector at all, ErrCorrupt otherwise.
func DecodeBootSector(b []byte) (*BootSector, error) {
	if len(b) < bootSectorSize {
		return nil, &FormatError{Structure: "boot sector", Field: "length", Offset: -1, Value: len(b), Msg: "shorter than 512 bytes", Err: ErrNotFAT}
	}
	le := binary.LittleEndian
	bs := &BootSector{
		BytesPerSector:    le.Uint16(b[offBytesPerSector:]),
		SectorsPerCluster: b[offSectorsPerCluster],
		ReservedSectors:   le.Uint16(b[offReservedSectors:]),
		NumFATs:           b[offNumFATs],
		RootEntries:       le.Uint16(b[offRootEntries:]),
		TotalSectors16:    le.Uint16(b[offTotalSectors16:]),
		Media:             b[offMedia],
		FATSize16:         le.Uint16(b[offFATSize16:]),
		SectorsPerTrack:   le.Uint16(b[offSectorsPerTrack:]),
		Heads:             le.Uint16(b[offHeads:]),
		HiddenSectors:     le.Uint32(b[offHiddenSectors:]),
		TotalSectors32:    le.Uint32(b[offTotalSectors32:]),
	}
	bs.NoSignature = b[offSignature] != 0x55 || b[offSignature+1] != 0xAA
	copy(bs.Jump[:], b[offJump:])
	copy(bs.OEMName[:], b[offOEMName:])
	bs.Is32 = bs.FATSize16 == 0
	ext, code := ext16, bootCode16
	if bs.Is32 {
		ext, code = ext32, bootCode32
		bs.FATSize32 = le.Uint32(b[offFATSize32:])
		bs.ExtFlags = le.Uint16(b[offExtFlags:])
		bs.FSVersion = le.Uint16(b[offFSVersion:])
		bs.RootCluster = le.Uint32(b[offRootCluster:])
		bs.FSInfoSector = le.Uint16(b[offFSInfoSector:])
		bs.BackupBootSector = le.Uint16(b[offBackupBootSector:])
	}
	bs.DriveNumber = b[ext+relDriveNumber]
	bs.State = b[ext+relState]
	bs.BootSig = b[ext+relBootSig]
	bs.VolumeID = le.Uint32(b[ext+relVolumeID:])
	copy(bs.VolumeLabel[:], b[ext+relVolumeLabel:])
	copy(bs.FSType[:], b[ext+relFSType:])
	bs.BootCode = append([]byte(nil), b[code:offSignature]...)
	if err := bs.Validate(); err != nil {
		return nil, err
	}
	return bs, nil
}

// Encode writes the boot sector into b, which must hold at least 512 bytes
// (bytes past 512 are left alone). A zero Jump is replaced by the usual
// jump to the boot code; a nil BootCode by a stub that asks the BIOS to try
// the next boot device.
func (bs *BootSector) Encode(b []byte) {
	_ = b[bootSectorSize-1] // one bounds check; a short buffer is the caller's bug
	clear(b[:bootSectorSize])
	le := binary.LittleEndian
	ext, code := ext16, bootCode16
	if bs.Is32 {
		ext, code = ext32, bootCode32
	}
	jump := bs.Jump
	if jump == [3]byte{} {
		jump = [3]byte{0xEB, byte(code - 2), 0x90}
	}
	copy(b[offJump:], jump[:])
	copy(b[offOEMName:], bs.OEMName[:])
	le.PutUint16(b[offBytesPerSector:], bs.BytesPerSector)
	b[offSectorsPerCluster] = bs.SectorsPerCluster
	le.PutUint16(b[offReservedSectors:], bs.ReservedSectors)
	b[offNumFATs] = bs.NumFATs
	le.PutUint16(b[offRootEntries:], bs.RootEntries)
	le.PutUint16(b[offTotalSectors16:], bs.TotalSectors16)
	b[offMedia] = bs.Media
	le.PutUint16(b[offFATSize16:], bs.FATSize16)
	le.PutUint16(b[offSectorsPerTrack:], bs.SectorsPerTrack)
	le.PutUint16(b[offHeads:], bs.Heads)
	le.PutUint32(b[offHiddenSectors:], bs.HiddenSectors)
	le.PutUint32(b[offTotalSectors32:], bs.TotalSectors32)
	if bs.Is32 {
		le.PutUint32(b[offFATSize32:], bs.FATSize32)
		le.PutUint16(b[offExtFlags:], bs.ExtFlags)
		le.PutUint16(b[offFSVersion:], bs.FSVersion)
		le.PutUint32(b[offRootCluster:], bs.RootCluster)
		le.PutUint16(b[offFSInfoSector:], bs.FSInfoSector)
		le.PutUint16(b[offBackupBootSector:], bs.BackupBootSector)
	}
	b[ext+relDriveNumber] = bs.DriveNumber
	b[ext+relState] = bs.State
	b[ext+relBootSig] = bs.BootSig
	le.PutUint32(b[ext+relVolumeID:], bs.VolumeID)
	copy(b[ext+relVolumeLabel:], bs.VolumeLabel[:])
	copy(b[ext+relFSType:], bs.FSType[:])
	if bs.BootCode != nil {
		copy(b[code:offSignature], bs.BootCode)
	} else {
		copy(b[code:], stubBootCode)
	}
	b[offSignature], b[offSignature+1] = 0x55, 0xAA
}

// EncodeOver is Encode for a sector that holds a boot sector already (as
// read from the disk): the bytes BootSector does not model (the FAT32
// BPB's reserved 12 bytes at 0x34, and the jump when Jump is zero) keep
// their values, so that rewriting a field changes nothing else.
func (bs *BootSector) EncodeOver(b []byte) {
	var keep [bootSectorSize]byte
	copy(keep[:], b)
	bs.Encode(b)
	if bs.Is32 {
		copy(b[offReserved32:ext32], keep[offReserved32:ext32])
	}
	if bs.Jump == [3]byte{} {
		copy(b[offJump:offJump+3], keep[offJump:offJump+3])
	}
}

// stubBootCode is what a volume without boot code runs: INT 18h (boot
// failed, try the next device), then halt forever.
var stubBootCode = []byte{
	0xCD, 0x18, // int 18h
	0xF4,       // hlt
	0xEB, 0xFD, // jmp back to hlt
}

// Dirty reports whether the dirty bit is set: the volume was not closed
// cleanly by its last writer.
func (bs *BootSector) Dirty() bool { return bs.State&stateDirty != 0 }

// SetDirty sets or clears the dirty bit.
func (bs *BootSector) SetDirty(d bool) { fsutil.SetFlag(&bs.State, stateDirty, d) }

// Label returns the volume label from the boot sector with trailing spaces
// removed, decoded from the OEM code page (850 unless SetCodePage chose
// another, as mkfs.fat writes it). It is "" when the sector carries no label
// or the label is "NO NAME".
func (bs *BootSector) Label() string {
	if bs.BootSig != ExtBootSig || string(bs.VolumeLabel[:]) == noLabel {
		return ""
	}
	return decodeOEMLabel(bs.VolumeLabel[:])
}

// TotalSectors is TotalSectors16 if it is set, else TotalSectors32.
func (bs *BootSector) TotalSectors() uint32 {
	if bs.TotalSectors16 != 0 {
		return uint32(bs.TotalSectors16)
	}
	return bs.TotalSectors32
}

// FATSectors is the size of one FAT in sectors: FATSize16 if it is set,
// else FATSize32.
func (bs *BootSector) FATSectors() uint32 {
	if bs.FATSize16 != 0 {
		return uint32(bs.FATSize16)
	}
	return bs.FATSize32
}

func isPow2(n uint32) bool { return n != 0 && bits.OnesCount32(n) == 1 }
