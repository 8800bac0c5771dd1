package cmdutil

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// NewApp returns a urfave/cli application with the conventions all ftools
// commands share: output to the given writers, no exit from inside the
// library, --version (long only: -v is verbose, as in mtools and
// dosfstools) from the build information, help that shows one default per
// flag. Commands run it with Run.
func NewApp(name, usage, usageText string, stdout, stderr io.Writer) *cli.App {
	cli.FlagStringer = flagString
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version and exit"}
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"}
	return &cli.App{
		Name:                  name,
		Usage:                 usage,
		UsageText:             usageText,
		Version:               Version(),
		Writer:                stdout,
		ErrWriter:             stderr,
		HideHelpCommand:       true,
		CustomAppHelpTemplate: strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS:", "OPTIONS:"),
		ExitErrHandler:        func(*cli.Context, error) {},
		// Run replaces this with one that knows the arguments; a command
		// run by app.Run alone gets the process's own.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return fmt.Errorf("%s (see '%s --help')", AsTyped(err.Error(), os.Args), name)
		},
	}
}

// Run runs app on args (args[0] is the command) with the shared habits:
//   - --complete (first) answers the shell completion scripts (see
//     complete.go) instead of running the command;
//   - --version is long only, and --help loses its -h when the command
//     gives -h a meaning of its own (fmkfs: hidden sectors, as mkfs.fat);
//   - a command without -v refuses it with a sentence, never taking it
//     for --version;
//   - flag errors echo the flag as it was typed ("--invariant", not
//     "-invariant").
func Run(app *cli.App, args []string) error {
	if len(args) > 1 && args[1] == FlagComplete {
		return complete(app, args[2:])
	}
	if hasFlag(app.Flags, "h") {
		cli.HelpFlag = &cli.BoolFlag{Name: "help", Usage: "show this help"}
	}
	if !hasFlag(app.Flags, "v") {
		app.Flags = append(app.Flags, Refuse("v", fmt.Sprintf("%s has no verbose mode (and -v is not --version: that is long only)", app.Name)))
	}
	app.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return fmt.Errorf("%s (see '%s --help')", AsTyped(err.Error(), args), app.Name)
	}
	args, err := Getopt(app.Flags, args)
	if err != nil {
		return fmt.Errorf("%w (see '%s --help')", err, app.Name)
	}
	err = app.Run(args)
	if err != nil && requiredRE.MatchString(err.Error()) {
		err = fmt.Errorf("%s (see '%s --help')", requiredRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
			var names []string
			for _, n := range strings.Split(requiredRE.FindStringSubmatch(m)[1], ", ") {
				names = append(names, dashes(n, args)+n)
			}
			return "missing " + strings.Join(names, ", ") + ": required"
		}), app.Name)
	}
	return err
}

// Getopt rewrites a command line the way GNU getopt reads one, which is
// how mtools and dosfstools read theirs, into the form urfave/cli parses:
//   - grouped one-letter flags are split ("-la" is -l -a), and a
//     one-letter flag that takes a value takes the rest of its word
//     ("-F32" is -F 32, as mkfs.fat users write it);
//   - flags may follow operands ("fls ::/ -l"): they are moved in front.
//
// "--" ends the flags; what follows it stays operands. A flag that wants a
// value and ends the line is an error: moved in front of the operands, it
// would take one of them.
func Getopt(fl []cli.Flag, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	flags, operands := []string{args[0]}, []string{}
	rest := []string(nil)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = args[i:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := findFlag(fl, name)
		if f == nil && !strings.HasPrefix(a, "--") && !hasVal {
			if split, needValue, ok := splitShort(fl, a); ok {
				flags = append(flags, split...)
				if needValue {
					if i+1 == len(args) {
						return nil, fmt.Errorf("flag needs an argument: %s", split[len(split)-1])
					}
					i++
					flags = append(flags, args[i])
				}
				continue
			}
		}
		flags = append(flags, a)
		if f != nil && takesValue(f) && !hasVal {
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			i++
			flags = append(flags, args[i])
		}
	}
	if len(rest) > 0 {
		return append(append(flags, "--"), append(operands, rest[1:]...)...), nil
	}
	return append(flags, operands...), nil
}

// splitShort splits "-abc" into one-letter flags as getopt does: each
// letter must be a flag; one that takes a value takes the rest of the word
// ("-F32"), or the next word when it ends the group (needValue).
func splitShort(fl []cli.Flag, a string) (out []string, needValue, ok bool) {
	for i := 1; i < len(a); i++ {
		f := findFlag(fl, a[i:i+1])
		if f == nil {
			return nil, false, false
		}
		out = append(out, "-"+a[i:i+1])
		if takesValue(f) {
			if i+1 < len(a) {
				return append(out, a[i+1:]), false, true
			}
			return out, true, true
		}
	}
	return out, false, true
}

