package main

import (
	"crypto/sha256"
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
// p's size and hidden sectors to match. With sd, the SD specification's
// layout decides the partition and p instead (see fat.PlanSD).
func writeTable(path string, o fio.Options, t tableOptions, p *fat.FormatParams) (fio.Stats, error) {
	kind, sd := t.kind, t.sd
	o.Partition, o.Offset = 0, 0
	dev, err := cmdutil.Open(path, o)
	if err != nil {
		return fio.Stats{}, err
	}
	defer dev.Close()
	lss := int64(dev.SectorSize())
	if sd != nil {
		if err := writeSDTable(dev, p, sd); err != nil {
			return fio.Stats{}, err
		}
		if err := dev.Close(); err != nil {
			return fio.Stats{}, fmt.Errorf("writing the partition table: %w", err)
		}
		return dev.Stats(), nil
	}
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
	if t.reproducible {
		spec.DiskGUID, spec.PartGUID = guidFrom("disk", p.VolumeID), guidFrom("partition", p.VolumeID)
	}
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

// tableOptions say which table writeTable writes.
type tableOptions struct {
	kind         string     // "mbr" or "gpt"
	sd           *sdOptions // the SD layout, or nil
	reproducible bool       // GPT GUIDs from the volume id, not random
}

// sdOptions are --sd's inputs and, once the table is written, its layout.
type sdOptions struct {
	fat32  bool // --fat 32 given: allowed over 32 GiB
	layout *fat.SDLayout
}

// planSD lays out a card of size bytes with 512-byte sectors.
func planSD(size, sectorSize int64, sd *sdOptions) (*fat.SDLayout, error) {
	if sectorSize != 512 {
		return nil, fmt.Errorf("--sd: SD cards have 512-byte sectors; this device has %d-byte sectors", sectorSize)
	}
	return fat.PlanSD(size/512, sd.fat32)
}

// writeSDTable writes the MBR the SD layout asks for and turns p into the
// layout's format parameters (keeping the label, volume id and media).
func writeSDTable(dev *fio.Device, p *fat.FormatParams, sd *sdOptions) error {
	l, err := planSD(dev.Size(), int64(dev.SectorSize()), sd)
	if err != nil {
		return err
	}
	spec := fio.TableSpec{Kind: "mbr", Start: l.PartitionStart * 512, Size: l.PartitionSize * 512, MBRType: l.MBRType}
	if err := fio.WritePartitionTable(dev, spec); err != nil {
		return err
	}
	q := l.Params
	q.Label, q.VolumeID, q.Media = p.Label, p.VolumeID, p.Media
	*p = q
	sd.layout = l
	return nil
}

// guidFrom derives a GPT GUID from the volume id, so that reproducible
// builds (SOURCE_DATE_EPOCH or --volume-id) give identical tables. It is a
// random-format (version 4) GUID whose bits come from a hash.
func guidFrom(what string, id uint32) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("ftools gpt %s %08x", what, id)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
