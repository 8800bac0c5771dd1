// Command flabel shows, sets and removes the volume label of FAT images, in
// the boot sector (and its FAT32 backup) and the root directory, like mlabel
// and fatlabel.
package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	fio "ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: cmdutil.FlagImage, Aliases: []string{"i"}, Usage: "the `IMAGE` whose label to show or set"},
		&cli.BoolFlag{Name: "clear", Aliases: []string{"c"}, Usage: "remove the label"},
		&cli.BoolFlag{Name: "show", Aliases: []string{"s"}, Usage: "show the label (the default without NEWLABEL)"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `flabel [flags] IMAGE [NEWLABEL]
   flabel [flags] -i IMAGE [NEWLABEL]

IMAGE may be PATH@@OFFSET; IMAGE::NEWLABEL and -i IMAGE ::NEWLABEL work as
with mlabel. A label has at most 11 ASCII characters, is stored upper case,
and may not hold control characters or *?.,;:/\|+=<>[]".`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("flabel", "show, set or remove the volume label of a FAT image", usageText, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		spec, label, hasLabel, err := operands(c)
		if err != nil {
			return err
		}
		if c.Bool("clear") {
			if hasLabel {
				return fmt.Errorf("give NEWLABEL or --clear, not both")
			}
			label, hasLabel = "", true
		}
		if hasLabel && c.Bool("show") {
			return fmt.Errorf("--show does not change the label: give NEWLABEL or --clear without it")
		}
		if hasLabel && !c.Bool("clear") && strings.TrimSpace(label) == "" {
			return fmt.Errorf("the new label is empty: give --clear to remove the label")
		}
		return labelCmd(c, spec, label, hasLabel, stdout, stderr)
	}
	return app.Run(args)
}

// operands finds the image and the new label among the arguments.
func operands(c *cli.Context) (spec, label string, hasLabel bool, err error) {
	args := c.Args().Slice()
	spec = c.String(cmdutil.FlagImage)
	if spec == "" {
		if len(args) == 0 {
			return "", "", false, fmt.Errorf("missing IMAGE (see 'flabel --help')")
		}
		spec, args = args[0], args[1:]
		if i := strings.Index(spec, "::"); i >= 0 {
			if rest := spec[i+2:]; rest != "" {
				if len(args) > 0 {
					return "", "", false, fmt.Errorf("too many operands: %q (see 'flabel --help')", args)
				}
				args = []string{rest}
			}
			spec = spec[:i]
		}
	}
	switch {
	case len(args) > 1:
		return "", "", false, fmt.Errorf("too many operands: %q (see 'flabel --help')", args[1:])
	case len(args) == 1:
		label = strings.TrimPrefix(args[0], "::")
		if args[0] == "::" {
			return spec, "", false, nil
		}
		return spec, label, true, nil
	}
	return spec, "", false, nil
}

// info is flabel --json's output.
type info struct {
	Label     string     `json:"label"`
	BootLabel string     `json:"boot_label"`
	RootLabel *string    `json:"root_label"`
	Stats     *fio.Stats `json:"stats,omitempty"`
}

func labelCmd(c *cli.Context, spec, label string, set bool, stdout, stderr io.Writer) error {
	imgs := cmdutil.Images{}
	defer imgs.Close()
	im, err := imgs.Open(c, spec, set)
	if err != nil {
		return err
	}
	v := im.Vol
	if set {
		if err := v.SetLabel(label); err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
	}
	var out info
	out.Label, err = v.Label()
	if err == nil {
		var root string
		var ok bool
		root, ok, err = v.RootLabel()
		if ok {
			out.RootLabel = &root
		}
	}
	out.BootLabel = v.BootSector().Label()
	closeErr := imgs.Close()
	if err = errors.Join(err, closeErr); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if c.Bool(cmdutil.FlagJSON) {
		if c.Bool(cmdutil.FlagStats) {
			st := imgs.Stats()
			out.Stats = &st
		}
		return cmdutil.PrintJSON(stdout, out)
	}
	if !set && out.Label != "" {
		fmt.Fprintln(stdout, out.Label)
	}
	if c.Bool(cmdutil.FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	return nil
}
