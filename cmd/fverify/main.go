// Command fverify checks a FAT volume the way fsck.fat -n does, without
// writing to it; with --repair it repairs what fsck.fat -a repairs, and
// with --compare it compares files in the volume with their host originals.
package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Exit statuses, as fsck's.
const (
	exitClean    = 0  // no problem found
	exitFixed    = 1  // --repair fixed every problem it found
	exitProblems = 4  // problems found (and, with --repair, left)
	exitFailed   = 8  // the volume could not be checked
	exitUsage    = 16 // bad command line
)

// Flag names.
const (
	flagRepair  = "repair"
	flagAuto    = "auto"
	flagNoOp    = "check-only"
	flagSalvage = "salvage"
	flagFree    = "free-lost"
	flagDryRun  = "dry-run"
	flagList    = "list"
	flagVerify  = "V"
	flagCompare = "compare"
)

func main() { cmdutil.MainWithin(cmdutil.VerifyMemoryLimit, run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.BoolFlag{Name: flagRepair, Usage: "repair what fsck.fat -a repairs, keeping every file it keeps (lost chains are saved as /FSCKnnnn.REC, as fsck.fat -a saves them); say each fix"},
		&cli.BoolFlag{Name: flagAuto, Aliases: []string{"a", "p", "y"}, Usage: "as fsck.fat -a: the same as --repair"},
		&cli.BoolFlag{Name: flagNoOp, Aliases: []string{"n"}, Usage: "check only, never write (the default)"},
		&cli.BoolFlag{Name: flagSalvage, Aliases: []string{"f"}, Usage: "save lost cluster chains as files /FSCKnnnn.REC (the default; fsck.fat's -f)"},
		&cli.BoolFlag{Name: flagFree, Usage: "with --repair, free lost cluster chains instead of saving them as files (their data is lost)"},
		&cli.BoolFlag{Name: flagDryRun, Usage: "print the repair plan and what it would leave, without writing"},
		&cli.BoolFlag{Name: flagList, Aliases: []string{"l"}, Usage: "list each file and directory as it is checked"},
		cmdutil.VerboseFlag("say what is checked, and print the plan of fixes"),
		&cli.BoolFlag{Name: flagVerify, Hidden: true},
		&cli.StringSliceFlag{Name: flagCompare, Usage: "compare host file or tree `HOSTPATH=::/PATH` with the one in the volume (repeatable)"},
		&cli.BoolFlag{Name: cmdutil.FlagCache, Usage: "keep the host files --compare reads in the page cache (by default files of 1 MiB and more pass it without staying)"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fverify", "check a FAT or exFAT volume as fsck.fat and fsck.exfat do, repair it, compare files with their sources",
		"fverify [flags] IMAGE[@@OFFSET]", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return cmdutil.Exit(exitUsage, err)
		}
		m, err := modeOf(c)
		if err != nil {
			return cmdutil.Exit(exitUsage, err)
		}
		compares, err := parseCompares(c.StringSlice(flagCompare))
		if err != nil {
			return cmdutil.Exit(exitUsage, err)
		}
		return verify(c, c.Args().First(), m, compares, stdout, stderr)
	}
	err := cmdutil.Run(app, args)
	var ee *cmdutil.ExitError
	if err != nil && !errors.As(err, &ee) {
		err = cmdutil.Exit(exitUsage, err)
	}
	return err
}

// mode is what the command line asks for.
type mode struct {
	repair, dryRun, salvage, list, verbose bool
}

