// Command ffallocate gives a file in a FAT image its clusters up front, as
// one contiguous run where possible, like fallocate(1).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "length", Aliases: []string{"l"}, Usage: "allocate `LENGTH` bytes (K, M, G: powers of 1024; KB, MB, GB: of 1000)"},
		&cli.BoolFlag{Name: "keep-size", Aliases: []string{"n"}, Usage: "allocate past the end without changing the file's size"},
		&cli.BoolFlag{Name: "no-zero", Usage: "do not zero the new clusters (FAT: their old contents become readable in the file; exFAT: they stay hidden past the valid data length, which is not raised, and read as zeros)"},
		cmdutil.ImageFlag(),
		cmdutil.VerboseFlag("also list each allocated run of clusters and where it lies"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("ffallocate", "preallocate clusters for a file in a FAT or exFAT image",
		"ffallocate [flags] -l LENGTH (-i IMAGE ::/path | IMAGE::/path)\n\nA file that does not exist is created. A wildcard in the last element must\nmatch one existing file.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		// Checked here, not with the flag's Required: urfave/cli prints
		// the whole help on stdout before that error, which breaks --json.
		if !c.IsSet("length") {
			return fmt.Errorf("missing --length: required (see '%s --help')", c.App.Name)
		}
		return fallocate(c, c.Args().First(), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// runOut is one allocated run, for output.
type runOut struct {
	Start    uint32 `json:"start"`
	Clusters uint32 `json:"clusters"`
	Offset   int64  `json:"offset"` // byte offset of the run in the volume
}

type result struct {
	Path      string   `json:"path"`
	Size      int64    `json:"size"`
	Allocated int64    `json:"allocated_bytes"`
	Created   bool     `json:"created"`
	Runs      []runOut `json:"runs"`
	cmdutil.Outcome
}

func fallocate(c *cli.Context, arg string, stdout, stderr io.Writer) error {
	length, err := fio.ParseSize(c.String("length"))
	if err != nil {
		return fmt.Errorf("--length: %w", err)
	}
	op, err := cmdutil.ImageOperand(c, arg)
	if err != nil {
		return err
	}
	if op.Path == "." {
		return errors.New("give a file path inside the image, not its root")
	}
	imgs := cmdutil.Images{}
	defer imgs.Close()
	im, err := imgs.Open(c, op.Image, true)
	if err != nil {
		return err
	}
	if err := fitsFormat(c, im, length); err != nil {
		return err
	}
	ops, _, err := cmdutil.Expand(im.Vol, op)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return fmt.Errorf("%s matches %d files: ffallocate allocates one", cmdutil.Quote(op.Raw), len(ops))
	}
	op = ops[0]
	if op.Path, err = cmdutil.StoreName(stderr, "ffallocate", im.Vol, op, op.Path, false); err != nil {
		return fmt.Errorf("cannot allocate %s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
	}
	noZero := c.Bool("no-zero")
	res, err := im.Vol.Fallocate(op.VolPath(), length, vol.FallocateOptions{KeepSize: c.Bool("keep-size"), NoZero: noZero})
	if err != nil {
		// Name the file as the user did (::/d/big.bin), and the part of
		// its path at fault when that is another (a missing folder).
		what := cmdutil.Quote(op.Show(op.VolPath()))
		var pe *fs.PathError
		if errors.As(err, &pe) && path.Clean("/"+pe.Path) != path.Clean("/"+op.VolPath()) {
			return fmt.Errorf("cannot allocate %s: %s: %s", what, cmdutil.Quote(op.Show(pe.Path)), cmdutil.ErrText(pe.Err))
		}
		return fmt.Errorf("cannot allocate %s: %s", what, cmdutil.ErrText(err))
	}
	if err := imgs.Close(); err != nil {
		return err
	}
	out := &result{Path: op.Show(op.Path), Size: res.Size, Created: res.Created, Runs: []runOut{}}
	for _, e := range res.Runs {
		out.Runs = append(out.Runs, runOut{Start: e.Start, Clusters: e.Len, Offset: im.Vol.ClusterOffset(e.Start)})
		out.Allocated += int64(e.Len) * im.Vol.ClusterSize()
	}
	if noZero && len(res.Runs) > 0 && !vol.IsExFATVolume(im.Vol) {
		cmdutil.Warn(stderr, "ffallocate", "warning: --no-zero: the new clusters' old contents are now readable in the file")
	}
	if !c.Bool(cmdutil.FlagJSON) {
		fmt.Fprintf(stdout, "%s: size %d, allocated %d bytes in %s\n", out.Path, out.Size, out.Allocated, cmdutil.Plural(len(out.Runs), "run"))
		for _, r := range out.Runs {
			if c.Bool(cmdutil.FlagVerbose) {
				fmt.Fprintf(stdout, "  clusters %d-%d (%d), at byte %d\n", r.Start, r.Start+r.Clusters-1, r.Clusters, r.Offset)
			}
		}
	}
	return cmdutil.Finish(c, stdout, stderr, out, imgs.Stats, nil)
}

// fitsFormat refuses what the volume's format cannot hold: a FAT file
// over 4 GiB - 1, and on exFAT, clusters past a file's end.
func fitsFormat(c *cli.Context, im *cmdutil.Image, length int64) error {
	if err := vol.FileSizeError(im.Vol, length); err != nil {
		return fmt.Errorf("--length %s: %w", c.String("length"), err)
	}
	if vol.IsExFATVolume(im.Vol) && c.Bool("keep-size") {
		return errors.New("--keep-size: an exFAT file's clusters are as many as its size needs, so none can lie past its end; without -n the file takes LENGTH bytes and reads as zeros past what was written (its valid data length stays)")
	}
	return nil
}
