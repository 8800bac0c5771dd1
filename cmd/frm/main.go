// Command frm removes files (and with -r, directory trees) from FAT images,
// like mdel, mdeltree and rm, with mtools' addressing.
package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"r", "R"}, Usage: "remove directories and everything in them"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("frm", "remove files and directory trees from FAT images",
		"frm [flags] ::/PATH...\n\n"+cmdutil.AddressingHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		recursive := c.Bool("recursive")
		return cmdutil.EachOperand(c, "frm", stdout, stderr, func(v *fat.Volume, op cmdutil.Operand) error {
			if op.Path == "." {
				return fmt.Errorf("cannot remove '%s': it is the root directory", op.Show(op.Path))
			}
			fi, err := v.Stat(op.VolPath())
			if err != nil {
				return fmt.Errorf("cannot remove '%s': %w", op.Show(op.VolPath()), cmdutil.UnwrapPath(err))
			}
			if fi.IsDir() {
				if !recursive {
					return fmt.Errorf("cannot remove '%s': is a directory (give -r to remove it and its contents)", op.Show(op.Path))
				}
				err = v.RemoveAll(op.VolPath())
			} else {
				err = v.Remove(op.VolPath())
			}
			if err != nil {
				return fmt.Errorf("cannot remove '%s': %w", op.Show(op.Path), cmdutil.UnwrapPath(err))
			}
			return nil
		})
	}
	return app.Run(args)
}
