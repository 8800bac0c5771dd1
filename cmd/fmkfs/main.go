// Command fmkfs makes a FAT12/16/32 file system in an image file or on a
// block device, optionally inside a new MBR or GPT partition.
package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "size", Usage: "create the image file (sparse), or extend it, to exactly `SIZE` (K/M/G/T suffixes); a larger file is refused"},
		&cli.IntFlag{Name: "fat", Aliases: []string{"F"}, Usage: "FAT type `12`, 16 or 32 (default: chosen from the size as mkfs.fat does)"},
		&cli.IntFlag{Name: "sector-size", Aliases: []string{"S"}, Usage: "logical sector size in `BYTES`, 512 to 4096 (default: the device's)"},
		&cli.StringFlag{Name: "cluster-size", Usage: "cluster size in `BYTES` (K suffix allowed), up to 64K"},
		&cli.IntFlag{Name: "sectors-per-cluster", Aliases: []string{"s"}, Usage: "cluster size in `SECTORS` (power of two)"},
		&cli.IntFlag{Name: "reserved", Aliases: []string{"R"}, Usage: "reserved `SECTORS` before the first FAT"},
		&cli.IntFlag{Name: "fats", Aliases: []string{"f"}, Usage: "number of FAT copies, `N` = 1 or 2"},
		&cli.IntFlag{Name: "root-entries", Aliases: []string{"r"}, Usage: "FAT12/16 root directory `ENTRIES`"},
		&cli.StringFlag{Name: "label", Aliases: []string{"n"}, Usage: "volume `LABEL`, up to 11 characters"},
		&cli.StringFlag{Name: "volume-id", Aliases: []string{"i"}, Usage: "volume id as 8 `HEX` digits (default: from SOURCE_DATE_EPOCH, else the clock)"},
		&cli.StringFlag{Name: "hidden", Usage: "hidden `SECTORS` recorded in the boot sector (default: the partition's start on the disk)"},
		&cli.StringFlag{Name: "media", Aliases: []string{"M"}, Usage: "media descriptor `BYTE` (default 0xF8)"},
		&cli.StringFlag{Name: "drive-number", Usage: "BIOS drive `NUMBER` in the boot sector (default 0x80 for disks, 0x00 for floppies)"},
		&cli.IntFlag{Name: "heads", Usage: "`HEADS` of the CHS geometry (default as mkfs.fat picks for the size)"},
		&cli.IntFlag{Name: "sectors-per-track", Usage: "`SECTORS` per track of the CHS geometry (default as mkfs.fat picks)"},
		&cli.StringFlag{Name: "offset", Usage: "write the file system at sector `N` of the target, as mkfs.fat's --offset (it ends where the partition starting there ends)"},
		&cli.IntFlag{Name: cmdutil.FlagPartition, Usage: "format partition `N` (1-based; 5 and up are logical) of the target's existing MBR or GPT, and nothing else"},
		&cli.StringFlag{Name: "table", Value: "none", Usage: "partition table to write first: `none`, mbr or gpt (one partition from 1 MiB to the end, or --part-size)"},
		&cli.StringFlag{Name: "part-size", Usage: "with --table: make the partition `SIZE` bytes (K/M/G suffixes) and leave the rest of the disk unallocated"},
		&cli.BoolFlag{Name: "esp", Usage: "with --table gpt: make the partition an EFI System Partition (type and name)"},
		&cli.StringFlag{Name: "disk-id", Usage: "MBR disk identifier as 8 `HEX` digits, or a GPT disk GUID (default: from SOURCE_DATE_EPOCH or --volume-id, else random)"},
		&cli.BoolFlag{Name: "sd", Usage: "lay the card out as the SD Association's specification does: MBR, FAT type, cluster size and erase-block (BU) alignment by capacity"},
		&cli.BoolFlag{Name: cmdutil.FlagForce, Usage: "replace the table of a whole disk without asking, format a whole disk that holds one, write at an offset where no partition starts, or make a FAT32 of fewer than 65,525 clusters"},
	}
	fl = append(fl, cmdutil.CodePageFlag())
	fl = append(fl, cmdutil.IOFlags(true)...)
	return append(fl, cmdutil.OutputFlags()...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmkfs", "make a FAT12/16/32 file system",
		"fmkfs [flags] TARGET [BLOCK-COUNT]\n\nTARGET is an image file (created or extended with --size) or a block device.\nBLOCK-COUNT, as mkfs.fat's, makes the file system that many 1 KiB blocks\n(and creates a missing image file of that size).", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 2); err != nil {
			return err
		}
		return mkfs(c, c.Args().First(), stdout, stderr)
	}
	return app.Run(args)
}

