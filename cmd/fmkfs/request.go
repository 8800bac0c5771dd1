package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// sdExclusive are the flags --sd cannot be combined with: it decides them.
var sdExclusive = []string{"table", "offset", "sector-size", "cluster-size", "sectors-per-cluster", "reserved", "fats",
	"root-entries", "hidden", cmdutil.FlagPartition, "part-size", "esp"}

// parseRequest checks the command line and resolves it, before anything
// is opened.
func parseRequest(c *cli.Context, target string) (*request, error) {
	p, err := params(c)
	if err != nil {
		return nil, err
	}
	r := &request{p: p}
	ftype, err := fsType(c)
	if err != nil {
		return nil, err
	}
	r.exfat = ftype == "exfat"
	if r.exfat || c.Bool("sd") {
		// --sd makes exFAT on an SDXC card: its parameters are ready in
		// case the card is one.
		common := fmtCommon{serial: p.VolumeID, sectorSize: p.SectorSize, clusterSize: p.ClusterSize}
		if !r.exfat {
			common = fmtCommon{serial: p.VolumeID}
		}
		if r.x, err = exfatRequest(c, common, r.exfat); err != nil {
			return nil, err
		}
	}
	table := c.String("table")
	if table != "none" && table != "mbr" && table != "gpt" {
		return nil, fmt.Errorf("--table %q: use none, mbr or gpt", table)
	}
	if c.Bool("sd") {
		for _, f := range sdExclusive {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--sd decides the layout itself: it cannot be combined with --%s", f)
			}
		}
		if c.IsSet("fat") && p.Type != fat.FAT32 {
			return nil, errors.New("--sd decides the FAT type from the capacity; only --fat 32 (FAT32 on a card over 32 GiB) can be added")
		}
		if c.IsSet("type") && !r.exfat && !c.IsSet("fat") {
			return nil, errors.New("--sd decides the file system from the capacity: FAT up to 32 GiB, exFAT above; give --fat 32 for FAT32 on a larger card")
		}
		r.table = tableOptions{kind: "mbr", sd: &sdOptions{fat32: p.Type == fat.FAT32}}
	} else if table != "none" {
		r.table.kind = table
	}
	if c.Bool("esp") && r.table.kind != "gpt" {
		return nil, errors.New("--esp marks the partition of a new GPT as the EFI System Partition: add --table gpt")
	}
	if c.IsSet("part-size") {
		if r.table.kind == "" {
			return nil, errors.New("--part-size sizes the partition that --table writes: add --table mbr or gpt (BLOCK-COUNT sizes a file system alone)")
		}
		if c.String("part-size") == "auto" {
			r.table.partAuto = true
		} else if r.table.partSize, err = fio.ParseSize(c.String("part-size")); err != nil || r.table.partSize <= 0 {
			return nil, fmt.Errorf("--part-size %q: want a size such as 256M", c.String("part-size"))
		}
	}
	r.table.esp = c.Bool("esp")
	if r.from, err = parseFrom(c, r.exfat, target); err != nil {
		return nil, err
	}
	r.table.from = r.from
	if r.from != nil {
		r.from.need = needHint(r)
	}
	r.table.x, r.table.exfat = r.x, r.exfat
	if r.path, r.off, err = fio.ParseImageSpec(target); err != nil {
		return nil, err
	}
	if c.IsSet("offset") {
		if r.off != 0 {
			return nil, errors.New("give the offset either as TARGET@@OFFSET or with --offset, not both")
		}
		n, err := strconv.ParseInt(c.String("offset"), 0, 64)
		if err != nil || n < 0 || n > math.MaxInt64/4096 {
			return nil, fmt.Errorf("--offset %q: want a sector number", c.String("offset"))
		}
		ss := int64(p.SectorSize)
		if ss == 0 {
			ss = 512
		}
		r.off = n * ss
	}
	if r.table.kind != "" && (r.off != 0 || c.IsSet(cmdutil.FlagPartition)) {
		return nil, errors.New("--table and --sd write a partition table at the start of TARGET and format its partition: they cannot be combined with an offset or --partition")
	}
	if r.table.kind != "" {
		if err := refusePartitionDevice(c, r.path); err != nil {
			return nil, err
		}
	}
	if c.NArg() == 2 {
		n, err := strconv.ParseInt(c.Args().Get(1), 10, 64)
		if err != nil || n <= 0 || n > math.MaxInt64/1024 {
			return nil, fmt.Errorf("BLOCK-COUNT %q: want a positive number of 1 KiB blocks, as mkfs.fat takes", c.Args().Get(1))
		}
		if r.table.kind != "" {
			return nil, errors.New("BLOCK-COUNT sizes a file system alone; with --table or --sd, size the partition with --part-size")
		}
		r.blocks = n * 1024
	}
	if r.o, err = cmdutil.DeviceOptions(c, true); err != nil {
		return nil, err
	}
	r.o.Offset = r.off
	_, sde := cmdutil.SourceDateEpoch()
	reproducible := sde || c.IsSet("volume-id") || c.Bool("invariant")
	if mode := c.Generic("mbr").(*mbrMode).mode; mode != "" && mode != "n" {
		if r.table.kind != "" || r.off != 0 || c.IsSet(cmdutil.FlagPartition) {
			if mode == "y" {
				return nil, errors.New("--mbr writes a fake table into the boot sector of a disk without one: it cannot be combined with --table, --sd, --partition or an offset")
			}
		} else if wantMBR(mode, r.path) {
			ids, err := tableIDs(c, reproducible, p.VolumeID)
			if err != nil {
				return nil, err
			}
			r.p.FakeMBR, r.p.DiskID = true, ids.mbr
			return r, nil
		}
	}
	if r.table.kind == "" {
		if c.IsSet("disk-id") {
			return nil, errors.New("--disk-id names the table that --table, --sd or --mbr writes: add one")
		}
		return r, nil
	}
	r.table.ids, err = tableIDs(c, reproducible, p.VolumeID)
	return r, err
}

