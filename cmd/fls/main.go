// Command fls lists the files and directories of FAT images, like mdir and
// ls, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path) and
// wildcards.
package main

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "long", Aliases: []string{"l"}, Usage: "long format: attributes, size, modification time, name; then mdir's totals and free space"},
		&cli.BoolFlag{Name: "wide", Aliases: []string{"w"}, Usage: "wide format, as mdir -w: names across the page, directories in [brackets]; then the totals and free space"},
		&cli.BoolFlag{Name: "bare", Aliases: []string{"b"}, Usage: "bare format, as mdir -b: one full path per line (directories end in /), no headings, no totals"},
		&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include hidden and system entries"},
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"R", "/"}, Usage: "list subdirectories recursively (-/ as mdir)"},
		&cli.BoolFlag{Name: "fast", Aliases: []string{"f"}, Usage: "fast, as mdir -f: do not count the free space (-l and -w leave out the \"bytes free\" line, --json the volumes)"},
		cmdutil.Refuse("v", "fls has no verbose mode: -l shows sizes, times and attributes, --json everything"),
	}
	return cmdutil.VolumeFlags(false, fl...)
}

const usageText = `fls [flags] [::/PATH...]
   fls [flags] IMAGE

` + cmdutil.AddressingHelp + ` With -i and no PATH, the root is listed;
so is an IMAGE named alone (as mdir -i IMAGE lists it).
` + cmdutil.WildcardHelp

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fls", "list files and directories in FAT and exFAT images", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		args := c.Args().Slice()
		if len(args) == 0 {
			if c.String(cmdutil.FlagImage) == "" {
				return errors.New("missing operand (see 'fls --help')")
			}
			args = []string{"::/"}
		}
		if c.String(cmdutil.FlagImage) == "" {
			for i, a := range args {
				if isImage(a) {
					args[i] = a + "::/" // "fls card.img", as "mdir -i card.img"
				}
			}
		}
		n := 0
		for _, f := range []string{"long", "wide", "bare"} {
			if c.Bool(f) {
				n++
			}
		}
		if n > 1 {
			return errors.New("give one of -l, -w and -b")
		}
		return list(c, args, stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// isImage reports whether an operand without "::" names an image file or
// block device (PATH or PATH@@OFFSET) that fls can list the root of.
func isImage(arg string) bool {
	if strings.Contains(arg, "::") {
		return false
	}
	p, _, err := fio.ParseImageSpec(arg)
	if err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && (fi.Mode().IsRegular() || fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0)
}
