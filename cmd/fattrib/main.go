// Command fattrib shows and changes the attributes (read-only, hidden,
// system, archive) of files and directories in FAT images, like mattrib.
package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{cmdutil.ImageFlag()}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `fattrib [+r|-r] [+h|-h] [+s|-s] [+a|-a] [flags] ::/PATH...

+x sets and -x clears an attribute: r read-only, h hidden, s system,
a archive (letters may be combined: +rh). Without any, fattrib prints
each PATH's attributes as mattrib does. Paths inside an image are written
::/path (with -i IMAGE) or IMAGE::/path; IMAGE may be PATH@@OFFSET.`

// attrToken matches an attribute change: it is taken out of the arguments
// before flags are parsed, so -h and -a mean attributes, not flags.
var attrToken = regexp.MustCompile(`^[+-][rhsaRHSA]+$`)

// valueFlags are the flags whose next argument is their value.
var valueFlags = map[string]bool{"-i": true, "--i": true, "-image": true, "--image": true,
	"-partition": true, "--partition": true, "-io-size": true, "--io-size": true, "-sync": true, "--sync": true}

var letters = map[byte]fat.Attr{'r': fat.AttrReadOnly, 'h': fat.AttrHidden, 's': fat.AttrSystem, 'a': fat.AttrArchive}

// splitAttrs takes the attribute changes out of args.
func splitAttrs(args []string) (rest []string, set, clear fat.Attr) {
	rest = append(rest, args[0])
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if attrToken.MatchString(a) && !valueFlags[args[i-1]] {
			for _, ch := range strings.ToLower(a[1:]) {
				if a[0] == '+' {
					set |= letters[byte(ch)]
					clear &^= letters[byte(ch)]
				} else {
					clear |= letters[byte(ch)]
					set &^= letters[byte(ch)]
				}
			}
			continue
		}
		rest = append(rest, a)
	}
	return rest, set, clear
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fattrib", "show and change attributes of files in FAT images", usageText, stdout, stderr)
	app.Flags = flags()
	var set, clear fat.Attr
	if len(args) > 0 {
		args, set, clear = splitAttrs(args)
	}
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		if set == 0 && clear == 0 {
			return show(c, stdout, stderr)
		}
		return cmdutil.EachOperand(c, "fattrib", stdout, stderr, func(v *fat.Volume, op cmdutil.Operand) error {
			if err := v.SetAttr(op.VolPath(), set, clear); err != nil {
				return fmt.Errorf("cannot change the attributes of '%s': %w", op.Show(op.VolPath()), cmdutil.UnwrapPath(err))
			}
			return nil
		})
	}
	return app.Run(args)
}

// shown is one line of fattrib --json without changes.
type shown struct {
	Path       string `json:"path"`
	Attributes string `json:"attributes"`
}

// show prints each operand's attributes in mattrib's layout:
// "  A  SHR     ::/PATH".
func show(c *cli.Context, stdout, stderr io.Writer) error {
	imgs := cmdutil.Images{}
	defer imgs.Close()
	out := []shown{}
	failed := false
	for _, a := range c.Args().Slice() {
		op, err := cmdutil.ImageOperand(c, a)
		var r *fat.Record
		if err == nil {
			var im *cmdutil.Image
			if im, err = imgs.Open(c, op.Image, false); err == nil {
				r, err = record(im.Vol, op)
			}
		}
		if cmdutil.IsInterrupt(err) {
			return err
		}
		if err != nil {
			cmdutil.Warn(stderr, "fattrib", "%v", err)
			failed = true
			continue
		}
		name := op.Show(op.Path)
		out = append(out, shown{Path: name, Attributes: r.Entry.Attr.String()})
		if !c.Bool(cmdutil.FlagJSON) {
			fmt.Fprintf(stdout, "  %c  %c%c%c     %s\n", flag(r, fat.AttrArchive, 'A'), flag(r, fat.AttrSystem, 'S'),
				flag(r, fat.AttrHidden, 'H'), flag(r, fat.AttrReadOnly, 'R'), name)
		}
	}
	if err := imgs.Close(); err != nil {
		return err
	}
	if c.Bool(cmdutil.FlagJSON) {
		if err := cmdutil.PrintJSON(stdout, out); err != nil {
			return err
		}
	}
	if c.Bool(cmdutil.FlagStats) && !c.Bool(cmdutil.FlagJSON) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if failed {
		return cmdutil.Exit(1, nil)
	}
	return nil
}

func record(v *fat.Volume, op cmdutil.Operand) (*fat.Record, error) {
	if op.Path == "." {
		return nil, fmt.Errorf("'%s': the root directory has no attributes", op.Show(op.Path))
	}
	fi, err := v.Stat(op.VolPath())
	if err != nil {
		return nil, fmt.Errorf("'%s': %w", op.Show(op.VolPath()), cmdutil.UnwrapPath(err))
	}
	return fi.Sys().(*fat.Record), nil
}

func flag(r *fat.Record, bit fat.Attr, ch byte) byte {
	if r.Entry.Attr&bit != 0 {
		return ch
	}
	return ' '
}
