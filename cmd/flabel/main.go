// Command flabel shows, sets and removes the volume label of FAT images, in
// the boot sector (and its FAT32 backup) and the root directory, and sets
// the volume serial number, like mlabel and fatlabel.
package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: cmdutil.FlagImage, Aliases: []string{"i"}, Usage: "the `IMAGE` whose label to show or set"},
		&cli.BoolFlag{Name: "clear", Aliases: []string{"c"}, Usage: "remove the label (as mlabel -c)"},
		&cli.BoolFlag{Name: "show", Aliases: []string{"s"}, Usage: "show the label (as mlabel -s; the default without NEWLABEL)"},
		&cli.BoolFlag{Name: "new-serial", Aliases: []string{"n"}, Usage: "give the volume a new random serial number (volume id), as mlabel -n; derived from SOURCE_DATE_EPOCH when it is set"},
		&cli.StringFlag{Name: "serial", Aliases: []string{"N"}, Usage: "set the serial number (volume id) to `HEX`, 8 hex digits, as mlabel -N"},
		cmdutil.VerboseFlag("say on stderr what changed: the old and new label and serial number"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `flabel [flags] IMAGE [NEWLABEL]
   flabel [flags] -i IMAGE [NEWLABEL]

IMAGE may be PATH@@OFFSET; IMAGE::NEWLABEL and -i IMAGE ::NEWLABEL work as
with mlabel. On FAT a label has at most 11 ASCII characters, is stored upper
case, and may not hold control characters or *?.,;:/\|+=<>[]"; on exFAT it
has at most 11 UTF-16 characters, keeps its case, and may not hold control
characters.
Without NEWLABEL, -c, -n or -N, flabel shows the label (and says when
there is none).`

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("flabel", "show, set or remove the volume label of a FAT or exFAT image", usageText, stdout, stderr)
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
		serial, setSerial, err := serialOf(c)
		if err != nil {
			return err
		}
		if (hasLabel || setSerial) && c.Bool("show") {
			return fmt.Errorf("--show does not change anything: give it without NEWLABEL, --clear, -n or -N")
		}
		if hasLabel && !c.Bool("clear") && strings.TrimSpace(label) == "" {
			return fmt.Errorf("the new label is empty: give --clear to remove the label")
		}
		return labelCmd(c, spec, change{label, hasLabel, serial, setSerial}, stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// serialOf is the serial number -n or -N asks for.
func serialOf(c *cli.Context) (uint32, bool, error) {
	switch {
	case c.IsSet("serial") && c.Bool("new-serial"):
		return 0, false, errors.New("give -n (a new random serial number) or -N SERIAL, not both")
	case c.IsSet("serial"):
		s := strings.TrimPrefix(strings.TrimPrefix(strings.ReplaceAll(c.String("serial"), "-", ""), "0x"), "0X")
		n, err := strconv.ParseUint(s, 16, 32)
		if err != nil || s == "" {
			return 0, false, fmt.Errorf("--serial %q: want 8 hex digits, such as 1234ABCD (or 1234-ABCD)", c.String("serial"))
		}
		return uint32(n), true, nil
	case c.Bool("new-serial"):
		if t, ok := cmdutil.SourceDateEpoch(); ok {
			return uint32(t.Unix()), true, nil
		}
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, false, fmt.Errorf("choosing a serial number: %w", err)
		}
		return binary.LittleEndian.Uint32(b[:]), true, nil
	}
	return 0, false, nil
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

// change is what the command line asks to change.
type change struct {
	label     string
	setLabel  bool
	serial    uint32
	setSerial bool
}

// info is flabel --json's object.
type info struct {
	Label     string  `json:"label"`
	BootLabel string  `json:"boot_label"`
	RootLabel *string `json:"root_label"`
	VolumeID  string  `json:"volume_id"`
	cmdutil.Outcome
}

func labelCmd(c *cli.Context, spec string, ch change, stdout, stderr io.Writer) error {
	set := ch.setLabel || ch.setSerial
	imgs := cmdutil.Images{}
	defer imgs.Close()
	im, err := imgs.Open(c, spec, set)
	if err != nil {
		return err
	}
	v := im.Vol
	before, _ := v.Label()
	beforeID := v.Serial()
	if ch.setLabel {
		err = v.SetLabel(ch.label)
	}
	if err == nil && ch.setSerial {
		err = v.SetSerial(ch.serial)
	}
	if err != nil {
		return fmt.Errorf("%s: %s", spec, cmdutil.ErrText(err))
	}
	out := &info{}
	out.Label, err = v.Label()
	if err == nil {
		var root string
		var ok bool
		root, ok, err = v.RootLabel()
		if ok {
			out.RootLabel = &root
		}
	}
	if f, ok := im.Vol.(vol.FATFeatures); ok {
		out.BootLabel = f.BootLabel() // exFAT keeps its label in the root only
	}
	out.VolumeID = volumeID(v.Serial())
	if err = errors.Join(err, imgs.Close()); err != nil {
		return fmt.Errorf("%s: %s", spec, cmdutil.ErrText(err))
	}
	if c.Bool(cmdutil.FlagVerbose) {
		if ch.setLabel {
			fmt.Fprintf(stderr, "%s: label %s -> %s\n", spec, shown(before), shown(out.Label))
		}
		if ch.setSerial {
			fmt.Fprintf(stderr, "%s: serial number %s -> %s\n", spec, volumeID(beforeID), out.VolumeID)
		}
	}
	if !c.Bool(cmdutil.FlagJSON) && !set {
		if out.Label == "" {
			fmt.Fprintf(stdout, "%s has no label\n", spec)
		} else {
			fmt.Fprintln(stdout, out.Label)
		}
	}
	return cmdutil.Finish(c, stdout, stderr, out, imgs.Stats, nil)
}

// shown is a label in a message.
func shown(l string) string {
	if l == "" {
		return "(none)"
	}
	return strconv.Quote(l)
}

// volumeID writes a serial number as mlabel and fsinfo show it.
func volumeID(id uint32) string { return fmt.Sprintf("%04X-%04X", id>>16, id&0xFFFF) }
