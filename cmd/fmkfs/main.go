// Command fmkfs makes a FAT12/16/32 file system in an image file or on a
// block device, optionally inside a new MBR or GPT partition.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "size", Usage: "create the image file (sparse) or extend it to `SIZE` (K/M/G/T suffixes)"},
		&cli.IntFlag{Name: "fat", Aliases: []string{"F"}, Usage: "FAT type `12`, 16 or 32 (default: chosen from the size as mkfs.fat does)"},
		&cli.IntFlag{Name: "sector-size", Aliases: []string{"S"}, Usage: "logical sector size in `BYTES`, 512 to 4096 (default: the device's)"},
		&cli.StringFlag{Name: "cluster-size", Usage: "cluster size in `BYTES` (K suffix allowed), up to 64K"},
		&cli.IntFlag{Name: "sectors-per-cluster", Aliases: []string{"s"}, Usage: "cluster size in `SECTORS` (power of two)"},
		&cli.IntFlag{Name: "reserved", Aliases: []string{"R"}, Usage: "reserved `SECTORS` before the first FAT"},
		&cli.IntFlag{Name: "fats", Aliases: []string{"f"}, Usage: "number of FAT copies, `N` = 1 or 2"},
		&cli.IntFlag{Name: "root-entries", Aliases: []string{"r"}, Usage: "FAT12/16 root directory `ENTRIES`"},
		&cli.StringFlag{Name: "label", Aliases: []string{"n"}, Usage: "volume `LABEL`, up to 11 characters"},
		&cli.StringFlag{Name: "volume-id", Aliases: []string{"i"}, Usage: "volume id as 8 `HEX` digits (default: from SOURCE_DATE_EPOCH, else the clock)"},
		&cli.StringFlag{Name: "hidden", Usage: "hidden `SECTORS` recorded in the boot sector (default: the partition's start)"},
		&cli.StringFlag{Name: "media", Aliases: []string{"M"}, Usage: "media descriptor `BYTE` (default 0xF8)"},
		&cli.StringFlag{Name: "drive-number", Usage: "BIOS drive `NUMBER` in the boot sector (default 0x80 for disks, 0x00 for floppies)"},
		&cli.IntFlag{Name: "heads", Usage: "`HEADS` of the CHS geometry (default as mkfs.fat picks for the size)"},
		&cli.IntFlag{Name: "sectors-per-track", Usage: "`SECTORS` per track of the CHS geometry (default as mkfs.fat picks)"},
		&cli.StringFlag{Name: "offset", Usage: "write the file system at sector `N` of the target, as mkfs.fat's --offset"},
		&cli.StringFlag{Name: "table", Value: "none", Usage: "partition table to write first: `none`, mbr or gpt (one partition from 1 MiB to the end)"},
		&cli.BoolFlag{Name: "sd", Usage: "lay the card out as the SD Association's specification does: MBR, FAT type, cluster size and erase-block (BU) alignment by capacity"},
		&cli.BoolFlag{Name: cmdutil.FlagForce, Usage: "format a whole disk that holds a partition table, replace its table, or make a FAT32 of fewer than 65,525 clusters"},
	}
	fl = append(fl, cmdutil.CodePageFlag())
	fl = append(fl, cmdutil.IOFlags(true)...)
	return append(fl, cmdutil.OutputFlags()...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmkfs", "make a FAT12/16/32 file system",
		"fmkfs [flags] TARGET\n\nTARGET is an image file (created or extended with --size) or a block device.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		return mkfs(c, c.Args().First(), stdout, stderr)
	}
	return app.Run(args)
}

// result is what fmkfs reports with --json.
type result struct {
	Target      string     `json:"target"`
	Table       string     `json:"table"`
	Partition   int        `json:"partition,omitempty"`
	VolumeStart int64      `json:"volume_start"`
	FATType     string     `json:"fat_type"`
	SectorSize  int64      `json:"sector_size"`
	ClusterSize int64      `json:"cluster_size"`
	Clusters    uint32     `json:"clusters"`
	FATSize     int64      `json:"fat_size"`
	DataOffset  int64      `json:"data_offset"`
	VolumeID    string     `json:"volume_id"`
	Label       string     `json:"label"`
	SD          *sdResult  `json:"sd,omitempty"`
	Stats       *fio.Stats `json:"stats,omitempty"`
}

// sdResult is --sd's layout as --json reports it.
type sdResult struct {
	BU              int64 `json:"bu"`
	PartitionSector int64 `json:"partition_start_sector"`
	MBRType         byte  `json:"mbr_type"`
	DataStart       int64 `json:"data_start"` // byte offset of the data area on the card
	DataAligned     bool  `json:"data_bu_aligned"`
}

