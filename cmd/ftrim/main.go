// Command ftrim discards the free clusters of a FAT or exFAT volume that
// is not mounted, as fstrim does for a mounted one: BLKDISCARD on a block
// device (a card or stick regains its write speed), a punched hole in an
// image file (the image shrinks to what it holds).
package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// exitFailed: nothing or not everything could be discarded. A damaged
// volume's refusal exits with cmdutil.ExitDamaged.
const exitFailed = 1

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "minimum", Aliases: []string{"m"}, Usage: "discard only runs of free clusters of at least `SIZE` bytes (" + fio.SizeHelp + "), as fstrim --minimum (default: every run)"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "find the free runs and say what would be discarded, without discarding (opens the volume read-only)"},
		cmdutil.VerboseFlag("list each run of free clusters discarded (cluster, count, byte offset)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `ftrim [flags] TARGET

TARGET is an image file or block device holding a FAT or exFAT volume that
is not mounted (IMAGE@@OFFSET, or --partition N of a disk). ftrim checks the
volume as fverify does and refuses a damaged one, then discards every run of
clusters that is free (in every FAT copy, or in exFAT's bitmap and in no
chain): BLKDISCARD on a block device, a punched hole in an image file.`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("ftrim", "discard the free clusters of a FAT or exFAT volume (fstrim for an unmounted card or image)", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		return trim(c, c.Args().First(), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// output is --json's object.
type output struct {
	Target string `json:"target"`
	*vol.TrimResult
	cmdutil.Outcome
}

func trim(c *cli.Context, spec string, stdout, stderr io.Writer) error {
	var o vol.TrimOptions
	if s := c.String("minimum"); s != "" {
		n, err := fio.ParseSize(s)
		if err != nil || n < 0 {
			return fmt.Errorf("--minimum %q: want a size in bytes (%s)", s, fio.SizeHelp)
		}
		o.Minimum = n
	}
	o.DryRun = c.Bool("dry-run")
	dev, err := cmdutil.OpenImage(c, spec, !o.DryRun)
	if err != nil {
		return err
	}
	defer dev.Close()
	if c.Bool(cmdutil.FlagVerbose) && !c.Bool(cmdutil.FlagJSON) {
		o.Visit = func(start, n uint32, off, size int64) {
			fmt.Fprintf(stdout, "clusters %d-%d (%d), bytes %d-%d\n", start, start+n-1, n, off, off+size-1)
		}
	}
	res, err := vol.Trim(dev, o)
	err = cmdutil.CloseVolumeOp(dev, spec, err)
	out := &output{Target: spec, TrimResult: res}
	if err != nil {
		return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, err)
	}
	if res.Unsupported {
		err = cmdutil.Exit(exitFailed, fmt.Errorf("%s: the device does not support discard: nothing was discarded (%s free in %s)",
			spec, cmdutil.HumanSize(res.Bytes), cmdutil.Plural(res.Runs, "run")))
	} else if !c.Bool(cmdutil.FlagJSON) {
		fmt.Fprintln(stdout, summary(spec, res, dev.IsBlockDevice()))
	}
	return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, err)
}

// summary is the one line ftrim prints, as fstrim -v's.
func summary(spec string, res *vol.TrimResult, block bool) string {
	verb := "discarded"
	switch {
	case res.DryRun:
		verb = "would discard"
	case !block:
		verb = "punched out"
	}
	s := fmt.Sprintf("%s: %s, %s %s (%d bytes) in %s of free clusters", spec, res.Type, verb,
		cmdutil.HumanSize(res.Bytes), res.Bytes, cmdutil.Plural(res.Runs, "run"))
	if res.Skipped > 0 {
		s += fmt.Sprintf("; %s shorter than --minimum left (%s)", cmdutil.Plural(res.Skipped, "run"), cmdutil.HumanSize(res.SkippedBytes))
	}
	return s
}
