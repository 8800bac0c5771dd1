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
		&cli.BoolFlag{Name: cmdutil.FlagForce, Usage: "carry out a resize that a power cut could leave half done (fresize says which before it starts)"},
		&cli.BoolFlag{Name: cmdutil.FlagNoProgress, Usage: "never draw a progress bar"},
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
	dev, err := cmdutil.OpenImage(c, spec, !dry)
	if err != nil {
		return err
	}
	defer func() { dev.Close() }()
	path, _, _ := fio.ParseImageSpec(spec)
	// A whole image file without a table grows and shrinks with its volume.
	plain := !dev.IsBlockDevice() && dev.Start() == 0 && dev.DiskSize() == dev.Size()
	if size < 0 {
		size = dev.Size()
	}
	if size > dev.Size() && !plain {
		what := "partition"
		if dev.Start() == 0 {
			what = "device"
		}
		return fmt.Errorf("%s: %d bytes do not fit: the %s holds %d bytes from byte %d", spec, size, what, dev.Size(), dev.Start())
	}
	o := vol.ResizeOptions{Size: size, DryRun: dry, Force: c.Bool(cmdutil.FlagForce)}
	var bar *progressbar.ProgressBar
	o.Progress = func(done, total int64) {
		if bar == nil {
			if bar = cmdutil.NewBar(c, stderr, total, "moving"); bar == nil {
				o.Progress = nil
				return
			}
		}
		bar.Set64(done)
	}
	out := &output{Target: spec}
	oldFile := dev.Size()
	if plain && !dry && size > oldFile {
		// Make room first; a refusal takes it back.
		dev.Close()
		if err := fio.CreateImage(path, size); err != nil {
			return err
		}
		if dev, err = cmdutil.OpenImage(c, spec, true); err != nil {
			os.Truncate(path, oldFile)
			return err
		}
		out.FileSize = size
	}
	plan, err := vol.Resize(dev, o)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	if cerr := dev.Close(); err == nil && cerr != nil && !errors.Is(cerr, fio.ErrClosed) {
		err = cerr
	}
	out.ResizePlan = plan
	switch {
	case err != nil && out.FileSize != 0 && refused(err):
		// Nothing was written: the image is as it was.
		os.Truncate(path, oldFile)
		out.FileSize = 0
	case err == nil && plain && !dry && plan.NewSize < oldFile:
		if terr := os.Truncate(path, plan.NewSize); terr != nil {
			err = fmt.Errorf("the volume was shrunk, but shortening the image file failed: %w", terr)
		} else {
			out.FileSize = plan.NewSize
		}
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", spec, err)
		if errors.Is(err, vol.ErrDamaged) {
			err = cmdutil.Exit(exitDamaged, err)
		}
		return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, err)
	}
	if !c.Bool(cmdutil.FlagJSON) {
		printPlan(stdout, spec, plan, out.FileSize)
	}
	return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, nil)
}

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