func mkfs(c *cli.Context, target string, stdout, stderr io.Writer) error {
	p, err := params(c)
	if err != nil {
		return err
	}
	table := c.String("table")
	if table != "none" && table != "mbr" && table != "gpt" {
		return fmt.Errorf("--table %q: use none, mbr or gpt", table)
	}
	var sd *sdOptions
	if c.Bool("sd") {
		for _, f := range []string{"table", "offset", "sector-size", "cluster-size", "sectors-per-cluster", "reserved", "fats", "root-entries", "hidden", cmdutil.FlagPartition} {
			if c.IsSet(f) {
				return fmt.Errorf("--sd decides the layout itself: it cannot be combined with --%s", f)
			}
		}
		if c.IsSet("fat") && p.Type != fat.FAT32 {
			return fmt.Errorf("--sd decides the FAT type from the capacity; only --fat 32 (FAT32 on a card over 32 GiB) can be added")
		}
		sd = &sdOptions{fat32: p.Type == fat.FAT32}
		table = "mbr"
	}
	path, off, err := fio.ParseImageSpec(target)
	if err != nil {
		return err
	}
	if c.IsSet("offset") {
		if off != 0 {
			return errors.New("give the offset either as TARGET@@OFFSET or with --offset, not both")
		}
		n, err := strconv.ParseInt(c.String("offset"), 0, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("--offset %q: want a sector number", c.String("offset"))
		}
		ss := int64(p.SectorSize)
		if ss == 0 {
			ss = 512
		}
		off = n * ss
	}
	if table != "none" && off != 0 {
		return errors.New("--table writes a partition table at the start of TARGET: it cannot be combined with an offset")
	}
	o, err := cmdutil.DeviceOptions(c, true)
	if err != nil {
		return err
	}
	if c.IsSet("size") {
		size, err := fio.ParseSize(c.String("size"))
		if err != nil {
			return fmt.Errorf("--size: %w", err)
		}
		if size <= off {
			return fmt.Errorf("--size %s leaves no room after offset %d", c.String("size"), off)
		}
		// Plan first, so that impossible parameters leave no file behind.
		pp := p
		pp.Size = size - off
		if sd != nil {
			l, err := planSD(size, 512, sd)
			if err != nil {
				return err
			}
			pp = l.Params
		} else if table != "none" {
			if pp.Size, err = fio.PartitionSpan(table, size, 512, partStart); err != nil {
				return err
			}
		}
		if pp.SectorSize == 0 {
			pp.SectorSize = 512
		}
		if _, _, err := fat.Plan(pp); err != nil {
			return err
		}
		if err := fio.CreateImage(path, size); err != nil {
			return err
		}
	} else if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist: give --size to create an image file", path)
		}
		return err
	}

	o.Offset = off
	var total fio.Stats
	res := result{Target: target, Table: table}
	if table != "none" {
		if c.IsSet(cmdutil.FlagPartition) {
			return errors.New("--partition cannot be combined with --table: fmkfs formats the partition it creates")
		}
		_, sde := cmdutil.SourceDateEpoch()
		topts := tableOptions{kind: table, sd: sd, reproducible: sde || c.IsSet("volume-id")}
		st, err := writeTable(path, o, topts, &p)
		if err != nil {
			return err
		}
		total = st
		o.Partition, o.Offset = 1, 0
		res.Partition = 1
	}
	dev, err := cmdutil.Open(path, o)
	if err != nil {
		return err
	}
	if p.HiddenSectors == 0 && !c.IsSet("hidden") && dev.Start() > 0 {
		ss := p.SectorSize
		if ss == 0 {
			ss = dev.SectorSize()
		}
		p.HiddenSectors = uint32(dev.Start() / int64(ss))
	}
	bs, l, err := fat.Format(dev, p, cmdutil.Now())
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	total = total.Add(dev.Stats())
	res.VolumeStart = dev.Start()
	res.FATType = l.Type.String()
	res.SectorSize, res.ClusterSize, res.Clusters = l.SectorSize, l.ClusterSize, l.Clusters
	res.FATSize, res.DataOffset = l.FATSize, l.DataOffset
	res.VolumeID = fmt.Sprintf("%04X-%04X", bs.VolumeID>>16, bs.VolumeID&0xFFFF)
	res.Label = bs.Label()
	if sd != nil && sd.layout != nil {
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
	fmt.Fprintf(stdout, "%s: %s, %d clusters of %d bytes, volume id %s", target, res.FATType, l.Clusters, l.ClusterSize, res.VolumeID)
	if res.Label != "" {
		fmt.Fprintf(stdout, ", label %q", res.Label)
	}
	if res.Partition != 0 {
		fmt.Fprintf(stdout, ", in %s partition 1 at byte %d", strings.ToUpper(table), res.VolumeStart)
	}
	if res.SD != nil {
		fmt.Fprintf(stdout, ", SD layout: BU %d bytes, data area at byte %d", res.SD.BU, res.SD.DataStart)
	}
	fmt.Fprintln(stdout)
	if c.Bool(cmdutil.FlagStats) {
		total.WriteTo(stderr)
	}
	return nil
}
