// Command frmdir removes empty directories from FAT images, like mrd and
// rmdir, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path).
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
	fl := []cli.Flag{cmdutil.ImageFlag()}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("frmdir", "remove empty directories from FAT images",
		"frmdir [flags] ::/DIR...\n\n"+cmdutil.AddressingHelp+" Use frm -r for directories that are not empty.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		return cmdutil.EachOperand(c, "frmdir", stdout, stderr, func(v *fat.Volume, op cmdutil.Operand) error {
			fail := func(err error) error {
				return fmt.Errorf("failed to remove '%s': %w", op.Show(op.Path), err)
			}
			if op.Path == "." {
				return fail(fmt.Errorf("it is the root directory"))
			}
			fi, err := v.Stat(op.VolPath())
			if err != nil {
				return fail(cmdutil.UnwrapPath(err))
			}
			if !fi.IsDir() {
				return fail(fat.ErrNotDir)
			}
			if err := v.Remove(op.VolPath()); err != nil {
				return fail(cmdutil.UnwrapPath(err))
			}
			return nil
		})
	}
	return app.Run(args)
}