// result is what fmkfs reports with --json.
type result struct {
	Target      string          `json:"target"`
	Table       string          `json:"table"`
	Partition   int             `json:"partition,omitempty"`
	DiskID      string          `json:"disk_id,omitempty"` // MBR disk identifier or GPT disk GUID of a table fmkfs wrote
	VolumeStart int64           `json:"volume_start"`
	VolumeSize  int64           `json:"volume_size"`
	FATType     string          `json:"fat_type"`
	SectorSize  int64           `json:"sector_size"`
	ClusterSize int64           `json:"cluster_size"`
	Clusters    uint32          `json:"clusters"`
	FATSize     int64           `json:"fat_size"`
	DataOffset  int64           `json:"data_offset"`
	Hidden      uint32          `json:"hidden_sectors"`
	VolumeID    string          `json:"volume_id"`
	Label       string          `json:"label"`
	Wiped       []fio.Signature `json:"wiped"` // old signatures cleared (offsets from the start of the disk)
	SD          *sdResult       `json:"sd,omitempty"`
	Stats       *fio.Stats      `json:"stats,omitempty"`
}

// sdResult is --sd's layout as --json reports it.
type sdResult struct {
	BU              int64 `json:"bu"`
	PartitionSector int64 `json:"partition_start_sector"`
	MBRType         byte  `json:"mbr_type"`
	DataStart       int64 `json:"data_start"` // byte offset of the data area on the card
	DataAligned     bool  `json:"data_bu_aligned"`
}

// request is the command line, checked and resolved.
type request struct {
	path   string
	off    int64 // byte offset (@@OFFSET or --offset)
	blocks int64 // BLOCK-COUNT in bytes; 0 = not given
	table  tableOptions
	p      fat.FormatParams
	o      fio.Options
}

func mkfs(c *cli.Context, target string, stdout, stderr io.Writer) error {
	r, err := parseRequest(c, target)
	if err != nil {
		return err
	}
	if err := prepareTarget(c, r); err != nil {
		return err
	}
	var total fio.Stats
	res := result{Target: target, Table: "none", Wiped: []fio.Signature{}}
	if r.table.kind != "" {
		if err := confirmReplace(c, r, stderr); err != nil {
			return err
		}
		tr, err := writeTable(r.path, r.o, &r.table, &r.p)
		if err != nil {
			return err
		}
		total = tr.stats
		res.Wiped = append(res.Wiped, tr.wiped...)
		res.Table, res.Partition = r.table.kind, 1
		res.DiskID = fmt.Sprintf("%08x", tr.spec.DiskID)
		if r.table.kind == "gpt" {
			pt, err := fio.ReadPartitions(r.path)
			if err != nil {
				return err
			}
			res.DiskID = pt.DiskID
		}
		r.o.Partition, r.o.Offset = 1, 0
	}
	dev, err := cmdutil.Open(r.path, r.o)
	if err != nil {
		return err
	}
	bs, l, wiped, err := format(c, r, dev)
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, w := range wiped {
		w.Offset += dev.Start()
		res.Wiped = append(res.Wiped, w)
	}
	total = total.Add(dev.Stats())
	if r.table.kind != "" && dev.IsBlockDevice() {
		if err := fio.RereadPartitions(r.path); err != nil {
			cmdutil.Warn(stderr, "fmkfs", "%v", err)
		}
	}
	res.VolumeStart, res.VolumeSize = dev.Start(), l.TotalSize
	res.FATType = l.Type.String()
	res.SectorSize, res.ClusterSize, res.Clusters = l.SectorSize, l.ClusterSize, l.Clusters
	res.FATSize, res.DataOffset, res.Hidden = l.FATSize, l.DataOffset, bs.HiddenSectors
	res.VolumeID = fmt.Sprintf("%04X-%04X", bs.VolumeID>>16, bs.VolumeID&0xFFFF)
	res.Label = bs.Label()
	if sd := r.table.sd; sd != nil && sd.layout != nil {
		data := dev.Start() + l.DataOffset
		res.SD = &sdResult{BU: sd.layout.BU, PartitionSector: sd.layout.PartitionStart, MBRType: sd.layout.MBRType,
			DataStart: data, DataAligned: data%sd.layout.BU == 0}
	}
	if c.Bool(cmdutil.FlagJSON) {
		if c.Bool(cmdutil.FlagStats) {
			res.Stats = &total
		}
		return cmdutil.PrintJSON(stdout, res)
	}
	printResult(stdout, &res, l)
	if c.Bool(cmdutil.FlagStats) {
		total.WriteTo(stderr)
	}
	return nil
}

