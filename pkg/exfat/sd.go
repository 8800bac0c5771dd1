package exfat

import (
	"fmt"

	"github.com/ftools/ftools/pkg/internal/sdcard"
)

// The SD Association's File System Specification (SD Specifications Part
// 2, version 3.00, 2009, the version that added SDXC) formats cards of
// more than 32 GB up to 2 TB, SDXC cards, as exFAT, laid out so that the
// file system's regions start on the card's erase-block boundaries
// (boundary units, BU), which is what cards are fastest and last longest
// with (its section 5.1, Volume Structure, and Annex C.5, for exFAT). Its
// table gives, by capacity, the cluster size and the BU; these rows are
// the ones exfatprogs' mkfs.exfat(8) reprints from that version:
//
//	capacity             cluster   boundary unit
//	> 32 GiB, <= 128 GiB 128 KiB   16 MiB
//	<= 512 GiB           256 KiB   32 MiB
//	<= 2 TiB             512 KiB   64 MiB
//
// and the layout is (as exfatprogs issue #51 and pull request #149 quote
// the specification, and as the SD Card Formatter writes it, which the
// sdFormatLinux project reproduces):
//
//   - PartitionOffset = 1 BU: the partition starts one BU into the card
//     (MBR type 0x07) and runs to the card's end;
//   - FatOffset = BU/2 and FatLength = BU/2: the FAT fills the second half
//     of the partition's first BU, after the boot regions;
//   - ClusterHeapOffset = 1 BU: the heap, and so every cluster, starts on
//     a BU boundary (the allocation bitmap first, then the up-case table
//     and the root directory);
//   - the clusters fill the rest of the partition.
type sdRow struct {
	maxBytes int64
	cluster  int64
	bu       int64
}

var sdRows = []sdRow{
	{128 << 30, 128 << 10, 16 << 20},
	{512 << 30, 256 << 10, 32 << 20},
	{2 << 40, 512 << 10, 64 << 20},
}

// sdMinBytes is where SDXC begins: cards of 32 GiB and less are SDHC (or
// SDSC), which the specification formats FAT (see fat.PlanSD).
const sdMinBytes = 32 << 30

// SDLayout is an SDXC card's layout by the SD specification: the card's
// partition (ClusterSize, BU, PartitionStart, PartitionSize, MBRType, as
// pkg/fat's SDLayout has them) and Params, which format the partition:
// Size, SectorSize, ClusterSize, PartitionOffset and the fixed FAT and heap
// offsets are set; the caller adds the serial number and label.
type SDLayout struct {
	sdcard.Card
	Params FormatParams
}

// ErrSDCapacity is wrapped by PlanSD's error for cards outside SDXC's range.
var ErrSDCapacity = fmt.Errorf("%w: the SD specification lays out exFAT for SDXC cards, over 32 GiB and up to 2 TiB", ErrInvalidParams)

// SDBoundaryUnit is the BU the SD table gives an SDXC card of totalBytes,
// 0 outside SDXC's range.
func SDBoundaryUnit(totalBytes int64) int64 {
	if r, ok := sdRowFor(totalBytes); ok {
		return r.bu
	}
	return 0
}

func sdRowFor(total int64) (sdRow, bool) {
	if total <= sdMinBytes {
		return sdRow{}, false
	}
	for _, r := range sdRows {
		if total <= r.maxBytes {
			return r, true
		}
	}
	return sdRow{}, false
}

// PlanSD lays out an SDXC card of totalSectors 512-byte sectors as the SD
// specification does (see sdRows). Cards of 32 GiB or less and over 2 TiB
// are refused with ErrSDCapacity.
func PlanSD(totalSectors int64) (*SDLayout, error) {
	total := totalSectors * sdcard.Sector
	r, ok := sdRowFor(total)
	if !ok {
		return nil, fmt.Errorf("%w: this card has %d sectors (%d bytes)", ErrSDCapacity, totalSectors, total)
	}
	bu := r.bu / sdcard.Sector
	l := &SDLayout{Card: sdcard.NewCard(r.cluster, r.bu, bu, totalSectors, 0x07)}
	l.Params = FormatParams{
		Size:            l.PartitionBytes(),
		SectorSize:      sdcard.Sector,
		ClusterSize:     r.cluster,
		PartitionOffset: bu * sdcard.Sector,
		FATOffset:       uint32(bu / 2),
		FATLength:       uint32(bu / 2),
		HeapOffset:      uint32(bu),
	}
	if _, _, err := Plan(l.Params); err != nil {
		return nil, err
	}
	return l, nil
}
