// Command frmdir removes empty directories from FAT images, like mrd and
// rmdir, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path) and
// wildcards.
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
		cmdutil.VerboseFlag("name each directory on stderr as it is removed (as rmdir -v)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("frmdir", "remove empty directories from FAT and exFAT images",
		"frmdir [flags] ::/DIR...\n\n"+cmdutil.AddressingHelp+" Use frm -r for directories that are not empty.\n"+cmdutil.WildcardHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		each := cmdutil.Each{Name: "frmdir", Verb: "removed directory", Glob: true, Write: true}
		return cmdutil.EachOperand(c, stdout, stderr, each, func(v vol.Volume, op cmdutil.Operand) error {
			fail := func(err error) error {
				return fmt.Errorf("failed to remove %s: %s", cmdutil.Quote(op.Show(op.Path)), cmdutil.ErrText(err))
			}
			if op.Path == "." {
				return fail(fmt.Errorf("it is the root directory"))
			}
			fi, err := v.Stat(op.VolPath())
			if err != nil {
				return fail(err)
			}
			if !fi.IsDir() {
				return fail(vol.ErrNotDir)
			}
			if err := v.Remove(op.VolPath()); err != nil {
				return fail(err)
			}
			return nil
		})
	}
	return cmdutil.Run(app, args)
}
