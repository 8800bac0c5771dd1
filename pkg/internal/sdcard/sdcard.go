// Package sdcard holds what pkg/fat's and pkg/exfat's SD layouts share: an
// SD card's sector size, and where the SD specification (Part 2, File
// System Specification) puts a card's one partition. How the file system
// is laid out inside it differs by codec (Annex C for FAT12/16/32, C.5 for
// exFAT) and stays in each.
package sdcard

// Sector is the sector size of every SD card, in bytes.
const Sector = 512

// Card is a card's partition by the SD specification: the table row it
// falls in (cluster size and boundary unit, the card's erase block) and
// the MBR partition the layout puts on it.
type Card struct {
	ClusterSize    int64 // bytes
	BU             int64 // bytes
	PartitionStart int64 // sectors (the MBR's LBA)
	PartitionSize  int64 // sectors
	MBRType        byte
}

// NewCard is the card of totalSectors whose partition starts at sector
// start and runs to the card's end.
func NewCard(cluster, bu, start, totalSectors int64, mbrType byte) Card {
	return Card{ClusterSize: cluster, BU: bu, PartitionStart: start, PartitionSize: totalSectors - start, MBRType: mbrType}
}

// PartitionBytes is the partition's size in bytes: the Size of the
// volume that formats it.
func (c Card) PartitionBytes() int64 { return c.PartitionSize * Sector }
