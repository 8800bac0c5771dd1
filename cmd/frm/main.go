// Command frm removes files (and with -r, directory trees) from FAT images,
// like mdel, mdeltree and rm, with mtools' addressing and wildcards.
package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"r", "R"}, Usage: "remove directories and everything in them"},
		cmdutil.VerboseFlag("name each path on stderr as it is removed (as rm -v and mdel -v)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("frm", "remove files and directory trees from FAT and exFAT images",
		"frm [flags] ::/PATH...\n\n"+cmdutil.AddressingHelp+"\n"+cmdutil.WildcardHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		recursive := c.Bool("recursive")
		each := cmdutil.Each{Name: "frm", Verb: "removed", Glob: true, Write: true}
		return cmdutil.EachOperand(c, stdout, stderr, each, func(v vol.Volume, op cmdutil.Operand) error {
			fail := func(err error) error {
				return fmt.Errorf("cannot remove %s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
			}
			if op.Path == "." {
				return fail(fmt.Errorf("it is the root directory"))
			}
			fi, err := v.Stat(op.VolPath())
			if err != nil {
				return fail(err)
			}
			if fi.IsDir() {
				if !recursive {
					return fail(fmt.Errorf("is a directory (give -r to remove it and its contents)"))
				}
				err = v.RemoveAll(op.VolPath())
			} else {
				err = v.Remove(op.VolPath())
			}
			if err != nil {
				return fail(err)
			}
			return nil
		})
	}
	return cmdutil.Run(app, args)
}
