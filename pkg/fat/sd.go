package fat

import (
	"fmt"

	"github.com/ftools/ftools/pkg/internal/sdcard"
)

// The SD Association's File System Specification (Part 2, Annex C) lays a
// card out so that the FATs and the data area start on the card's erase
// block ("boundary unit", BU) boundaries, which is what its SD Card
// Formatter does and what cards are fastest with. The rows below are its
// table: the largest capacity of each row, the FAT type, cluster and BU.
type sdRow struct {
	maxBytes int64
	typ      Type
	cluster  int64 // bytes
	bu       int64 // bytes
}

var sdRows = []sdRow{
	{8 << 20, FAT12, 8 << 10, 8 << 10},
	{64 << 20, FAT12, 16 << 10, 16 << 10},
	{256 << 20, FAT16, 16 << 10, 32 << 10},
	{1 << 30, FAT16, 16 << 10, 64 << 10},
	{2 << 30, FAT16, 32 << 10, 64 << 10},
	{32 << 30, FAT32, 32 << 10, 4 << 20},
}

// SDLayout is a card's layout by the SD specification: the FAT type, the
// card's partition (ClusterSize, BU, PartitionStart, PartitionSize,
// MBRType, as pkg/exfat's SDLayout has them) and Params, which format the
// partition (Size, sectors per cluster, reserved sectors, FAT size, root
// entries, hidden sectors are set). A FAT32 of fewer than 65,525 clusters
// is refused by Plan unless the caller sets AllowSmallFAT32, as for any
// other FAT32.
type SDLayout struct {
	Type Type
	sdcard.Card
	Params FormatParams
}

// ErrSDTooLarge is returned for cards over 32 GiB, which the SD
// specification formats as exFAT.
var ErrSDTooLarge = fmt.Errorf("%w: the SD specification formats cards over 32 GiB as exFAT, which pkg/exfat lays out (fmkfs --sd does so by itself); give --fat 32 to make FAT32 with the 32 GiB layout anyway", ErrInvalidParams)

// SDBoundaryUnit is the BU fmkfs --sd lays a card of totalBytes out with:
// PlanSD's (a row that cannot hold the card's clusters gives way to the
// next, so a card of exactly 64 MiB gets the FAT16 row's 32 KiB BU); over
// 32 GiB, the FAT32 layout's 4 MiB; for a card too small for any layout,
// its row's BU in the table.
func SDBoundaryUnit(totalBytes int64) int64 {
	if l, err := PlanSD(totalBytes/sdcard.Sector, totalBytes > sdRows[len(sdRows)-1].maxBytes); err == nil {
		return l.BU
	}
	for _, r := range sdRows {
		if totalBytes <= r.maxBytes {
			return r.bu
		}
	}
	return sdRows[len(sdRows)-1].bu
}

// PlanSD lays out a card of totalSectors 512-byte sectors as the SD
// specification does:
//
//   - FAT12/16: 1 reserved sector, 512 root entries, 2 FATs; the partition
//     starts where the data area then falls on a BU boundary, at least one
//     BU into the card (NOM = BU - SSA mod BU, plus BU unless that is BU),
//     and the FAT size is iterated until it holds every cluster.
//   - FAT32: the partition starts at one BU; reserved sectors = BU - (2 x
//     FAT size mod BU), plus one BU if that is under 9, so the data area
//     starts on a BU boundary; FSINFO at sector 1, backup boot sector at 6.
//   - MBR type from MBRType: 0x01 FAT12; 0x04 or 0x06 FAT16 (under /
//     from 65,536 sectors); 0x0B FAT32 on cards up to 16,450,560 sectors,
//     else 0x0C.
//
// A row whose cluster count falls outside its type's limits (a card of
// exactly 64 MiB has too many clusters for FAT12) gives way to the next.
// Over 32 GiB the specification asks for exFAT: refused unless fat32.
func PlanSD(totalSectors int64, fat32 bool) (*SDLayout, error) {
	total := totalSectors * sdcard.Sector
	if total > sdRows[len(sdRows)-1].maxBytes && !fat32 {
		return nil, ErrSDTooLarge
	}
	for i, r := range sdRows {
		last := i == len(sdRows)-1
		if total > r.maxBytes && !last {
			continue
		}
		if fat32 && r.typ != FAT32 {
			continue
		}
		l, err := planSDRow(totalSectors, r)
		if err == nil {
			return l, nil
		}
		if last {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %d sectors is too small for the SD layout", ErrInvalidParams, totalSectors)
}

func planSDRow(ts int64, r sdRow) (*SDLayout, error) {
	sc, bu := r.cluster/sdcard.Sector, r.bu/sdcard.Sector
	bits := int64(r.typ)
	fatSectors := func(entries int64) int64 { return ceilDiv(ceilDiv(entries*bits, 8), sdcard.Sector) }
	sf := fatSectors(ceilDiv(ts, sc) + 2)
	var nom, rsc, clusters int64
	rootSecs := int64(0)
	if r.typ != FAT32 {
		rootSecs = 512 * DirEntrySize / sdcard.Sector
	}
	for range 64 {
		if r.typ == FAT32 {
			nom = bu
			rsc = bu - (2*sf)%bu
			if rsc < 9 {
				rsc += bu
			}
		} else {
			rsc = 1
			ssa := rsc + 2*sf + rootSecs
			nom = bu - ssa%bu
			if nom != bu {
				nom += bu
			}
		}
		data := nom + rsc + 2*sf + rootSecs
		if data >= ts {
			return nil, fmt.Errorf("%w: %d sectors is too small for the SD layout", ErrInvalidParams, ts)
		}
		clusters = (ts - data) / sc
		if need := fatSectors(clusters + 2); need > sf {
			sf = need
			continue
		}
		break
	}
	lo, hi := int64(1), int64(maxClusters12)
	switch r.typ {
	case FAT16:
		lo, hi = MinClusters16, maxClusters16
	case FAT32:
		// Cards just over 2 GiB get FAT32 with fewer than 65,525
		// clusters, as the specification's table has them; Plan refuses
		// such a volume unless Params.AllowSmallFAT32 is set (--force).
		lo, hi = 1, MaxClusters32
	}
	if clusters < lo || clusters > hi {
		return nil, fmt.Errorf("%w: %s with %d-byte clusters would have %d clusters on this card", ErrInvalidParams, r.typ, r.cluster, clusters)
	}
	l := &SDLayout{Type: r.typ, Card: sdcard.NewCard(r.cluster, r.bu, nom, ts, MBRType(r.typ, ts-nom, ts))}
	l.Params = FormatParams{
		Size:              l.PartitionBytes(),
		SectorSize:        sdcard.Sector,
		Type:              r.typ,
		SectorsPerCluster: int(sc),
		ReservedSectors:   int(rsc),
		NumFATs:           2,
		FATSectors:        int(sf),
		HiddenSectors:     uint32(nom),
	}
	if r.typ != FAT32 {
		l.Params.RootEntries = 512
	}
	return l, nil
}
