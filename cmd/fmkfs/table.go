package main

import (
	"fmt"
	"io"

	"github.com/ftools/ftools/cmd/internal/cmdutil"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// partStart is where fmkfs puts its one partition: 1 MiB, the alignment
// every partitioning tool uses today.
const partStart = 1 << 20

// tableOptions say which table writeTable writes.
type tableOptions struct {
	kind     string     // "mbr" or "gpt"
	sd       *sdOptions // the SD layout, or nil
	partSize int64      // --part-size: the partition's size; 0 = to the end of the disk
	esp      bool       // --esp: an EFI System Partition
	ids      identifiers
	x        *exfat.FormatParams // exFAT's parameters, nil for FAT only
	exfat    bool                // --type exfat
	partAuto bool                // --part-size auto: sized to fit the trees
	from     *fromRequest        // --from: the trees the file system must hold
}

// sdOptions are --sd's inputs and, once the table is written, its layout.
type sdOptions struct {
	fat32   bool // --fat 32 given: allowed over 32 GiB
	layout  *fat.SDLayout
	xlayout *exfat.SDLayout // an SDXC card's exFAT layout, instead of layout
}

// tableResult is what writeTable wrote.
type tableResult struct {
	stats fio.Stats
	wiped []fio.Signature
	spec  fio.TableSpec
}

// planTable decides the one partition of a disk of diskSize bytes with
// lss-byte sectors and turns p into its format parameters, planning the
// file system too, so that nothing is written when either is impossible.
func planTable(diskSize, lss int64, t *tableOptions, p *fat.FormatParams) (fio.TableSpec, error) {
	if t.sd != nil {
		if lss != 512 {
			return fio.TableSpec{}, fmt.Errorf("--sd: SD cards have 512-byte sectors; this device has %d-byte sectors", lss)
		}
		if t.exfat || (diskSize > 32<<30 && !t.sd.fat32) {
			return planSDExFAT(diskSize, t)
		}
		l, err := fat.PlanSD(diskSize/512, t.sd.fat32)
		if err != nil {
			return fio.TableSpec{}, err
		}
		q := l.Params
		q.Label, q.VolumeID, q.ZeroVolumeID, q.Media, q.AllowSmallFAT32 = p.Label, p.VolumeID, p.ZeroVolumeID, p.Media, p.AllowSmallFAT32
		if _, _, err := fat.Plan(q); err != nil {
			return fio.TableSpec{}, err
		}
		if err := t.from.fatFits(q); err != nil {
			return fio.TableSpec{}, err
		}
		*p = q
		t.sd.layout = l
		return fio.TableSpec{Kind: "mbr", Start: l.PartitionStart * 512, Size: l.PartitionSize * 512, MBRType: l.MBRType, DiskID: t.ids.mbr}, nil
	}
	size, err := fio.PartitionSpan(t.kind, diskSize, lss, partStart)
	if err != nil {
		return fio.TableSpec{}, err
	}
	if t.partSize != 0 {
		if t.partSize%lss != 0 {
			return fio.TableSpec{}, fmt.Errorf("--part-size %d: not a whole number of %d-byte sectors; give a multiple of %d", t.partSize, lss, lss)
		}
		if t.partSize > size {
			return fio.TableSpec{}, fmt.Errorf("--part-size %d: the disk holds at most %d bytes from 1 MiB on; give a smaller size", t.partSize, size)
		}
		size = t.partSize
	}
	if t.exfat {
		return planExFATPartition(size, lss, t)
	}
	pp := *p
	pp.Size = size
	if pp.SectorSize == 0 {
		pp.SectorSize = int(lss)
	}
	if t.esp && pp.Type == 0 {
		if err := espFAT32(&pp); err != nil {
			return fio.TableSpec{}, err
		}
		p.Type, p.SectorsPerCluster = pp.Type, pp.SectorsPerCluster
	}
	_, l, err := fat.Plan(pp)
	if err != nil {
		return fio.TableSpec{}, err
	}
	if err := t.from.fatFits(pp); err != nil {
		return fio.TableSpec{}, err
	}
	if p.HiddenSectors == 0 {
		p.HiddenSectors = uint32(partStart / int64(pp.SectorSize))
	}
	return fio.TableSpec{Kind: t.kind, Start: partStart, Size: size,
		MBRType: fat.MBRType(l.Type, size/lss, (partStart+size)/lss),
		DiskID:  t.ids.mbr, DiskGUID: t.ids.diskGUID, PartGUID: t.ids.partGUID, ESP: t.esp}, nil
}

// writeTable clears the old signatures of the whole disk (old tables, a
// file system made on the whole disk) and writes an MBR or GPT with one
// partition, typed for the FAT it will hold, and sets p to format it
// (see planTable).
func writeTable(path string, o fio.Options, t *tableOptions, p *fat.FormatParams, stderr io.Writer) (tableResult, error) {
	o.Partition, o.Offset = 0, 0
	dev, err := cmdutil.Open(path, o)
	if err != nil {
		return tableResult{}, err
	}
	cmdutil.WarnDevice(stderr, "fmkfs", dev)
	defer dev.Close()
	spec, err := planTable(dev.Size(), int64(dev.SectorSize()), t, p)
	if err != nil {
		return tableResult{}, err
	}
	wiped, err := fio.WipeSignatures(dev)
	if err != nil {
		return tableResult{}, err
	}
	if err := fio.WritePartitionTable(dev, spec); err != nil {
		return tableResult{}, err
	}
	if err := dev.Close(); err != nil {
		return tableResult{}, fmt.Errorf("writing the partition table: %w", err)
	}
	return tableResult{stats: dev.Stats(), wiped: wiped, spec: spec}, nil
}

// espFAT32 makes an EFI System Partition FAT32, as the UEFI specification
// asks of it (and systemd and mkosi make it): with the default clusters
// when they give FAT32's 65,525, else with the smallest (one sector). A
// partition too small for that is refused with the size that would do, or
// --fat 16 (which firmware reads as well).
func espFAT32(pp *fat.FormatParams) error {
	q := *pp
	q.Type = fat.FAT32
	if _, _, err := fat.Plan(q); err == nil {
		*pp = q
		return nil
	}
	if q.ClusterSize == 0 && q.SectorsPerCluster == 0 {
		q.SectorsPerCluster = 1
		if _, _, err := fat.Plan(q); err == nil {
			*pp = q
			return nil
		}
	}
	ss := int64(q.SectorSize)
	// 65,525 clusters of one sector, two FATs for them, 32 reserved
	// sectors, rounded up to MiB.
	least := (fat.MinClusters32+1)*ss + 2*((int64(fat.MinClusters32)+2)*4+ss-1)/ss*ss + 32*ss
	least = (least + 1<<20 - 1) >> 20
	// The disk adds the 1 MiB before the partition and the backup GPT.
	return fmt.Errorf("--esp: an EFI System Partition is FAT32, which needs 65,525 clusters; a %s partition holds fewer with %d-byte sectors: make it at least %d MiB (--part-size %dM, or --size %dM for the whole image), or give --fat 16 for a FAT16 ESP",
		cmdutil.HumanSize(pp.Size), ss, least, least, least+2)
}
