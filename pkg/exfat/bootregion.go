package exfat

import (
	"encoding/binary"
	"fmt"
)

// The main boot region is the volume's first 12 sectors, the backup boot
// region the next 12 (exFAT specification 3.1 to 3.4):
//
//	sector 0     boot sector
//	sectors 1-8  extended boot sectors (boot code; each ends in AA550000)
//	sector 9     OEM parameters
//	sector 10    reserved
//	sector 11    boot checksum: one 32-bit checksum of sectors 0-10,
//	             repeated to fill the sector
const (
	bootRegionSectors = 12
	backupBootSector  = 12 // first sector of the backup boot region
	checksumSector    = 11
)

// BootChecksum is the boot checksum of a boot region's first 11 sectors
// (region holds at least 11 sectors of sectorSize bytes). The VolumeFlags
// and PercentInUse bytes of the boot sector are skipped, so that changing
// them needs no new checksum.
func BootChecksum(region []byte, sectorSize int) uint32 {
	var sum uint32
	for i, b := range region[:checksumSector*sectorSize] {
		if i == offVolumeFlags || i == offVolumeFlags+1 || i == offPercentInUse {
			continue
		}
		sum = (sum>>1 | sum<<31) + uint32(b)
	}
	return sum
}

// EncodeBootRegion builds a boot region of 12 sectors: bs encoded into
// sector 0 (boot code zeroed), extended boot sectors carrying only their
// signature, zeroed OEM parameters and reserved sectors, and the checksum
// sector.
func EncodeBootRegion(bs *BootSector) []byte {
	ss := int(bs.SectorSize())
	r := make([]byte, bootRegionSectors*ss)
	bs.Encode(r)
	for s := 1; s <= 8; s++ {
		binary.LittleEndian.PutUint32(r[(s+1)*ss-4:], extBootSignature)
	}
	sealBootRegion(r, ss)
	return r
}

// sealBootRegion fills the checksum sector of region from its first 11
// sectors.
func sealBootRegion(region []byte, ss int) {
	sum := BootChecksum(region, ss)
	cs := region[checksumSector*ss : (checksumSector+1)*ss]
	for i := 0; i < ss; i += 4 {
		binary.LittleEndian.PutUint32(cs[i:], sum)
	}
}

// CheckBootRegion verifies a boot region of 12 sectors: the checksum
// sector repeats the checksum of the first 11, and each extended boot
// sector ends in its signature (the latter only as a warning, which
// mkfs.exfat does not check either). off is the region's byte offset on
// the volume, for the error.
func CheckBootRegion(region []byte, ss int, off int64) (warnings []string, err error) {
	if len(region) < bootRegionSectors*ss {
		return nil, fmt.Errorf("%w: boot region of %d bytes is shorter than 12 sectors of %d", ErrCorrupt, len(region), ss)
	}
	sum := BootChecksum(region, ss)
	cs := region[checksumSector*ss : (checksumSector+1)*ss]
	for i := 0; i < ss; i += 4 {
		if got := binary.LittleEndian.Uint32(cs[i:]); got != sum {
			return nil, corruptf("boot region", "boot checksum", off+int64(checksumSector*ss+i), fmt.Sprintf("%#08x", got),
				"does not match the checksum %#08x of sectors 0-10", sum)
		}
	}
	for s := 1; s <= 8; s++ {
		if got := binary.LittleEndian.Uint32(region[(s+1)*ss-4:]); got != extBootSignature {
			warnings = append(warnings, fmt.Sprintf("extended boot sector %d at byte %d lacks its signature AA550000", s, off+int64(s*ss)))
		}
	}
	return warnings, nil
}
