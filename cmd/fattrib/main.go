// Command fattrib shows and changes the attributes (read-only, hidden,
// system, archive) of files and directories in FAT images, like mattrib:
// wildcards, -/ (recursive), -p (replay) and -X (concise).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"/"}, Usage: "a directory's whole tree too (-/ as mattrib): list it, or change every file and directory in it"},
		&cli.BoolFlag{Name: "replay", Aliases: []string{"p"}, Usage: "print fattrib commands that give the files the attributes they have now (as mattrib -p: only what differs from archive set on files and unset on directories; read-only left out)"},
		&cli.BoolFlag{Name: "concise", Aliases: []string{"X"}, Usage: "print the attributes without padding (as mattrib -X); for one named file, only its attributes"},
		cmdutil.VerboseFlag("name each operand on stderr once its attributes are changed"),
		// -h clears the hidden attribute (taken out before the flags are
		// read); having it here leaves help long only, as in mattrib.
		cmdutil.Refuse("h", "-h clears the hidden attribute, as in mattrib; help is --help"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

const usageText = `fattrib [+r|-r] [+h|-h] [+s|-s] [+a|-a] [flags] ::/PATH...

+x sets and -x clears an attribute: r read-only, h hidden, s system,
a archive (letters may be combined: +rh). Without any, fattrib prints
each PATH's attributes as mattrib does. ` + cmdutil.AddressingHelp + `
` + cmdutil.WildcardHelp

// attrToken matches an attribute change: it is taken out of the arguments
// before flags are parsed, so -h and -a mean attributes, not flags.
var attrToken = regexp.MustCompile(`^[+-][rhsaRHSA]+$`)

// badAttrToken is an attribute change with a letter no attribute has
// (+x, +rw): never a path, which starts with :: or names an image.
var badAttrToken = regexp.MustCompile(`^\+[[:alpha:]]+$`)

// valueFlags are the flags whose next argument is their value.
var valueFlags = map[string]bool{"-i": true, "--i": true, "-image": true, "--image": true,
	"-partition": true, "--partition": true, "-io-size": true, "--io-size": true, "-sync": true, "--sync": true,
	"-codepage": true, "--codepage": true}

var letters = map[byte]vol.Attr{'r': vol.AttrReadOnly, 'h': vol.AttrHidden, 's': vol.AttrSystem, 'a': vol.AttrArchive}

// splitAttrs takes the attribute changes out of args; bad is the first
// "+LETTERS" that names a letter no attribute has.
func splitAttrs(args []string) (rest []string, set, clear vol.Attr, bad string) {
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
		if badAttrToken.MatchString(a) && !valueFlags[args[i-1]] && bad == "" {
			bad = a
			continue
		}
		rest = append(rest, a)
	}
	return rest, set, clear, bad
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fattrib", "show and change attributes of files in FAT and exFAT images", usageText, stdout, stderr)
	app.Flags = flags()
	var set, clear vol.Attr
	var bad string
	if len(args) > 0 {
		args, set, clear, bad = splitAttrs(args)
	}
	if bad != "" {
		return fmt.Errorf("%s: not an attribute change: the attributes are r (read-only), h (hidden), s (system) and a (archive), set with + and cleared with - (+r, -h, +rs) (see 'fattrib --help')", bad)
	}
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		if set == 0 && clear == 0 {
			return show(c, stdout, stderr)
		}
		if c.Bool("replay") || c.Bool("concise") {
			return errors.New("-p and -X print attributes: give them without +x or -x")
		}
		recursive := c.Bool("recursive")
		each := cmdutil.Each{Name: "fattrib", Verb: "changed the attributes of", Glob: true, Write: true}
		return cmdutil.EachOperand(c, stdout, stderr, each, func(v vol.Volume, op cmdutil.Operand) error {
			if op.Path == "." && !recursive {
				return fmt.Errorf("%s: the root directory has no attributes (give -/ for what is in it)", cmdutil.Quote(op.Show(op.Path)))
			}
			// Everything is walked and checked before anything changes: a
			// refusal leaves the volume as it was.
			paths, err := walk(v, op, recursive)
			if err == nil && len(paths) > 1 {
				if cerr := v.CheckTree(op.VolPath()); cerr != nil {
					err = fmt.Errorf("%s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(cerr))
				}
			}
			if err != nil {
				return fmt.Errorf("%w (left unchanged)", err)
			}
			changed := 0
			for _, p := range paths {
				if p == "." {
					continue // the root has no entry, so no attributes
				}
				if serr := v.SetAttr(p, set, clear); serr != nil {
					err = errors.Join(err, fmt.Errorf("cannot change the attributes of %s: %s", cmdutil.Quote(op.Show(p)), cmdutil.ErrText(serr)))
					continue
				}
				changed++
			}
			if err != nil && changed > 0 {
				err = fmt.Errorf("%w (the attributes of %d other paths were changed)", err, changed)
			}
			return err
		})
	}
	return cmdutil.Run(app, args)
}

