// Command ffallocate gives a file in a FAT image its clusters up front, as
// one contiguous run where possible, like fallocate(1).
package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "length", Aliases: []string{"l"}, Required: true, Usage: "allocate `LENGTH` bytes (K, M, G: powers of 1024; KB, MB, GB: of 1000)"},
		&cli.BoolFlag{Name: "keep-size", Aliases: []string{"n"}, Usage: "allocate past the end without changing the file's size"},
		&cli.BoolFlag{Name: "no-zero", Usage: "do not zero the new clusters (their old contents become readable in the file)"},
		cmdutil.ImageFlag(),
		cmdutil.VerboseFlag("also list each allocated run of clusters and where it lies"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("ffallocate", "preallocate clusters for a file in a FAT image",
		"ffallocate [flags] -l LENGTH (-i IMAGE ::/path | IMAGE::/path)\n\nA file that does not exist is created. A wildcard in the last element must\nmatch one existing file.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
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
	if length > fat.MaxFileSize {
		return fmt.Errorf("--length %s: %w", c.String("length"), fat.ErrFileTooLarge)
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
	ops, _, err := cmdutil.Expand(im.Vol, op)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return fmt.Errorf("%s matches %d files: ffallocate allocates one", cmdutil.Quote(op.Raw), len(ops))
	}
	op = ops[0]
	noZero := c.Bool("no-zero")
	res, err := im.Vol.Fallocate(op.VolPath(), length, fat.FallocateOptions{KeepSize: c.Bool("keep-size"), NoZero: noZero})
	if err != nil {
		return fmt.Errorf("cannot allocate %s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
	}
	if err := imgs.Close(); err != nil {
		return err
	}
	l := im.Vol.Layout()
	out := &result{Path: op.Show(op.Path), Size: res.Size, Created: res.Created, Runs: []runOut{}}
	for _, e := range res.Extents {
		out.Runs = append(out.Runs, runOut{Start: uint32(e.Start), Clusters: e.Len, Offset: l.ClusterOffset(e.Start)})
		out.Allocated += int64(e.Len) * l.ClusterSize
	}
	if noZero && len(res.Extents) > 0 {
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
