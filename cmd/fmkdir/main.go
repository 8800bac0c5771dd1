// Command fmkdir makes directories in FAT images, like mmd and mkdir, with
// mtools' addressing (-i IMAGE ::/path, or IMAGE::/path).
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
		&cli.BoolFlag{Name: "parents", Aliases: []string{"p"}, Usage: "make missing parent directories too; an existing directory is no error"},
		cmdutil.VerboseFlag("name each directory on stderr as it is made (as mkdir -v)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmkdir", "make directories in FAT and exFAT images",
		"fmkdir [flags] ::/DIR...\n\n"+cmdutil.AddressingHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		parents := c.Bool("parents")
		each := cmdutil.Each{Name: "fmkdir", Verb: "created directory", Write: true}
		return cmdutil.EachOperand(c, stdout, stderr, each, func(v vol.Volume, op cmdutil.Operand) error {
			p, err := cmdutil.StoreName(stderr, "fmkdir", v, op, op.Path, parents)
			if err != nil {
				return fmt.Errorf("cannot create directory %s: %s", cmdutil.Quote(op.Show(op.Path)), cmdutil.ErrText(err))
			}
			op.Path = p
			if parents {
				err = v.MkdirAll(op.Path, v.Now())
			} else {
				err = v.Mkdir(op.Path, v.Now())
			}
			if err != nil {
				return fmt.Errorf("cannot create directory %s: %s", cmdutil.Quote(op.Show(op.Path)), cmdutil.ErrText(err))
			}
			return nil
		})
	}
	return cmdutil.Run(app, args)
}
