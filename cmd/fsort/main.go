// Command fsort orders the directory entries of a FAT or exFAT volume that
// is not mounted, as fatsort does: car stereos, MP3 players, cameras and
// many boot loaders play or load files in the order they lie on disk.
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
		&cli.BoolFlag{Name: "natural", Aliases: []string{"n"}, Usage: "natural order: runs of digits compare as numbers (track2 before track10), as fatsort -n"},
		&cli.BoolFlag{Name: "reverse", Aliases: []string{"r"}, Usage: "names in reverse order (directories still first), as fatsort -r"},
		&cli.BoolFlag{Name: "ignore-case", Aliases: []string{"c"}, Usage: "ASCII letters compare as lower case, as fatsort -c"},
		cmdutil.Values(&cli.StringFlag{Name: "order", Aliases: []string{"o"}, Value: "d", Usage: "`d`: directories first, f: files first, a: no difference (fatsort -o)"}, "d", "f", "a"),
		&cli.StringSliceFlag{Name: "dir", Aliases: []string{"d"}, Usage: "sort directory `DIR` only (repeatable), as fatsort -d"},
		&cli.StringSliceFlag{Name: "tree", Aliases: []string{"D"}, Usage: "sort directory `DIR` and every directory below it (repeatable), as fatsort -D"},
		cmdutil.VerboseFlag("list each directory looked at, its members, and whether it was rewritten"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `fsort [flags] TARGET

TARGET is an image file or block device holding a FAT or exFAT volume that
is not mounted (IMAGE@@OFFSET, or --partition N of a disk). fsort checks the
volume as fverify does and refuses a damaged one, then orders the entries
of every directory (or those -d and -D name) as fatsort does under
LC_ALL=C.UTF-8: directories first, then names byte by byte in UTF-8.`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fsort", "order the directory entries of a FAT or exFAT volume (fatsort for an unmounted card or image)", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		return sortVolume(c, c.Args().First(), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// output is --json's object.
type output struct {
	Target string `json:"target"`
	*vol.SortResult
	cmdutil.Outcome
}

func sortVolume(c *cli.Context, spec string, stdout, stderr io.Writer) error {
	order, err := vol.ParseSortOrder(c.String("order"))
	if err != nil {
		return fmt.Errorf("--order: %w", err)
	}
	o := vol.SortOptions{
		Order: order, Natural: c.Bool("natural"), Reverse: c.Bool("reverse"), IgnoreCase: c.Bool("ignore-case"),
		Only: c.StringSlice("dir"), Tree: c.StringSlice("tree"),
	}
	dev, err := cmdutil.OpenImage(c, spec, true)
	if err != nil {
		return err
	}
	defer dev.Close()
	if c.Bool(cmdutil.FlagVerbose) && !c.Bool(cmdutil.FlagJSON) {
		o.Visit = func(path string, members int, changed bool) {
			what := "in order already"
			if changed {
				what = "sorted"
			}
			fmt.Fprintf(stdout, "/%s: %s, %s\n", trimDot(path), cmdutil.Plural(members, "member"), what)
		}
	}
	res, err := vol.Sort(dev, o)
	err = cmdutil.CloseVolumeOp(dev, spec, err)
	out := &output{Target: spec, SortResult: res}
	if err != nil {
		return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, err)
	}
	if !c.Bool(cmdutil.FlagJSON) {
		fmt.Fprintf(stdout, "%s: %s, %s sorted (%s rewritten, %s)\n", spec, res.Type,
			cmdutil.Plural(res.Dirs, "directory"), cmdutil.Plural(res.Changed, "directory"), cmdutil.Plural(res.Members, "member"))
	}
	return cmdutil.Finish(c, stdout, stderr, out, dev.Stats, nil)
}

func trimDot(p string) string {
	if p == "." {
		return ""
	}
	return p
}