// format clears the old signatures inside the volume's range and makes
// the file system there.
func format(c *cli.Context, r *request, dev *fio.Device) (*fat.BootSector, *fat.Layout, []fio.Signature, error) {
	p := r.p
	if r.blocks != 0 {
		if r.blocks > dev.Size() {
			return nil, nil, nil, fmt.Errorf("BLOCK-COUNT %d (%d bytes) is more than %s holds from byte %d (%d bytes); give a smaller count", r.blocks/1024, r.blocks, r.path, dev.Start(), dev.Size())
		}
		p.Size = r.blocks
	}
	if !c.IsSet("hidden") && p.HiddenSectors == 0 {
		place, err := fio.BlockDiskPlace(r.path)
		if err != nil {
			return nil, nil, nil, err
		}
		ss := p.SectorSize
		if ss == 0 {
			ss = dev.SectorSize()
		}
		p.HiddenSectors = uint32((place.Start + dev.Start()) / int64(ss))
	}
	// Plan before anything is written, then keep the wipe inside the
	// volume's own range.
	pp := p
	if pp.SectorSize == 0 {
		pp.SectorSize = dev.SectorSize()
	}
	if pp.Size == 0 {
		pp.Size = dev.Size()
	}
	if _, _, err := fat.Plan(pp); err != nil {
		return nil, nil, nil, err
	}
	if pp.Size < dev.Size() {
		if err := dev.Limit(pp.Size); err != nil {
			return nil, nil, nil, err
		}
	}
	wiped, err := fio.WipeSignatures(dev)
	if err != nil {
		return nil, nil, nil, err
	}
	bs, l, err := fat.Format(dev, p, cmdutil.Now())
	return bs, l, wiped, err
}

func printResult(w io.Writer, res *result, l *fat.Layout) {
	fmt.Fprintf(w, "%s: %s, %d clusters of %d bytes, volume id %s", res.Target, res.FATType, l.Clusters, l.ClusterSize, res.VolumeID)
	if res.Label != "" {
		fmt.Fprintf(w, ", label %q", res.Label)
	}
	if res.Table != "none" {
		fmt.Fprintf(w, ", in %s partition 1 at byte %d (disk id %s)", strings.ToUpper(res.Table), res.VolumeStart, res.DiskID)
	}
	if res.SD != nil {
		fmt.Fprintf(w, ", SD layout: BU %d bytes, data area at byte %d", res.SD.BU, res.SD.DataStart)
	}
	fmt.Fprintln(w)
	for _, s := range res.Wiped {
		if s.Name != "MBR" {
			fmt.Fprintf(w, "cleared the old %s at byte %d\n", s.Name, s.Offset)
		}
	}
}
