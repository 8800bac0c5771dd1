package cmdutil

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// FlagComplete, as a command's first argument, asks it for the completions
// of the last of the words that follow (the word being typed, "" for a new
// one), one per line: the scripts in completion/ call it. It prints flags
// for a word that starts with "-", the values of an enumerated flag after
// it, and paths inside the image for a word holding "::", read with
// ftools' own reader. Nothing printed means "complete file names".
const FlagComplete = "--complete"

// flagValues lists the values of enumerated flags, by the flag's name.
var flagValues = map[string][]string{}

// Values records the values an enumerated flag takes, for completion, and
// returns the flag.
func Values(f cli.Flag, vals ...string) cli.Flag {
	flagValues[f.Names()[0]] = vals
	return f
}

func complete(app *cli.App, words []string) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, prev := words[len(words)-1], words[:len(words)-1]
	w := app.Writer
	operands := false
	for _, p := range prev {
		operands = operands || p == "--"
	}
	if !operands && strings.HasPrefix(cur, "-") {
		if name, val, ok := strings.Cut(cur, "="); ok {
			if f := findFlag(app.Flags, strings.TrimLeft(name, "-")); f != nil {
				printMatching(w, name+"=", flagValues[f.Names()[0]], val)
			}
			return nil
		}
		var cands []string
		for _, f := range app.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				if len(n) == 1 {
					cands = append(cands, "-"+n)
				} else {
					cands = append(cands, "--"+n)
				}
			}
		}
		cands = append(cands, "--help", "--version")
		printMatching(w, "", cands, cur)
		return nil
	}
	if len(prev) > 0 && !operands {
		p := prev[len(prev)-1]
		if strings.HasPrefix(p, "-") && !strings.Contains(p, "=") {
			if f := findFlag(app.Flags, strings.TrimLeft(p, "-")); f != nil && takesValue(f) {
				printMatching(w, "", flagValues[f.Names()[0]], cur)
				return nil
			}
		}
	}
	if strings.Contains(cur, "::") {
		completePath(w, app.Flags, prev, cur)
	}
	return nil
}

func findFlag(fl []cli.Flag, name string) cli.Flag {
	for _, f := range fl {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether f takes a value as the next word. A flag
// whose value may be left out (fmkfs --mbr[=y|n|a]) does not: its value
// comes only after "=".
func takesValue(f cli.Flag) bool {
	df, ok := f.(cli.DocGenerationFlag)
	return ok && df.TakesValue() && !optionalValue(f)
}

// optionalValue reports whether f is a generic flag whose value reads as
// a boolean when left out.
func optionalValue(f cli.Flag) bool {
	g, ok := f.(*cli.GenericFlag)
	if !ok {
		return false
	}
	b, ok := g.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func printMatching(w io.Writer, prefix string, cands []string, cur string) {
	for _, c := range cands {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(w, prefix+c)
		}
	}
}

// flagValue is the value of the last flag called name in words (given as
// "-n V", "--name V" or "--name=V").
func flagValue(fl []cli.Flag, words []string, name string) string {
	f := findFlag(fl, name)
	if f == nil {
		return ""
	}
	val := ""
	for i, wd := range words {
		if wd == "--" {
			break
		}
		n, v, hasVal := strings.Cut(strings.TrimLeft(wd, "-"), "=")
		if !strings.HasPrefix(wd, "-") || findFlag([]cli.Flag{f}, n) == nil {
			continue
		}
		if hasVal {
			val = v
		} else if i+1 < len(words) {
			val = words[i+1]
		}
	}
	return val
}

// completePath prints the entries of the image directory that cur
// ("IMAGE::/dir/pre" or "::/dir/pre" with -i IMAGE) names whose names
// start with pre, case-insensitively as FAT compares them, directories
// with a trailing slash. The image is opened read-only, without a lock.
func completePath(w io.Writer, fl []cli.Flag, prev []string, cur string) {
	i := strings.Index(cur, "::")
	spec, rest := cur[:i], cur[i+2:]
	if spec == "" {
		spec = flagValue(fl, prev, FlagImage)
	}
	if spec == "" {
		return
	}
	p, off, err := fio.ParseImageSpec(spec)
	if err != nil {
		return
	}
	o := fio.Options{NoLock: true, Buffered: true, Offset: off}
	if n, err := strconv.Atoi(flagValue(fl, prev, FlagPartition)); err == nil && n > 0 {
		o.Partition = n
	} else if off == 0 {
		o.Partition, _ = autoPartition(p)
	}
	if n, err := strconv.Atoi(flagValue(fl, prev, FlagCodePage)); err == nil {
		vol.SetCodePage(n)
	}
	dev, err := fio.Open(p, o)
	if err != nil {
		return
	}
	defer dev.Close()
	v, err := vol.Open(dev)
	if err != nil {
		return
	}
	defer v.Close()
	rest = strings.ReplaceAll(rest, "\\", "/")
	dir, pre := path.Split(rest)
	vdir := strings.Trim(path.Clean("/"+dir), "/")
	if vdir == "" {
		vdir = "."
	}
	ents, err := v.ReadDir(vdir)
	if err != nil {
		return
	}
	if dir == "" {
		dir = "/"
	}
	var out []string
	for _, e := range ents {
		if Unaddressable(e.Name()) != "" || !strings.HasPrefix(strings.ToLower(e.Name()), strings.ToLower(pre)) {
			continue
		}
		name := cur[:i+2] + dir + e.Name()
		if e.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	for _, s := range out {
		fmt.Fprintln(w, s)
	}
}
