// Command fmkfs makes a FAT12/16/32 file system in an image file or on a
// block device, optionally inside a new MBR or GPT partition.
package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	sizeUnits := " (" + fio.SizeHelp + ")"
	fl := []cli.Flag{
		cmdutil.Values(&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "fat", Usage: "file system `TYPE`: fat (FAT12, FAT16 or FAT32, see --fat) or exfat"}, "fat", "exfat"),
		&cli.StringFlag{Name: "size", Usage: "create the image file (sparse), or extend it, to exactly `SIZE`" + sizeUnits + "; a larger file is refused; auto (with --from): the smallest that holds the tree"},
		&cli.BoolFlag{Name: "create", Aliases: []string{"C"}, Usage: "create TARGET, which must not exist yet, as a sparse file of BLOCK-COUNT 1 KiB blocks (as mkfs.fat -C)"},
		cmdutil.Values(&cli.IntFlag{Name: "fat", Aliases: []string{"F"}, Usage: "FAT `TYPE`: 12, 16 or 32 (default: chosen from the size as mkfs.fat chooses)"}, "12", "16", "32"),
		cmdutil.Values(&cli.IntFlag{Name: "sector-size", Aliases: []string{"S"}, Usage: "logical sector size in `BYTES`, 512 to 4096 (default: the device's)"}, "512", "1024", "2048", "4096"),
		&cli.StringFlag{Name: "cluster-size", Usage: "cluster size in `BYTES` (K suffix allowed), up to 64K (default: chosen from the size as mkfs.fat chooses)"},
		&cli.IntFlag{Name: "sectors-per-cluster", Aliases: []string{"s"}, Usage: "cluster size in `SECTORS`, a power of two (default: chosen from the size)"},
		&cli.IntFlag{Name: "reserved", Aliases: []string{"R"}, Usage: "reserved `SECTORS` before the first FAT (default: 1, or 32 on FAT32, then aligned)"},
		&cli.IntFlag{Name: "fats", Aliases: []string{"f"}, Usage: "number of FAT copies, `N` = 1 or 2 (default: 2)"},
		&cli.StringFlag{Name: "fat-spare", Usage: "size the FATs for a volume of `SIZE` bytes, or Nx (N times this one), with this volume's FAT type and cluster size, so that fresize can later grow it that far without moving the data area (crash-safe)"},
		&cli.IntFlag{Name: "root-entries", Aliases: []string{"r"}, Usage: "FAT12/16 root directory `ENTRIES` (default: 512, floppies 112 or 224)"},
		&cli.StringFlag{Name: "label", Aliases: []string{"n"}, Usage: "volume `LABEL`, up to 11 ASCII characters (exFAT: 11 UTF-16 characters, case kept)"},
		&cli.StringFlag{Name: "volume-id", Aliases: []string{"i"}, Usage: "volume id (exFAT: serial number) as 8 `HEX` digits (default: from SOURCE_DATE_EPOCH, else random)"},
		&cli.BoolFlag{Name: "invariant", Usage: "use constants for what is otherwise random or the time, as mkfs.fat --invariant: volume id 1234ABCD, times 2015-03-14 09:26:53 UTC, table ids derived from them"},
		&cli.StringFlag{Name: "hidden", Aliases: []string{"h"}, Usage: "hidden `SECTORS` recorded in the boot sector, as mkfs.fat -h (default: the partition's start on the disk)"},
		&cli.StringFlag{Name: "media", Aliases: []string{"M"}, Usage: "media descriptor `BYTE` (default: 0xF8, floppies their own)"},
		&cli.StringFlag{Name: "drive-number", Aliases: []string{"D"}, Usage: "BIOS drive `NUMBER` in the boot sector (default: 0x80 for disks, 0x00 for floppies)"},
		&cli.StringFlag{Name: "geometry", Aliases: []string{"g"}, Usage: "CHS geometry `HEADS/SECTORS` (per track), as mkfs.fat -g (default: as mkfs.fat picks for the size)"},
		&cli.IntFlag{Name: "heads", Usage: "`HEADS` of the CHS geometry (default: as mkfs.fat picks for the size)"},
		&cli.IntFlag{Name: "sectors-per-track", Usage: "`SECTORS` per track of the CHS geometry (default: as mkfs.fat picks)"},
		&cli.BoolFlag{Name: "no-align", Aliases: []string{"a"}, Usage: "do not align the FATs and data area to the cluster size (as mkfs.fat -a): a few more clusters, slower on flash"},
		&cli.StringFlag{Name: "backup-sector", Aliases: []string{"b"}, Usage: "FAT32: put the backup boot sector in reserved `SECTOR` (FSINFO's backup after it), 0 for none, as mkfs.fat -b (default: 6)"},
		&cli.StringFlag{Name: "boot-message", Aliases: []string{"m"}, Usage: "boot code that prints the text of `FILE` ('-': standard input) when the volume is booted, as mkfs.fat -m"},
		cmdutil.Values(&cli.GenericFlag{Name: "mbr", Value: &mbrMode{}, Usage: "write a fake MBR into the boot sector, one partition over the whole volume, as mkfs.fat --mbr; `MODE` is y(es), n(o) or a(uto): only on a whole, non-removable disk (default: a; --mbr alone: y)"}, "y", "n", "a"),
		&cli.StringFlag{Name: "offset", Usage: "write the file system at sector `N` of the target, as mkfs.fat's --offset (it ends where the partition starting there ends)"},
		&cli.IntFlag{Name: cmdutil.FlagPartition, Usage: "format partition `N` (from 1; 5 and up are logical) of the target's existing MBR or GPT, and nothing else"},
		cmdutil.Values(&cli.StringFlag{Name: "table", Value: "none", Usage: "partition table to write first: `TABLE` is none, mbr or gpt (one partition from 1 MiB to the end, or --part-size)"}, "none", "mbr", "gpt"),
		&cli.StringFlag{Name: "part-size", Usage: "with --table: make the partition `SIZE` bytes" + sizeUnits + " and leave the rest of the disk unallocated; auto (with --from): the smallest that holds the tree"},
		&cli.BoolFlag{Name: "esp", Usage: "with --table gpt: make the partition an EFI System Partition (type and name), FAT32 unless --fat says otherwise, as the UEFI specification asks"},
		&cli.StringFlag{Name: "disk-id", Usage: "MBR disk identifier as 8 `HEX` digits, or a GPT disk GUID (default: from SOURCE_DATE_EPOCH or --volume-id, else random)"},
		&cli.BoolFlag{Name: "sd", Usage: "lay the card out as the SD Association's specification does: MBR, file system (FAT12/16/32, exFAT over 32 GiB), cluster size and erase-block (BU) alignment by capacity"},
		&cli.BoolFlag{Name: cmdutil.FlagForce, Aliases: []string{"I"}, Usage: "replace the table of a whole disk without asking, format a whole disk that holds one (-I, as mkfs.fat), write at an offset where no partition starts, or make a FAT32 of fewer than 65,525 clusters"},
		cmdutil.VerboseFlag("print the layout as mkfs.fat -v does: geometry, sectors, FATs, clusters, reserved sectors, root directory, volume id and label"),
		cmdutil.Refuse("c", "fmkfs does not test for bad blocks (mkfs.fat -c): SD cards and USB sticks remap bad blocks themselves; run badblocks(8) on an old disk first (mkfs.exfat's -c, the cluster size, is --cluster-size here)"),
		cmdutil.RefuseValue("L", "the label is -n LABEL (--label), as mkfs.fat takes it, for exFAT too (mkfs.exfat's -L)"),
		cmdutil.RefuseValue("l", "fmkfs does not read a bad block list (mkfs.fat -l): SD cards and USB sticks remap bad blocks themselves"),
	}
	fl = append(fl, fromFlags()...)
	fl = append(fl, cmdutil.CodePageFlag())
	fl = append(fl, discardFlags()...)
	fl = append(fl, cmdutil.IOFlags(true)...)
	return append(fl, cmdutil.OutputFlags()...)
}

