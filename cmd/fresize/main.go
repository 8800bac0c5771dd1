// Command fresize grows or shrinks a FAT12, FAT16, FAT32 or exFAT volume
// in place, in an image file, a partition or a block device that is not
// mounted: shrinking moves the clusters past the new end into free space
// below it, growing extends the volume into the room after it. An image
// file without a partition table grows and shrinks with its volume.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Exit statuses.
const (
	exitFailed  = 1 // refused (too small, type limits, not crash-safe) or failed
	exitDamaged = 4 // refused: the volume is damaged or dirty (fverify's status for problems)
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan (clusters to move, FAT size, new layout) and change nothing (opens the volume read-only)"},
		&cli.BoolFlag{Name: cmdutil.FlagForce, Usage: "carry out a resize that a power cut could leave half done without asking (fresize says which before it starts; on a terminal it asks, elsewhere it refuses without --force)"},
		&cli.BoolFlag{Name: cmdutil.FlagNoProgress, Usage: "never draw a progress bar"},
		&cli.StringFlag{Name: "undo", Usage: "write `FILE` (which must not exist) with the bytes a resize that is not crash-safe overwrites, before it overwrites them; growing FATs past their spare sectors needs it (and a yes on a terminal, or --force)"},
		&cli.StringFlag{Name: "undo-apply", Usage: "put back the volume an undo `FILE` saved, after a cut during such a resize (fresize --undo-apply FILE TARGET)"},
		&cli.BoolFlag{Name: "resize-partition", Usage: "move the end of the volume's MBR or GPT partition too (never over the next one; an image file that holds the table grows when its last partition does, and a GPT's backup moves to its end)"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `fresize [flags] TARGET SIZE|max

TARGET is an image file or block device holding a FAT12, FAT16, FAT32 or
exFAT volume that is not mounted (IMAGE@@OFFSET, or --partition N of a
disk). SIZE is the volume's new size in bytes (` + fio.SizeHelp + `);
max grows it to the end of its partition, image file or device. fresize
checks the volume as fverify does and refuses a damaged or dirty one.
Shrinking moves the clusters past the new end into free space below it
and refuses, naming why, when the data does not fit; growing extends the
FATs (and exFAT's bitmap). An image file without a partition table is
extended before it grows and shortened after it shrinks. The new boot
sector is written last: a power cut leaves the old volume or the new one.`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fresize", "grow or shrink a FAT or exFAT volume in place", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if u := c.String("undo-apply"); u != "" {
			if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
				return err
			}
			return applyUndo(c, u, c.Args().First(), stdout, stderr)
		}
		if err := cmdutil.NeedArgs(c, 2, 2); err != nil {
			return err
		}
		return resizeTarget(c, c.Args().Get(0), c.Args().Get(1), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// output is --json's object.
type output struct {
	Target string `json:"target"`
	*vol.ResizePlan
	// FileSize is the image file's new size, when fresize extended or
	// shortened it (0: it did not).
	FileSize int64 `json:"file_size,omitempty"`
	// Partition and PartitionSize are the partition whose end
	// --resize-partition moved, and its new size in bytes.
	Partition     int   `json:"partition,omitempty"`
	PartitionSize int64 `json:"partition_size,omitempty"`
	// MaxLimit is, for max, the room there was when the FAT cannot count
	// that far: the volume grew to the largest size the FAT counts.
	MaxLimit int64 `json:"max_limit,omitempty"`
	cmdutil.Outcome
}

// parseSize reads SIZE: bytes, or max (-1).
func parseSize(s string) (int64, error) {
	if strings.EqualFold(s, "max") {
		return -1, nil
	}
	n, err := fio.ParseSize(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("SIZE %q: want a size in bytes (%s) or max", s, fio.SizeHelp)
	}
	return n, nil
}

func resizeTarget(c *cli.Context, spec, sizeArg string, stdout, stderr io.Writer) error {
	size, err := parseSize(sizeArg)
	if err != nil {
		return err
	}
	dry := c.Bool("dry-run")
	t := &target{c: c, spec: spec, resizePart: c.Bool("resize-partition")}
	out := &output{Target: spec}
	var stats fio.Stats
	plan, err := t.resize(size, dry, &stats, out, stderr)
	out.ResizePlan = plan
	statsFn := func() fio.Stats { return stats }
	if err != nil {
		var tle *vol.TypeLimitError
		if errors.As(err, &tle) {
			err = typeLimitAdvice(c, spec, tle)
		}
		err = fmt.Errorf("%s: %w", spec, err)
		if errors.Is(err, vol.ErrDamaged) {
			err = cmdutil.Exit(exitDamaged, err)
		}
		return cmdutil.Finish(c, stdout, stderr, out, statsFn, err)
	}
	if !c.Bool(cmdutil.FlagJSON) {
		printPlan(stdout, spec, plan, out.FileSize)
		if out.MaxLimit != 0 {
			fmt.Fprintf(stdout, "  max: %d bytes, the largest size the FAT can count (the room is %d bytes; going further would move the data area or cluster heap)\n", plan.NewSize, out.MaxLimit)
		}
		if out.PartitionSize != 0 {
			fmt.Fprintf(stdout, "  partition %d: %d bytes\n", out.Partition, out.PartitionSize)
		}
	}
	return cmdutil.Finish(c, stdout, stderr, out, statsFn, nil)
}

// target is what fresize resizes: the volume, and the image file or
// partition that holds it.
type target struct {
	c          *cli.Context
	spec, path string
	resizePart bool
	plain      bool  // a whole image file without a table
	fileSize   int64 // the image file's size before
	part       int   // the partition (--resize-partition), from 1
	partStart  int64
	limit      int64 // where the partition may end at most
	atEnd      bool  // limit is the disk's end
	ss         int64 // the table's sector size
}

// resize plans (checking the volume), makes room (a longer image file, a
// later partition end), resizes, then gives back room (a shorter image
// file, an earlier partition end). The plan and the resize run on one
// device, opened for writing (read-only for a dry run), so that the
// volume is checked once, unless room must be made in between: then the
// device is opened again, and the volume checked again.
func (t *target) resize(size int64, dry bool, stats *fio.Stats, out *output, stderr io.Writer) (*vol.ResizePlan, error) {
	dev, err := t.open(!dry)
	if err != nil {
		return nil, err
	}
	t.path, _, _ = fio.ParseImageSpec(t.spec)
	t.plain = !dev.IsBlockDevice() && dev.Start() == 0 && dev.DiskSize() == dev.Size()
	t.fileSize = dev.DiskSize()
	if t.resizePart {
		if err := t.findPartition(dev); err != nil {
			dev.Close()
			return nil, err
		}
	}
	room := dev.Size()
	if t.resizePart {
		room = t.limit - t.partStart
	}
	maxAsked := size < 0
	switch {
	case maxAsked:
		size = room
	case size > room && t.plain:
	case size > room && t.resizePart && t.atEnd && !dev.IsBlockDevice():
		// The image file grows to hold the partition (and a GPT's backup).
	case size > room && t.resizePart:
		dev.Close()
		return nil, fmt.Errorf("%d bytes do not fit: partition %d may end at byte %d at most (the next partition or the disk's end), which leaves it %d bytes", size, t.part, t.limit, room)
	case size > room:
		dev.Close()
		return nil, fmt.Errorf("%d bytes do not fit: the partition or device holds %d bytes from byte %d; --resize-partition moves a partition's end", size, room, dev.Start())
	}
	asked := size
	undoPath := t.c.String("undo")
	dryOpts := vol.ResizeOptions{Size: size, DryRun: true, Force: t.c.Bool(cmdutil.FlagForce)}
	if undoPath != "" {
		dryOpts.Undo = io.Discard
	}
	plan, err := vol.Resize(dev, dryOpts)
	var full *vol.FATFullError
	if maxAsked && errors.As(err, &full) {
		// max: as far as the FAT can count, short of moving the data area.
		size, dryOpts.Size = full.Largest, full.Largest
		out.MaxLimit = room
		plan, err = vol.Resize(dev, dryOpts)
	}
	closeDev := func() {
		*stats = stats.Add(dev.Stats())
		dev.Close()
	}
	if err != nil || dry {
		closeDev()
		return plan, err
	}
	if plan.Unsafe != "" && !dryOpts.Force {
		if !cmdutil.CanAsk(os.Stdin, stderr) {
			closeDev()
			return plan, fmt.Errorf("%s: %w; give --force to resize all the same (there is no terminal to ask on)", plan.Unsafe, vol.ErrUnsafe)
		}
		fmt.Fprintf(stderr, "fresize: %s: not crash-safe: %s\n", t.spec, plan.Unsafe)
		if !cmdutil.Confirm(os.Stdin, stderr, fmt.Sprintf("fresize: write the undo file %s and resize all the same?", undoPath)) {
			closeDev()
			return plan, fmt.Errorf("left unchanged, as answered: %w", vol.ErrUnsafe)
		}
		dryOpts.Force = true
	}
	grow := plan.NewSize > plan.OldSize
	if grow && (t.resizePart || t.plain && plan.NewSize > t.fileSize) {
		// The device's window grows: make room, then open it again.
		closeDev()
		if err := t.makeRoom(plan.NewSize, min(asked, room), stats, out); err != nil {
			return plan, err
		}
		if dev, err = t.open(true); err != nil {
			return plan, err
		}
	}
	o := vol.ResizeOptions{Size: size, Force: dryOpts.Force}
	if plan.Unsafe != "" {
		f, err := os.OpenFile(undoPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			dev.Close()
			return plan, fmt.Errorf("--undo: %w", err)
		}
		defer f.Close()
		o.Undo = f
	}
	var bar *progressbar.ProgressBar
	o.Progress = func(done, total int64) {
		if bar == nil {
			if bar = cmdutil.NewBar(t.c, stderr, total, "moving"); bar == nil {
				o.Progress = nil
				return
			}
		}
		bar.Set64(done)
	}
	plan, err = vol.Resize(dev, o)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	if cerr := dev.Close(); err == nil && cerr != nil && !errors.Is(cerr, fio.ErrClosed) {
		err = cerr
	}
	*stats = stats.Add(dev.Stats())
	switch {
	case err != nil && grow && t.plain && refused(err):
		// Nothing was written: the image is as it was.
		os.Truncate(t.path, t.fileSize)
		out.FileSize = 0
	case err == nil && !grow:
		err = t.giveBack(plan.NewSize, stats, out)
	}
	return plan, err
}

// open opens the target. fresize's --force overrides its refusal of a
// resize that is not crash-safe, not the choice of a disk's partition:
// the shared flags read it as "use the whole disk", so it is off while
// the target opens.
func (t *target) open(write bool) (*fio.Device, error) {
	if force := t.c.Bool(cmdutil.FlagForce); force {
		t.c.Set(cmdutil.FlagForce, "false")
		defer t.c.Set(cmdutil.FlagForce, "true")
	}
	return cmdutil.OpenImage(t.c, t.spec, write)
}

// findPartition finds the partition dev was opened on, and its room.
func (t *target) findPartition(dev *fio.Device) error {
	if t.plain || dev.Start() == 0 {
		return errors.New("--resize-partition: the target is not a partition of a disk with an MBR or GPT table")
	}
	pt, err := fio.ReadPartitions(t.path)
	if err != nil {
		return err
	}
	for _, p := range pt.Partitions {
		if p.Start == dev.Start() && p.Size > 0 {
			t.part = p.Index
		}
	}
	if t.part == 0 {
		return fmt.Errorf("--resize-partition: no partition starts at byte %d (an @@OFFSET inside a partition cannot be resized with it)", dev.Start())
	}
	t.ss = int64(pt.SectorSize)
	disk, err := fio.Open(t.path, fio.Options{NoLock: true, Buffered: true})
	if err != nil {
		return err
	}
	defer disk.Close()
	t.partStart, t.limit, t.atEnd, err = fio.PartitionRoom(disk, t.part)
	return err
}

// makeRoom extends a plain image file to the volume's new size, or moves
// the partition's end (growing an image file that holds the table first
// when the partition is its last).
func (t *target) makeRoom(newSize, asked int64, stats *fio.Stats, out *output) error {
	if t.plain {
		if newSize > t.fileSize {
			if err := fio.CreateImage(t.path, newSize); err != nil {
				return err
			}
			out.FileSize = newSize
		}
		return nil
	}
	if !t.resizePart {
		return nil
	}
	partSize := max(asked/t.ss*t.ss, (newSize+t.ss-1)/t.ss*t.ss)
	if end := t.partStart + partSize; end > t.limit {
		disk := end + (t.fileSize/t.ss*t.ss - t.limit)
		if err := fio.CreateImage(t.path, disk); err != nil {
			return err
		}
		out.FileSize = disk
	}
	return t.setPartition(partSize, stats, out)
}

// giveBack shortens a plain image file to the volume's new size, or moves
// the partition's end back to the volume's.
func (t *target) giveBack(newSize int64, stats *fio.Stats, out *output) error {
	switch {
	case t.plain && newSize < t.fileSize:
		if err := os.Truncate(t.path, newSize); err != nil {
			return fmt.Errorf("the volume was shrunk, but shortening the image file failed: %w", err)
		}
		out.FileSize = newSize
	case t.resizePart:
		return t.setPartition((newSize+t.ss-1)/t.ss*t.ss, stats, out)
	}
	return nil
}

// setPartition moves the partition's end so that it holds size bytes.
func (t *target) setPartition(size int64, stats *fio.Stats, out *output) error {
	o, err := cmdutil.DeviceOptions(t.c, true)
	if err != nil {
		return err
	}
	o.Partition, o.Offset, o.Force = 0, 0, true
	disk, err := cmdutil.Open(t.path, o)
	if err != nil {
		return err
	}
	err = fio.ResizePartition(disk, t.part, size)
	if cerr := disk.Close(); err == nil {
		err = cerr
	}
	*stats = stats.Add(disk.Stats())
	if err == nil {
		out.Partition, out.PartitionSize = t.part, size
	}
	return err
}

// typeLimitAdvice words a refusal at the type's limits with the commands
// that would work: a resize to the nearest size the layout holds, or, as
// fresize changes neither cluster size nor type, making the file system
// again with what fits the size asked for.
func typeLimitAdvice(c *cli.Context, spec string, e *vol.TypeLimitError) error {
	part := ""
	if n := c.Int(cmdutil.FlagPartition); n != 0 {
		part = fmt.Sprintf("--partition %d ", n)
	}
	msg := fmt.Sprintf("resize to %d bytes: %s; nothing was changed", e.Asked, e.Why)
	if e.Nearest > 0 {
		undo := ""
		if e.NearestMovesData {
			undo = "--force --undo FILE "
		}
		msg += fmt.Sprintf(". The nearest size this layout holds: fresize %s%s%s %d", undo, part, spec, e.Nearest)
	}
	if e.MakeType != "" {
		msg += fmt.Sprintf(". fresize does not change the cluster size or FAT type; a FAT%s file system with %d-byte clusters holds %d bytes, made again (which erases it: copy the files out first) with: fmkfs %s--fat %s --cluster-size %d --size %d %s",
			e.MakeType, e.MakeClusterSize, e.Asked, part, e.MakeType, e.MakeClusterSize, e.Asked, spec)
	}
	return typeLimitError(msg)
}

// typeLimitError is typeLimitAdvice's refusal: it matches
// vol.ErrTypeLimit.
type typeLimitError string

func (e typeLimitError) Error() string        { return string(e) }
func (e typeLimitError) Is(target error) bool { return target == vol.ErrTypeLimit }

// refused reports whether err is a refusal made before anything was
// written.
func refused(err error) bool {
	for _, e := range []error{vol.ErrDamaged, vol.ErrTooSmall, vol.ErrTypeLimit, vol.ErrUnsafe, vol.ErrFATFull} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// printPlan prints what was done, or with --dry-run what would be.
func printPlan(w io.Writer, spec string, p *vol.ResizePlan, fileSize int64) {
	verb := "resized"
	if p.DryRun {
		verb = "would resize"
	}
	if p.NewSize == p.OldSize {
		fmt.Fprintf(w, "%s: %s, %s (%d bytes) already: nothing to do\n", spec, p.Type, cmdutil.HumanSize(p.NewSize), p.NewSize)
		return
	}
	fmt.Fprintf(w, "%s: %s %s from %s (%d bytes, %d clusters) to %s (%d bytes, %d clusters of %d bytes)\n",
		spec, verb, p.Type, cmdutil.HumanSize(p.OldSize), p.OldSize, p.OldClusters,
		cmdutil.HumanSize(p.NewSize), p.NewSize, p.NewClusters, p.ClusterSize)
	if p.MoveClusters > 0 {
		fmt.Fprintf(w, "  moved: %d clusters (%s)\n", p.MoveClusters, cmdutil.HumanSize(p.MoveBytes))
	}
	if p.NewFATSectors != p.OldFATSectors {
		fmt.Fprintf(w, "  FAT: %d sectors, was %d\n", p.NewFATSectors, p.OldFATSectors)
	}
	if p.NewBitmapBytes != p.OldBitmapBytes {
		fmt.Fprintf(w, "  bitmap: %d bytes, was %d\n", p.NewBitmapBytes, p.OldBitmapBytes)
	}
	if p.Unsafe != "" {
		fmt.Fprintf(w, "  not crash-safe: %s\n", p.Unsafe)
	}
	if p.DryRun {
		for i, s := range p.Steps {
			fmt.Fprintf(w, "  %d. %s\n", i+1, s)
		}
	}
	if fileSize != 0 {
		fmt.Fprintf(w, "  image file: %d bytes\n", fileSize)
	}
}

// applyUndo puts back the volume an undo file saved.
func applyUndo(c *cli.Context, file, spec string, stdout, stderr io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("--undo-apply: %w", err)
	}
	defer f.Close()
	dev, err := cmdutil.OpenImage(c, spec, true)
	if err != nil {
		return err
	}
	n, err := vol.ApplyUndo(dev, f)
	if cerr := dev.Close(); err == nil && cerr != nil {
		err = cerr
	}
	out := &undoOutput{Target: spec, Undo: file, Records: n}
	if err != nil {
		return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, fmt.Errorf("%s: %w", spec, err))
	}
	if !c.Bool(cmdutil.FlagJSON) {
		fmt.Fprintf(stdout, "%s: put back %d records from %s; run fverify\n", spec, n, file)
	}
	return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, nil)
}

// undoOutput is --undo-apply's --json object.
type undoOutput struct {
	Target  string `json:"target"`
	Undo    string `json:"undo"`
	Records int    `json:"records"`
	cmdutil.Outcome
}
