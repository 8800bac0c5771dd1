package main

import (
	"fmt"

	"ftools/cmd/internal/cmdutil"

	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

// partStart is where fmkfs puts its one partition: 1 MiB, the alignment
// every partitioning tool uses today.
const partStart = 1 << 20

// writeTable writes an MBR or GPT with one partition from 1 MiB to the end
// of the target, typed for the FAT the partition's size will get, and sets
// p's size and hidden sectors to match.
func writeTable(path string, o fio.Options, kind string, p *fat.FormatParams) (fio.Stats, error) {
	o.Partition, o.Offset = 0, 0
	dev, err := cmdutil.Open(path, o)
	if err != nil {
		return fio.Stats{}, err
	}
	defer dev.Close()
	lss := int64(dev.SectorSize())
	size, err := fio.PartitionSpan(kind, dev.Size(), lss, partStart)
	if err != nil {
		return fio.Stats{}, err
	}
	pp := *p
	pp.Size = size
	if pp.SectorSize == 0 {
		pp.SectorSize = int(lss)
	}
	_, l, err := fat.Plan(pp)
	if err != nil {
		return fio.Stats{}, err
	}
	spec := fio.TableSpec{Kind: kind, Start: partStart, Size: size, MBRType: mbrType(l.Type, size/lss)}
	if err := fio.WritePartitionTable(dev, spec); err != nil {
		return fio.Stats{}, err
	}
	if p.HiddenSectors == 0 {
		p.HiddenSectors = uint32(partStart / int64(pp.SectorSize))
	}
	if err := dev.Close(); err != nil {
		return fio.Stats{}, fmt.Errorf("writing the partition table: %w", err)
	}
	return dev.Stats(), nil
}

// mbrType is the MBR partition type for a FAT of type t over the given
// number of sectors: FAT12 0x01, FAT16 0x04 below 65,536 sectors and 0x06
// from there, FAT32 0x0C (LBA).
func mbrType(t fat.Type, sectors int64) byte {
	switch t {
	case fat.FAT12:
		return 0x01
	case fat.FAT16:
		if sectors < 65536 {
			return 0x04
		}
		return 0x06
	default:
		return 0x0C
	}
}