const usageText = `fmkfs [flags] TARGET [BLOCK-COUNT]

TARGET is an image file (created or extended with --size or -C) or a block
device. BLOCK-COUNT, as mkfs.fat's, makes the file system that many 1 KiB
blocks (and creates a missing image file of that size). -h is --hidden, as
in mkfs.fat: help is --help.`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmkfs", "make a FAT12/16/32 or exFAT file system", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 2); err != nil {
			return err
		}
		return mkfs(c, c.Args().First(), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// printLayout says what was made as mkfs.fat -v says it, line by line.
func printLayout(w io.Writer, target string, bs *fat.BootSector, l *fat.Layout) {
	fmt.Fprintf(w, "%s has %d heads and %d sectors per track,\n", target, bs.Heads, bs.SectorsPerTrack)
	fmt.Fprintf(w, "hidden sectors 0x%04x;\n", bs.HiddenSectors)
	fmt.Fprintf(w, "logical sector size is %d,\n", l.SectorSize)
	fmt.Fprintf(w, "using 0x%02x media descriptor, with %d sectors;\n", bs.Media, l.TotalSize/l.SectorSize)
	fmt.Fprintf(w, "drive number 0x%02x;\n", bs.DriveNumber)
	fats := fmt.Sprintf("%d %d-bit FATs", l.NumFATs, int(l.Type))
	if l.NumFATs == 1 {
		fats = fmt.Sprintf("1 %d-bit FAT", int(l.Type))
	}
	fmt.Fprintf(w, "filesystem has %s and %s per cluster.\n", fats, cmdutil.Plural(int(bs.SectorsPerCluster), "sector"))
	fmt.Fprintf(w, "FAT size is %s, and provides %s.\n", cmdutil.Plural(int(l.FATSize/l.SectorSize), "sector"), cmdutil.Plural(int(l.Clusters), "cluster"))
	if bs.ReservedSectors == 1 {
		fmt.Fprintln(w, "There is 1 reserved sector.")
	} else {
		fmt.Fprintf(w, "There are %d reserved sectors.\n", bs.ReservedSectors)
	}
	if l.Type != fat.FAT32 {
		fmt.Fprintf(w, "Root directory contains %d slots and uses %d sectors.\n", bs.RootEntries, l.RootDirSize/l.SectorSize)
	}
	label := "no volume label"
	if bl := bs.Label(); bl != "" {
		label = "volume label " + bl
	}
	fmt.Fprintf(w, "Volume ID is %08x, %s.\n", bs.VolumeID, label)
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
	Wiped       []fio.Signature `json:"wiped"`             // old signatures cleared (offsets from the start of the disk)
	Discard     *discardResult  `json:"discard,omitempty"` // what the discard did (none with --no-discard)
	SD          *sdResult       `json:"sd,omitempty"`
	From        *fillResult     `json:"from,omitempty"` // what --from copied in
	cmdutil.Outcome
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
	exfat  bool                // --type exfat
	x      *exfat.FormatParams // exFAT's parameters (--type exfat, or --sd for an SDXC card)
	disc   discardRequest      // --no-discard, --secure-erase, and what the discard did
	from   *fromRequest        // --from: the trees to copy in; nil without
}

func mkfs(c *cli.Context, target string, stdout, stderr io.Writer) error {
	r, err := parseRequest(c, target)
	if err != nil {
		return err
	}
	if _, sde := cmdutil.SourceDateEpoch(); r.from != nil && (sde || c.IsSet("mtime")) {
		// FAT's times have no zone: a reproducible build stores them in
		// UTC, so that the builder's zone does not leak into the image.
		time.Local = time.UTC
	}
	if r.from != nil {
		r.from.warnTooLarge(stderr)
	}
	r.disc = discardOf(c)
	size, err := prepareTarget(c, r)
	if err != nil {
		return err
	}
	// A mounted image is refused before anything is asked or the file
	// extended; opening it for writing would refuse it too, later.
	if _, err := fio.CheckImageWrite(r.path, r.o.MountsFile); err != nil {
		return err
	}
	if r.table.kind != "" {
		if err := confirmReplace(c, r, stderr); err != nil {
			return err
		}
	}
	if size != 0 {
		// Only now, past every refusal that needs no opening: a refused
		// command leaves the file as it was, its size too.
		if err := fio.CreateImage(r.path, size); err != nil {
			return err
		}
	}
	var total fio.Stats
	res := result{Target: target, Table: "none", Wiped: []fio.Signature{}}
	if r.table.kind != "" {
		tr, err := writeTable(r.path, r.o, &r.table, &r.p, stderr)
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
	cmdutil.WarnDevice(stderr, "fmkfs", dev)
	if r.isExFAT() {
		return mkfsExFAT(c, r, dev, &res, total, stdout, stderr)
	}
	if l := r.p.Label; l != strings.ToUpper(l) {
		// Kept as given, as mkfs.fat keeps it, with mkfs.fat's warning.
		cmdutil.Warn(stderr, "fmkfs", "the label %q is kept in lower case: lowercase labels might not work properly on some systems (DOS, some firmware)", l)
	}
	bs, l, wiped, err := format(c, r, dev)
	var fillErr error
	if err == nil && r.from != nil {
		res.From, fillErr = fill(r, target, dev, stderr)
		if !isExit1(fillErr) {
			err, fillErr = fillErr, nil
		}
	}
	if err := closeFormatted(r, dev, wiped, err, &res, &total, stderr); err != nil {
		return err
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
	if !c.Bool(cmdutil.FlagJSON) {
		if c.Bool(cmdutil.FlagVerbose) {
			printLayout(stdout, target, bs, l)
		}
		printResult(stdout, &res, l)
		printFilled(stdout, r, res.From)
	}
	return cmdutil.Finish(c, stdout, stderr, &res, func() fio.Stats { return total }, fillErr)
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
	// vol.Format plans before anything is written, then keeps the wipe
	// inside the volume's own range.
	if r.from != nil {
		// A tree that does not fit is refused before anything is written.
		q := p
		if q.Size == 0 {
			q.Size = dev.Size()
		}
		if q.SectorSize == 0 {
			q.SectorSize = dev.SectorSize()
		}
		if err := r.from.fatFits(q); err != nil {
			return nil, nil, nil, err
		}
		// Dirty until filled: a cut before the fill is done leaves no
		// volume that claims to be clean and complete (but FAT12's,
		// which has no dirty bit).
		p.Dirty = true
	}
	f, err := vol.Format(dev, vol.FormatOptions{FAT: &p, Now: formatClock(c), Discard: !r.disc.off, SecureErase: r.disc.secure})
	r.disc.res = f.Discard
	return f.FATBoot, f.FATLayout, f.Wiped, err
}

// formatClock is the time a format stamps: --invariant's, else the clock
// (SOURCE_DATE_EPOCH when set).
func formatClock(c *cli.Context) time.Time {
	if c.Bool("invariant") {
		return invariantTime
	}
	if t, err := parseMtime(c.String("mtime")); c.IsSet("mtime") && err == nil {
		return t
	}
	return cmdutil.Now()
}

func printResult(w io.Writer, res *result, l *fat.Layout) {
	fmt.Fprintf(w, "%s: %s, %d clusters of %d bytes, volume id %s", res.Target, res.FATType, l.Clusters, l.ClusterSize, res.VolumeID)
	printResultTail(w, res)
}

// printResultTail ends the result line (label, table, SD layout) and
// names the signatures cleared.
func printResultTail(w io.Writer, res *result) {
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
	printDiscard(w, res.Target, res.Discard)
}

// closeFormatted closes the device a format wrote (the format's error,
// else the close's, is returned), notes the signatures it cleared (as
// offsets from the disk's start) and its statistics, and has the kernel
// re-read a table written on a block device.
func closeFormatted(r *request, dev *fio.Device, wiped []fio.Signature, err error, res *result, total *fio.Stats, stderr io.Writer) error {
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
	*total = total.Add(dev.Stats())
	res.Discard = r.disc.res
	if r.table.kind != "" && dev.IsBlockDevice() {
		if err := fio.RereadPartitions(r.path); err != nil {
			cmdutil.Warn(stderr, "fmkfs", "%s", cmdutil.Message(err))
		}
	}
	return nil
}