func modeOf(c *cli.Context) (mode, error) {
	m := mode{
		repair:  c.Bool(flagRepair) || c.Bool(flagAuto),
		dryRun:  c.Bool(flagDryRun),
		salvage: !c.Bool(flagFree),
		list:    c.Bool(flagList),
		verbose: c.Bool(cmdutil.FlagVerbose),
	}
	switch {
	case c.Bool(flagVerify):
		return m, errors.New("-V (fsck.fat's second, verifying pass) is not needed: --repair checks the volume as repaired before it writes, and leaves the dirty bit set if anything is left")
	case c.Bool(flagFree) && c.Bool(flagSalvage):
		return m, errors.New("--free-lost frees lost chains and --salvage (-f) saves them: give one")
	case c.Bool(flagNoOp) && (m.repair || m.dryRun):
		return m, errors.New("-n (check only) cannot be combined with --repair, -a or --dry-run")
	case m.repair && m.dryRun:
		return m, errors.New("--dry-run prints the repair without making it: give it without --repair or -a")
	}
	return m, nil
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
func verify(c *cli.Context, spec string, m mode, compares []comparison, stdout, stderr io.Writer) error {
	jsonOut := c.Bool(cmdutil.FlagJSON)
	var checked *cmdutil.JSONList
	if jsonOut && m.list {
		// The paths checked are printed as the check goes, and the rest
		// of the object after them (everything below writes stdout).
		checked = cmdutil.NewJSONList(stdout, "checked")
		stdout = checked
	}
	// fail ends a check that could not be made: the JSON object has the
	// device and the error, with what is known (res, if the check ran).
	// An exFAT volume's failure names its file system: it is known
	// before the check.
	fsType := ""
	fail := func(res *result, dev *fio.Device, err error) error {
		err = cmdutil.Exit(exitFailed, err)
		if res != nil {
			return finish(c, stdout, stderr, spec, m, *res, dev, err)
		}
		return cmdutil.Finish(c, stdout, stderr, &output{Device: spec, FATType: fsType}, nil, err)
	}
	dev, err := cmdutil.OpenImage(c, spec, m.repair)
	var readOnly error
	if m.repair && errors.Is(err, fio.ErrReadOnlyMedium) {
		// Still check it: --repair fails only when a write is needed.
		readOnly = err
		dev, err = cmdutil.OpenImage(c, spec, false)
	}
	if err != nil {
		return fail(nil, nil, err)
	}
	defer dev.Close()
	ex, err := vol.IsExFAT(dev)
	if err != nil {
		return fail(nil, nil, fmt.Errorf("%s: %w", spec, err))
	}
	if ex {
		if c.Bool(flagSalvage) {
			return cmdutil.Exit(exitUsage, fmt.Errorf("%s: --salvage saves lost FAT chains as FSCKnnnn.REC files; exFAT keeps free space in a bitmap, not chains, so --repair frees lost clusters as fsck.exfat does", spec))
		}
		fsType = "exFAT"
	}
	// Files a repair makes get SOURCE_DATE_EPOCH when it is set.
	opts := vol.CheckOptions{Salvage: m.salvage, Plan: m.verbose, Clock: cmdutil.Now, ExFAT: &ex, CompareCache: c.Bool(cmdutil.FlagCache)}
	opts.Visit, opts.Progress = visitors(m, checked, stdout, stderr)
	rep, err := vol.Check(dev, opts)
	if err != nil {
		return fail(nil, nil, fmt.Errorf("%s: %w", spec, err))
	}
	for _, cmp := range compares {
		if err := rep.Compare(cmp.host, cmp.vol); err != nil {
			return fail(nil, nil, fmt.Errorf("--compare %s=%s: %w", cmp.host, cmp.vol, err))
		}
	}
	res := result{rep: rep}
	repair := (m.repair || m.dryRun) && rep.NeedsRepair()
	if !repair || readOnly != nil {
		res.plan = rep.Plan() // what -v and --json show of a repair not made
	}
	if readOnly != nil && rep.NeedsRepair() {
		m.repair = false
		return fail(&res, dev, fmt.Errorf("nothing was repaired: %w", readOnly))
	}
	if repair {
		res.plan, err = vol.Repair(rep, vol.RepairOptions{DryRun: m.dryRun})
		res.repaired = m.repair
		res.planned = true
		if err != nil {
			return fail(&res, nil, fmt.Errorf("%s: %w", spec, err))
		}
	}
	if err := rep.Close(); err != nil {
		return fail(nil, nil, fmt.Errorf("%s: %w", spec, err))
	}
	if res.repaired {
		// Check again, as the volume now is: the summary then gives the
		// counts after the repair (the first gave them before), and a
		// repair that left a problem behind is not reported as fixed.
		again, err := vol.Check(dev, vol.CheckOptions{Clock: cmdutil.Now, ExFAT: &ex})
		if err != nil {
			return fail(&res, nil, fmt.Errorf("%s: checking again after the repair: %w", spec, err))
		}
		res.after = summarize(again)
		if err := again.Close(); err != nil {
			return fail(nil, nil, fmt.Errorf("%s: %w", spec, err))
		}
	}
	if err := dev.Close(); err != nil && !errors.Is(err, fio.ErrClosed) {
		return fail(nil, nil, fmt.Errorf("%s: %w", spec, err))
	}
	switch {
	case rep.Clean():
		err = nil
	case res.after != nil && !res.after.Clean:
		err = cmdutil.Exit(exitProblems, nil)
	case m.repair && rep.Remaining() == 0:
		err = cmdutil.Exit(exitFixed, nil)
	default:
		err = cmdutil.Exit(exitProblems, nil)
	}
	return finish(c, stdout, stderr, spec, m, res, dev, err)
}
