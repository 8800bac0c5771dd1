package fat

import "encoding/binary"

// bootLoad is where the BIOS loads a boot sector (0000:7C00).
const bootLoad = 0x7C00

// Where mkfs.fat --mbr's "fake" partition table lies in sector 0: a volume
// without a table that systems still see as a partitioned disk.
const (
	mbrDiskID  = 440 // uint32 disk signature, then 2 zero bytes
	mbrEntry   = 446 // the first of four 16-byte entries
	mbrEntries = 4 * 16
)

// messageStub is real-mode x86 code that prints the NUL-terminated text
// following it through the BIOS (INT 10h teletype), waits for a key
// (INT 16h) and asks the BIOS to boot again (INT 19h). The text's address
// is patched in at msgPtr: code start + len(messageStub) + load address.
var messageStub = []byte{
	0x31, 0xC0, // xor ax, ax
	0x8E, 0xD8, // mov ds, ax
	0xBE, 0x00, 0x00, // mov si, text (patched)
	0xFC,       // cld
	0xAC,       // next: lodsb
	0x84, 0xC0, // test al, al
	0x74, 0x09, // jz done
	0xB4, 0x0E, // mov ah, 0Eh
	0xBB, 0x07, 0x00, // mov bx, 0007h
	0xCD, 0x10, // int 10h
	0xEB, 0xF2, // jmp next
	0x30, 0xE4, // done: xor ah, ah
	0xCD, 0x16, // int 16h
	0xCD, 0x19, // int 19h
	0xEB, 0xFE, // jmp $
}

// msgPtr is the offset of the text's address in messageStub.
const msgPtr = 5

// bootCodeStart is the offset of the boot code area in a FAT12/16 or
// FAT32 boot sector.
func bootCodeStart(is32 bool) int {
	if is32 {
		return bootCode32
	}
	return bootCode16
}

// MaxBootMessage is the longest boot message (after line ends are CR LF and
// tabs expanded) that fits a boot sector's code area: 417 bytes on FAT12
// and FAT16, 389 on FAT32, less the 70 bytes of a fake MBR (FakeMBR).
func MaxBootMessage(is32, fakeMBR bool) int {
	end := offSignature
	if fakeMBR {
		end = mbrDiskID
	}
	return end - bootCodeStart(is32) - len(messageStub) - 1
}

// messageBootCode is the boot code that prints msg (see messageStub).
func messageBootCode(msg []byte, is32, fakeMBR bool) ([]byte, error) {
	if max := MaxBootMessage(is32, fakeMBR); len(msg) > max {
		return nil, paramErrorf("the boot message has %d bytes: at most %d fit this boot sector", len(msg), max)
	}
	for _, c := range msg {
		if c == 0 {
			return nil, paramErrorf("the boot message holds a NUL byte, which would end it")
		}
	}
	start := bootCodeStart(is32)
	code := make([]byte, offSignature-start)
	n := copy(code, messageStub)
	binary.LittleEndian.PutUint16(code[msgPtr:], uint16(bootLoad+start+n))
	copy(code[n:], msg)
	return code, nil
}

// fakeMBR writes mkfs.fat --mbr's table into a boot sector's code area
// (code, as BootSector.BootCode holds it): the disk signature, and one
// active partition of type typ from sector 0 over all sectors, with CHS
// addresses from the boot sector's geometry.
func fakeMBR(code []byte, bs *BootSector, diskID uint32, typ byte, sectors int64) {
	base := bootCodeStart(bs.Is32)
	b := code[mbrDiskID-base:]
	binary.LittleEndian.PutUint32(b, diskID)
	b[4], b[5] = 0, 0
	e := code[mbrEntry-base : mbrEntry-base+mbrEntries]
	clear(e)
	e[0] = 0x80
	copy(e[1:4], chs(0, bs))
	e[4] = typ
	copy(e[5:8], chs(sectors-1, bs))
	binary.LittleEndian.PutUint32(e[8:], 0)
	binary.LittleEndian.PutUint32(e[12:], uint32(min(sectors, 0xFFFFFFFF)))
}

// chs is the 3-byte CHS address of sector lba with the boot sector's
// geometry; past what CHS can address it is the usual 1023/254/63.
func chs(lba int64, bs *BootSector) []byte {
	heads, spt := int64(bs.Heads), int64(bs.SectorsPerTrack)
	if heads == 0 || spt == 0 || lba/(heads*spt) > 1023 {
		return []byte{0xFE, 0xFF, 0xFF}
	}
	c, h, s := lba/(heads*spt), lba/spt%heads, lba%spt+1
	return []byte{byte(h), byte(s) | byte(c>>8)<<6, byte(c)}
}

// bootCode builds the boot code area Plan asked for: a boot message, a
// fake MBR, or both (nil when neither: Encode writes its stub).
func (p FormatParams) bootCode(bs *BootSector, l *Layout) ([]byte, error) {
	if p.BootMessage == nil && !p.FakeMBR {
		return nil, nil
	}
	var code []byte
	if p.BootMessage != nil {
		var err error
		if code, err = messageBootCode(p.BootMessage, bs.Is32, p.FakeMBR); err != nil {
			return nil, err
		}
	} else {
		code = make([]byte, offSignature-bootCodeStart(bs.Is32))
		copy(code, stubBootCode)
	}
	if p.FakeMBR {
		sectors := l.TotalSize / l.SectorSize
		if l.SectorSize != 512 {
			return nil, paramErrorf("a fake MBR counts 512-byte sectors; this volume has %d-byte sectors", l.SectorSize)
		}
		fakeMBR(code, bs, p.DiskID, MBRType(l.Type, sectors, sectors), sectors)
	}
	return code, nil
}