// refusePartitionDevice refuses --sd and --table on a partition device
// (/dev/sdb1): a partition is not a card or a disk, and a table written
// there lands inside the partition, over its files. The sentence names
// the whole device to give instead.
func refusePartitionDevice(c *cli.Context, path string) error {
	place, err := fio.BlockDiskPlace(path)
	if err != nil || !place.Partition {
		return nil // an image file, a whole disk; opening says what is wrong
	}
	whole := "/dev/" + place.Disk
	if c.Bool("sd") {
		return fmt.Errorf("--sd: %s is partition %d of %s, not a card: the SD layout (its MBR and the partition's place) is written on the whole card; give %s (its table and all its partitions are replaced), or leave --sd out to format this partition alone",
			path, place.Number, whole, whole)
	}
	return fmt.Errorf("--table %s: %s is partition %d of %s, not a disk: a partition table goes at the start of the whole device; give %s (its table and all its partitions are replaced), or leave --table out to format this partition alone",
		c.String("table"), path, place.Number, whole, whole)
}

// prepareTarget checks that an image file can be created or extended to
// exactly --size (or to BLOCK-COUNT for a missing file, as mkfs.fat -C),
// planning the file system so that impossible parameters leave no file
// behind, and returns the size to create or extend it to (0: none).
// Nothing is written: the caller extends the file only once every
// refusal (a table to replace, say) has passed, so that a refused
// command leaves the file as it was. It refuses what it cannot do
// exactly: shrinking a file, sizing a device, growing a disk whose table
// would not grow with it.
func prepareTarget(c *cli.Context, r *request) (int64, error) {
	fi, err := os.Stat(r.path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	if !exists && inDev(r.path) {
		// A device that is not there (a card not inserted, a partition
		// node not made yet, a typo): an image file in /dev would fill
		// memory and hide the mistake.
		return 0, fmt.Errorf("%s: no such device (lsblk lists the disks); fmkfs creates image files, not files in /dev", r.path)
	}
	var size int64
	auto := r.from != nil && r.blocks == 0 && (c.String("size") == "auto" || r.table.partAuto ||
		!c.IsSet("size") && (!exists || fi.Mode().IsRegular() && fi.Size() == 0))
	if r.from != nil && c.IsSet(cmdutil.FlagPartition) && auto {
		if c.IsSet("size") || r.table.partAuto {
			return 0, errors.New("--partition formats an existing partition, whose size is its own: leave out --size auto")
		}
		auto = false
	}
	if auto {
		if exists && fi.Mode()&os.ModeDevice != 0 {
			return 0, fmt.Errorf("%s is a block device, whose size is its own: leave out --size auto and --part-size auto", r.path)
		}
		var disk int64
		if c.IsSet("size") && c.String("size") != "auto" {
			if disk, err = fio.ParseSize(c.String("size")); err != nil {
				return 0, fmt.Errorf("--size: %w", err)
			}
		}
		size, err := autoSize(r, disk)
		if err != nil {
			return 0, err
		}
		if exists && fi.Size() > size {
			return 0, fmt.Errorf("--from: %s already holds %d bytes and fmkfs does not shrink files, and the tree needs %d: truncate it first, or leave --size auto out to fill it as it is", r.path, fi.Size(), size)
		}
		return size, nil
	}
	if c.Bool("create") {
		switch {
		case r.blocks == 0:
			return 0, errors.New("-C (--create) needs BLOCK-COUNT: the size of the file to create, in 1 KiB blocks")
		case c.IsSet("size"):
			return 0, errors.New("give -C with BLOCK-COUNT or --size, not both: both create the file")
		case exists:
			return 0, fmt.Errorf("-C: %s exists; -C only creates a new file (leave -C out to format it)", r.path)
		}
	}
	switch {
	case c.IsSet("size"):
		if size, err = fio.ParseSize(c.String("size")); err != nil {
			return 0, fmt.Errorf("--size: %w", err)
		}
		if exists && fi.Mode()&os.ModeDevice != 0 {
			return 0, fmt.Errorf("--size %s: %s is a block device, whose size is its own; give BLOCK-COUNT to use only part of it", c.String("size"), r.path)
		}
		if exists && fi.Mode().IsRegular() && fi.Size() > size {
			return 0, fmt.Errorf("--size %s: %s already holds %d bytes and fmkfs does not shrink files; truncate it first, or give BLOCK-COUNT %d to make the file system that size", c.String("size"), r.path, fi.Size(), size/1024)
		}
	case !exists && r.blocks != 0:
		size = r.off + r.blocks
	case !exists:
		return 0, fmt.Errorf("%s does not exist: give --size to create an image file", r.path)
	default:
		return 0, nil
	}
	if size <= r.off {
		return 0, fmt.Errorf("--size %s leaves no room after offset %d", c.String("size"), r.off)
	}
	pp := r.p
	pp.Size = size - r.off
	if r.blocks != 0 {
		if r.blocks > pp.Size {
			return 0, fmt.Errorf("BLOCK-COUNT %d (%d bytes) is more than the %d bytes after offset %d; give a smaller count or a larger --size", r.blocks/1024, r.blocks, pp.Size, r.off)
		}
		pp.Size = r.blocks
	}
	if r.table.kind != "" {
		t := r.table
		if t.sd != nil {
			sd := *t.sd
			t.sd = &sd
		}
		if t.x != nil {
			x := *t.x
			t.x = &x
		}
		if _, err := planTable(size, 512, &t, &pp); err != nil {
			return 0, err
		}
	} else if r.exfat {
		x := *r.x
		x.Size, x.PartitionOffset = pp.Size, r.off
		if _, _, err := exfat.Plan(x); err != nil {
			return 0, err
		}
		if err := r.from.exfatFits(x); err != nil {
			return 0, err
		}
	} else {
		if pp.SectorSize == 0 {
			pp.SectorSize = 512
		}
		if _, _, err := fat.Plan(pp); err != nil {
			return 0, err
		}
		if err := r.from.fatFits(pp); err != nil {
			return 0, err
		}
	}
	if exists && fi.Mode().IsRegular() && size > fi.Size() && r.table.kind == "" {
		if err := refuseGrowingDisk(r, c.String("size")); err != nil {
			return 0, err
		}
	}
	return size, nil
}

// inDev reports whether path lies in /dev, where devices live and image
// files do not belong (but for /dev/shm, the RAM disk where they may).
func inDev(path string) bool {
	abs, err := filepath.Abs(path)
	return err == nil && strings.HasPrefix(abs, "/dev/") && !strings.HasPrefix(abs, "/dev/shm/")
}

// refuseGrowingDisk refuses to extend an image file that holds a partition
// table (when no new table is asked for): its partitions would not grow
// with it, and a GPT's backup header would no longer end the disk, so the
// table would be left damaged. Only --force for the whole disk, which
// formats over the table, may grow it.
func refuseGrowingDisk(r *request, size string) error {
	pt, err := fio.ReadPartitions(r.path)
	if err != nil || len(pt.Partitions) == 0 || r.o.Force && r.o.Partition == 0 && r.off == 0 {
		return nil
	}
	why := "its partitions would not grow with it"
	if pt.Kind == "gpt" {
		why = "its partitions would not grow with it, and the GPT's backup header would no longer end the disk"
	}
	return fmt.Errorf("--size %s: %s, and fmkfs does not grow it: %s; grow it with truncate and sfdisk first, or give --table to write a new table",
		size, describeDisk(r.path, pt), why)
}

// confirmReplace lets a new table replace the one a block device holds,
// or one an image file holds with a file system in a partition: asked once
// on a terminal, else only with --force. An image whose table holds no
// file system yet (made by sfdisk for fmkfs to fill, say) is replaced
// without asking, as a new or empty one is.
func confirmReplace(c *cli.Context, r *request, stderr io.Writer) error {
	if r.o.Force {
		return nil
	}
	fi, err := os.Stat(r.path)
	if err != nil {
		return nil
	}
	pt, err := fio.ReadPartitions(r.path)
	if errors.Is(err, fio.ErrNoPartition) || err == nil && len(pt.Partitions) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeDevice == 0 && !holdsFileSystem(r.path, pt) {
		r.o.Force = true // the table's partitions hold nothing to lose
		return nil
	}
	desc := describeDisk(r.path, pt)
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		if r.table.sd != nil {
			return fmt.Errorf("%s; a new table erases all of it: give --force to go ahead", desc)
		}
		return fmt.Errorf("%s; a new table erases all of it: give --force to go ahead, or --partition N without --table to format one of its partitions", desc)
	}
	fmt.Fprintf(stderr, "fmkfs: %s; erase all of it and write a new %s table? [y/N] ", desc, strings.ToUpper(r.table.kind))
	answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return cmdutil.Exit(1, fmt.Errorf("left %s unchanged", r.path))
	}
	r.o.Force = true
	return nil
}

