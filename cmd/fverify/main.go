// Command fverify checks a FAT volume the way fsck.fat -n does, without
// writing to it; with --repair it fixes what is safe to fix, and with
// --compare it compares files in the volume with their host originals.
package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

// Exit statuses, as fsck's.
const (
	exitClean    = 0  // no problem found
	exitFixed    = 1  // --repair fixed every problem it found
	exitProblems = 4  // problems found (and, with --repair, left)
	exitFailed   = 8  // the volume could not be checked
	exitUsage    = 16 // bad command line
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.BoolFlag{Name: "repair", Usage: "fix what is safe to fix (FAT copies, FSINFO, dirty bit, boot sector from its backup) and say each fix"},
		&cli.StringSliceFlag{Name: "compare", Usage: "compare host file or tree `HOSTPATH=::/PATH` with the one in the volume (repeatable)"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fverify", "check a FAT volume read-only as fsck does; compare files with their sources",
		"fverify [flags] IMAGE[@@OFFSET]", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return cmdutil.Exit(exitUsage, err)
		}
		compares, err := parseCompares(c.StringSlice("compare"))
		if err != nil {
			return cmdutil.Exit(exitUsage, err)
		}
		return verify(c, c.Args().First(), compares, stdout, stderr)
	}
	err := app.Run(args)
	var ee *cmdutil.ExitError
	if err != nil && !errors.As(err, &ee) {
		err = cmdutil.Exit(exitUsage, err)
	}
	return err
}

// comparison is one --compare argument.
type comparison struct{ host, vol string }

func parseCompares(specs []string) ([]comparison, error) {
	var out []comparison
	for _, s := range specs {
		i := strings.LastIndex(s, "=::")
		if i <= 0 {
			return nil, fmt.Errorf("--compare %q: want HOSTPATH=::/PATH", s)
		}
		out = append(out, comparison{host: s[:i], vol: s[i+1:]})
	}
	return out, nil
}

// verify opens, checks, compares, repairs and reports.
func verify(c *cli.Context, spec string, compares []comparison, stdout, stderr io.Writer) error {
	repair := c.Bool("repair")
	fail := func(err error) error {
		if c.Bool(cmdutil.FlagJSON) {
			cmdutil.PrintJSON(stdout, &output{Device: spec, Error: err.Error(), Problems: []fat.Problem{}})
		}
		return cmdutil.Exit(exitFailed, err)
	}
	dev, err := cmdutil.OpenImage(c, spec, repair)
	if err != nil {
		return fail(err)
	}
	defer dev.Close()
	v, bootErr, err := fat.OpenForCheck(dev)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	rep, err := fat.Check(v, fat.CheckOptions{BootError: bootErr})
	if err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	for _, cmp := range compares {
		probs, err := fat.Compare(v, cmp.host, cmp.vol)
		if err != nil {
			return fail(fmt.Errorf("--compare %s=%s: %w", cmp.host, cmp.vol, err))
		}
		rep.Problems = append(rep.Problems, probs...)
	}
	var fixes []string
	if repair && !rep.Clean() {
		fixes, err = fat.Repair(v, rep)
		if err != nil {
			printReport(c, stdout, spec, rep, fixes, nil)
			return fail(fmt.Errorf("%s: %w", spec, err))
		}
	}
	if err := dev.Close(); err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	printReport(c, stdout, spec, rep, fixes, dev)
	cmdutil.PrintStats(c, stderr, dev)
	switch {
	case rep.Clean():
		return nil
	case rep.Remaining() == 0:
		return cmdutil.Exit(exitFixed, nil)
	}
	return cmdutil.Exit(exitProblems, nil)
}
