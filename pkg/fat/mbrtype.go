package fat

// chsSectors is how far CHS addressing reaches (1024 cylinders of 255
// heads of 63 sectors, 16,450,560 sectors): a partition that ends past it
// gets the LBA variant of its type.
const chsSectors = 1024 * 255 * 63

// MBRType is the MBR partition type for a FAT volume of type t in a
// partition of size sectors that ends at sector end (exclusive, counted
// from the start of the disk), as the SD Association's specification gives
// them: FAT12 0x01; FAT16 0x04 under 65,536 sectors, else 0x06, or 0x0E
// when the partition ends past the CHS limit; FAT32 0x0B, or 0x0C when it
// ends past the CHS limit. Every MBR that ftools writes takes its type
// from here.
func MBRType(t Type, size, end int64) byte {
	switch {
	case t == FAT12:
		return 0x01
	case t == FAT16 && end > chsSectors:
		return 0x0E
	case t == FAT16 && size < 65536:
		return 0x04
	case t == FAT16:
		return 0x06
	case end > chsSectors:
		return 0x0C
	default:
		return 0x0B
	}
}