// walk lists the paths an operand stands for: itself, and with recursive
// everything below it, depth first in the order the directories store
// their entries (as mattrib -/ lists them). A path that does not exist is
// an error.
func walk(v vol.Volume, op cmdutil.Operand, recursive bool) ([]string, error) {
	fi, err := v.Stat(op.VolPath())
	if err != nil {
		return nil, fmt.Errorf("%s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
	}
	out := []string{op.Path}
	if !recursive || !fi.IsDir() {
		return out, nil
	}
	var errs []error
	var below func(p string, depth int)
	below = func(p string, depth int) {
		if depth > maxDepth {
			errs = append(errs, fmt.Errorf("%s: directories nested deeper than %d (a loop?)", cmdutil.Quote(op.Show(p)), maxDepth))
			return
		}
		f, err := v.Open(p)
		var ents []fs.DirEntry
		if err == nil {
			ents, err = f.(fs.ReadDirFile).ReadDir(-1)
			f.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", cmdutil.Quote(op.Show(p)), cmdutil.ErrText(err)))
			return
		}
		for _, d := range ents {
			if why := cmdutil.Unaddressable(d.Name()); why != "" {
				errs = append(errs, fmt.Errorf("%s: the name %q %s", cmdutil.Quote(op.Show(p)), d.Name(), why))
				continue
			}
			child := cmdutil.JoinVol(p, d.Name())
			out = append(out, child)
			if d.IsDir() {
				below(child, depth+1)
			}
		}
	}
	below(op.Path, 0)
	return out, errors.Join(errs...)
}

// maxDepth bounds -/: a FAT path holds at most 260 characters.
const maxDepth = 256

// shown is one file of fattrib --json without changes.
type shown struct {
	Path       string `json:"path"`
	Attributes string `json:"attributes"`
}

// listing is fattrib --json's object without changes.
type listing struct {
	Files  []shown           `json:"files"`
	Failed []cmdutil.Problem `json:"failed"`
	cmdutil.Outcome
}

// show prints each operand's attributes in mattrib's layout
// ("  A  SHR     ::/PATH"), or as fattrib commands (-p).
func show(c *cli.Context, stdout, stderr io.Writer) error {
	imgs := cmdutil.Images{}
	defer imgs.Close()
	rep := &listing{}
	fail := func(what string, err error) {
		rep.Failed = append(rep.Failed, cmdutil.Failure(stderr, "fattrib", what, err))
	}
	args := c.Args().Slice()
	recursive, wild := c.Bool("recursive"), false
	for _, a := range args {
		op, err := cmdutil.ImageOperand(c, a)
		var im *cmdutil.Image
		if err == nil {
			im, err = imgs.Open(c, op.Image, false)
		}
		var ops []cmdutil.Operand
		var skipped []cmdutil.Problem
		if err == nil {
			ops, skipped, err = cmdutil.Expand(im.Vol, op)
		}
		if cmdutil.IsInterrupt(err) {
			return err
		}
		for _, p := range skipped {
			fail(p.Path, fmt.Errorf("%s: %s", cmdutil.Quote(p.Path), p.Reason))
		}
		if err != nil {
			fail(a, err)
			continue
		}
		wild = wild || len(ops) != 1 || ops[0].Path != op.Path
		for _, o := range ops {
			paths, err := walk(im.Vol, o, recursive)
			if err != nil {
				fail(o.Show(o.Path), err)
			}
			for _, p := range paths {
				// The root has no entry: mattrib shows it as a directory
				// without other attributes.
				a := vol.AttrDirectory
				if p != "." {
					fi, err := im.Vol.Stat(p)
					if err != nil {
						fail(o.Show(p), fmt.Errorf("%s: %s", cmdutil.Quote(o.Show(p)), cmdutil.ErrText(err)))
						continue
					}
					a = im.Vol.Entry(fi).Attr
				}
				rep.Files = append(rep.Files, shown{Path: o.Show(p), Attributes: a.String()})
				if !c.Bool(cmdutil.FlagJSON) {
					printAttrs(c, stdout, im.Spec, p, o.Show(p), a, len(args) == 1 && !wild && !recursive)
				}
			}
		}
	}
	var err error
	if closeErr := imgs.Close(); closeErr != nil {
		err = closeErr
	} else if len(rep.Failed) > 0 {
		err = cmdutil.Exit(1, nil) // each was named
		rep.Error = cmdutil.Reasons(rep.Failed)
	}
	return cmdutil.Finish(c, stdout, stderr, rep, imgs.Stats, err)
}

// printAttrs shows one file: mattrib's line, its -X form (only the letters for
// a lone file), or with -p the command that restores what differs from
// the defaults.
func printAttrs(c *cli.Context, w io.Writer, spec, p, name string, a vol.Attr, lone bool) {
	switch {
	case c.Bool("replay"):
		if ch := replay(a, a&vol.AttrDirectory != 0); ch != "" && p != "." {
			fmt.Fprintf(w, "fattrib %s %s\n", ch, shellQuote(spec+"::/"+p))
		}
	case c.Bool("concise") && lone:
		fmt.Fprintln(w, letters4(a, ""))
	case c.Bool("concise"):
		fmt.Fprintf(w, "%s %s\n", letters4(a, ""), name)
	default:
		fmt.Fprintf(w, "  %c  %s     %s\n", flag(a, vol.AttrArchive, 'A'), letters4(a&^(vol.AttrArchive|vol.AttrDirectory), " "), name)
	}
}

// letters4 writes the system, hidden and read-only letters, pad standing
// for an unset one, after the archive and directory letters when set (as
// mattrib -X orders them: ADSHR).
func letters4(a vol.Attr, pad string) string {
	var b strings.Builder
	for _, l := range []struct {
		bit vol.Attr
		ch  byte
	}{{vol.AttrArchive, 'A'}, {vol.AttrDirectory, 'D'}, {vol.AttrSystem, 'S'}, {vol.AttrHidden, 'H'}, {vol.AttrReadOnly, 'R'}} {
		switch {
		case a&l.bit != 0:
			b.WriteByte(l.ch)
		case l.bit != vol.AttrArchive && l.bit != vol.AttrDirectory:
			b.WriteString(pad)
		}
	}
	return b.String()
}

// replay is the change that gives a new file or directory (archive set on
// files, unset on directories) the attributes a: hidden, system and the
// archive bit; read-only is left to tar, as mattrib -p leaves it.
func replay(a vol.Attr, dir bool) string {
	var ch []string
	if a&vol.AttrSystem != 0 {
		ch = append(ch, "+s")
	}
	if a&vol.AttrHidden != 0 {
		ch = append(ch, "+h")
	}
	switch archive := a&vol.AttrArchive != 0; {
	case dir && archive:
		ch = append(ch, "+a")
	case !dir && !archive:
		ch = append(ch, "-a")
	}
	return strings.Join(ch, " ")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func flag(a, bit vol.Attr, ch byte) byte {
	if a&bit != 0 {
		return ch
	}
	return ' '
}