// hasFlag reports whether a flag of fl is called name (or has it as an
// alias).
func hasFlag(fl []cli.Flag, name string) bool {
	for _, f := range fl {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// Refuse is a hidden flag that a command takes only to refuse it with a
// sentence: a habit of mtools or dosfstools that the command does not
// follow, said so instead of "flag provided but not defined". A one-letter
// name is a boolean; give value=true (RefuseValue) for one that takes a
// value.
func Refuse(name, why string) cli.Flag {
	return &cli.BoolFlag{Name: name, Hidden: true, Action: func(*cli.Context, bool) error {
		return refusal(name, why)
	}}
}

// RefuseValue is Refuse for a flag that takes a value (fmkfs -l FILE).
func RefuseValue(name, why string) cli.Flag {
	return &cli.StringFlag{Name: name, Hidden: true, Action: func(*cli.Context, string) error {
		return refusal(name, why)
	}}
}

func refusal(name, why string) error {
	return fmt.Errorf("%s%s: %s", dashes(name, nil), name, why)
}

// dashes is "-" for a one-letter flag and "--" for a long one, unless args
// show how the user typed it.
func dashes(name string, args []string) string {
	for _, a := range args {
		for _, d := range []string{"--", "-"} {
			if a == d+name || strings.HasPrefix(a, d+name+"=") {
				return d
			}
		}
	}
	if len(name) == 1 {
		return "-"
	}
	return "--"
}

// flagInMsg finds the flags Go's flag package names in its errors, always
// with one dash ("flag provided but not defined: -invariant").
var flagInMsg = regexp.MustCompile(`(^|[\s:])-([^\s:=,"'-][^\s:=,"']*)`)

// requiredRE finds urfave/cli's "Required flag(s) "x" not set".
var requiredRE = regexp.MustCompile(`Required flags? "([^"]*)" not set`)

// AsTyped rewrites the flags named in a flag-parsing error as the user
// typed them in args: "-invariant" becomes "--invariant".
func AsTyped(msg string, args []string) string {
	return flagInMsg.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagInMsg.FindStringSubmatch(m)
		return sub[1] + dashes(sub[2], args) + sub[2]
	})
}

// flagString renders a flag for --help: short names first, the value's
// placeholder once ("-F, --fat TYPE"), and one default at most: the one
// the usage text states, else the flag's own non-zero default. Booleans
// show none.
func flagString(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := unquoteUsage(df.GetUsage())
	var short, long []string
	for _, n := range df.Names() {
		if len(n) == 1 {
			short = append(short, "-"+n)
		} else {
			long = append(long, "--"+n)
		}
	}
	names := strings.Join(append(short, long...), ", ")
	switch {
	case optionalValue(f):
		names += "[=" + placeholder + "]"
	case df.TakesValue():
		if placeholder == "" {
			placeholder = strings.ToUpper(df.Names()[0])
		}
		names += " " + placeholder
	}
	if df.TakesValue() && !strings.Contains(usage, "(default") {
		if d := strings.Trim(df.GetDefaultText(), `"`); d != "" && d != "0" && d != "[]" {
			usage += " (default: " + d + ")"
		}
	}
	return names + "\t" + usage
}

// unquoteUsage takes the first `word` of a usage text as the placeholder,
// as urfave/cli does.
func unquoteUsage(usage string) (string, string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+2+j:]
}

// buildCommit and buildDate are set by the Makefile (-ldflags -X) from
// git, for builds Go could not stamp itself (a git worktree, or
// GOFLAGS=-buildvcs=false).
var buildCommit, buildDate string

// Version is what --version prints after the command's name: the module
// version of a released build; for a build from a checkout, the commit and
// its date (and whether the tree had changes).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module information)"
	}
	return versionOf(bi.Main.Version, bi.Settings)
}

func versionOf(v string, settings []debug.BuildSetting) string {
	var rev, when string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" && buildCommit != "" {
		rev, when = buildCommit, buildDate
	}
	if rev == "" {
		if v == "" || v == "(devel)" {
			return "devel (built without version control information: build with make, or go build in a git clone)"
		}
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	s := fmt.Sprintf("%s (commit %s", v, rev)
	if when != "" {
		s += " of " + when
	}
	if dirty {
		s += ", with uncommitted changes"
	}
	return s + ")"
}