// holdsFileSystem reports whether a partition of the table holds a file
// system that probeFS knows.
func holdsFileSystem(path string, pt *fio.PartitionTable) bool {
	for _, p := range pt.Partitions {
		if fs, _ := probeFS(path, p.Index); fs != "" {
			return true
		}
	}
	return false
}

// describeDisk names the device, its size and what is on it: the table
// and each partition with its size, file system and label.
func describeDisk(path string, pt *fio.PartitionTable) string {
	var size int64
	if d, err := fio.Open(path, fio.Options{NoLock: true, Buffered: true}); err == nil {
		size = d.DiskSize()
		d.Close()
	}
	parts := make([]string, 0, len(pt.Partitions))
	for _, p := range pt.Partitions {
		s := fmt.Sprintf("%d (%s", p.Index, cmdutil.HumanSize(p.Size))
		if fs, label := probeFS(path, p.Index); fs != "" {
			s += ", " + fs
			if label != "" {
				s += fmt.Sprintf(" %q", label)
			}
		}
		parts = append(parts, s+")")
	}
	word := "partitions"
	if len(parts) == 1 {
		word = "partition"
	}
	return fmt.Sprintf("%s (%s) holds %s with %s %s", path, cmdutil.HumanSize(size), pt.Named(), word, strings.Join(parts, ", "))
}

// probeFS names the file system at the start of partition n and its label,
// for the FAT, exFAT, NTFS and ext2/3/4 that cards and disks carry.
func probeFS(path string, n int) (fs, label string) {
	d, err := fio.Open(path, fio.Options{NoLock: true, Buffered: true, Partition: n})
	if err != nil {
		return "", ""
	}
	defer d.Close()
	b := make([]byte, min(d.Size(), 4096))
	if len(b) < 2048 {
		return "", ""
	}
	if _, err := d.ReadAt(b, 0); err != nil {
		return "", ""
	}
	if t, label, err := vol.ProbeBootSector(b); err == nil && t != "exFAT" {
		return t, label
	}
	switch {
	case string(b[3:11]) == "EXFAT   ":
		return "exFAT", ""
	case string(b[3:11]) == "NTFS    ":
		return "NTFS", ""
	case binary.LittleEndian.Uint16(b[1024+0x38:]) == 0xEF53:
		return "ext2/3/4", strings.TrimRight(string(b[1024+0x78:1024+0x88]), "\x00")
	}
	return "", ""
}
