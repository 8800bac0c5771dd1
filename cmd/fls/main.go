// Command fls lists the files and directories of FAT images, like mdir and
// ls, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path).
package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "long", Aliases: []string{"l"}, Usage: "long format: attributes, size, modification time, name"},
		&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include hidden and system entries"},
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"R"}, Usage: "list subdirectories recursively"},
	}
	return cmdutil.VolumeFlags(false, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fls", "list files and directories in FAT images",
		"fls [flags] [::/PATH...]\n\n"+cmdutil.AddressingHelp+" With -i and no PATH, the root is listed.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		args := c.Args().Slice()
		if len(args) == 0 {
			if c.String(cmdutil.FlagImage) == "" {
				return fmt.Errorf("missing operand (see 'fls --help')")
			}
			args = []string{"::/"}
		}
		return list(c, args, stdout, stderr)
	}
	return app.Run(args)
}
