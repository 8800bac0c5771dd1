// Command fcp copies files and trees into FAT images, out of them, and
// within or between them, with mtools' addressing (-i IMAGE ::/path, or
// IMAGE::/path), cp's rules and mcopy's flags. The rules and the copy
// itself live in cmd/internal/cp; this is flags and output.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/cmd/internal/cp"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	// SIGINT, SIGTERM and SIGHUP end fcp at once until it starts writing,
	// then stop it within a chunk with everything copied so far committed.
	cmdutil.CatchInterrupts()
	cmdutil.Main(run)
}

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"r", "R", "s"}, Usage: "copy directories and their contents"},
		&cli.BoolFlag{Name: "dereference", Aliases: []string{"L"}, Usage: "follow symbolic links to directories in host trees (a loop is skipped)"},
		&cli.BoolFlag{Name: "preserve", Aliases: []string{"p", "m"}, Value: true, Usage: "keep modification times (the default)"},
		&cli.BoolFlag{Name: "no-preserve", Usage: "stamp copies with the current time"},
		&cli.BoolFlag{Name: "no-clobber", Aliases: []string{"n"}, Usage: "do not overwrite existing files (-D s); each is named and the exit status is 1"},
		&cli.BoolFlag{Name: "overwrite", Aliases: []string{"o"}, Usage: "overwrite whatever name is taken, names this copy made too (-D o)"},
		cmdutil.Values(&cli.StringSliceFlag{Name: "clash", Aliases: []string{"D"}, Usage: "what to do when a name is taken, mcopy's `LETTERS`: o overwrite, s skip, a autorename, r rename, m ask; upper case for short-name clashes (repeatable)"},
			"o", "s", "a", "r", "m", "O", "S", "A", "R", "M"),
		&cli.BoolFlag{Name: "text", Aliases: []string{"t"}, Usage: "text files: LF becomes CR LF into an image, CR LF becomes LF out"},
		&cli.BoolFlag{Name: "quit-on-error", Aliases: []string{"Q"}, Usage: "stop at the first file that is not copied"},
		&cli.BoolFlag{Name: "batch", Aliases: []string{"b"}, Usage: "accepted for mcopy's -b; fcp always batches"},
		cmdutil.VerboseFlag("name each file and directory on stderr as it is copied"),
		cmdutil.Values(&cli.StringFlag{Name: "alloc", Value: "contiguous", Usage: "where new files go (`POLICY`): contiguous (one run each where possible) or first-fit (free clusters in order from FSINFO's next free cluster + 1, as Linux and mcopy)"},
			"contiguous", "first-fit"),
		&cli.BoolFlag{Name: cmdutil.FlagNoProgress, Usage: "never draw a progress bar"},
		cmdutil.CacheFlag(),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fcp", "copy files and trees into, out of and within FAT and exFAT images",
		"fcp [flags] SOURCE... DEST\n\n"+cmdutil.AddressingHelp+" Other paths are host paths;\n'-' is standard input as SOURCE and standard output as DEST.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 2, -1); err != nil {
			return err
		}
		return fcp(c, stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// report is fcp --json's output.
type report struct {
	cp.Summary
	Signal string `json:"signal,omitempty"`
	cmdutil.Outcome
}

func fcp(c *cli.Context, stdout, stderr io.Writer) error {
	args := c.Args().Slice()
	var srcs []cmdutil.Operand
	for _, a := range args[:len(args)-1] {
		op, err := cmdutil.ParseOperand(a, c.String(cmdutil.FlagImage))
		if err != nil {
			return err
		}
		srcs = append(srcs, op)
	}
	dst, err := cmdutil.ParseOperand(args[len(args)-1], c.String(cmdutil.FlagImage))
	if err != nil {
		return err
	}
	toStdout := !dst.InImage() && dst.Raw == "-"
	if toStdout && c.Bool(cmdutil.FlagJSON) {
		return errors.New("--json prints on standard output, which '-' as DEST takes for the data")
	}
	opts, alloc, err := options(c, srcs)
	if err != nil {
		return err
	}
	warn := func(line string) { cmdutil.Warn(stderr, "fcp", "%s", line) }
	opts.Warn = warn
	var stdoutDone func() string
	opts.Stdout, stdoutDone = cmdutil.HostStdout(stdout, c.Bool(cmdutil.FlagCache))

	// The destination's image opens writable, the others read-only; an
	// image that is both is opened once, writable.
	imgs := cmdutil.Images{}
	defer imgs.Close()
	vols := map[string]vol.Volume{}
	for _, op := range append([]cmdutil.Operand{dst}, srcs...) {
		if !op.InImage() || vols[op.Image] != nil {
			continue
		}
		im, err := imgs.Open(c, op.Image, dst.InImage() && op.Image == dst.Image)
		if err != nil {
			return err
		}
		if im.Vol.WasDirty() {
			warn(fmt.Sprintf("%s: the volume's dirty bit is set (it was not closed cleanly): run fverify %s; copying anyway", im.Spec, im.Spec))
		}
		if err := setAlloc(im, alloc); err != nil {
			return err
		}
		vols[op.Image] = im.Vol
		opts.IOSize = im.Dev.IOSize()
	}

	plan, err := cp.NewPlan(srcs, dst, vols, opts)
	if err != nil {
		return err
	}
	var total int64
	if cmdutil.ShowsBar(c, stderr) {
		total = plan.Bytes() // a walk of its own, for a large tree
	}
	bar := cmdutil.NewBar(c, stderr, total, "copying")
	if bar != nil {
		plan.SetProgress(func(n int64) { bar.Add64(n) })
	}
	if !toStdout {
		// From here a signal stops the copy cleanly instead of ending fcp.
		// (Written to standard output, there is nothing to commit.)
		cmdutil.DeferInterrupts()
	}
	res := plan.Run()
	res.PageCache.Add(stdoutDone())
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	closeErr := imgs.Close()
	return finish(c, stdout, stderr, imgs, res, closeErr)
}

// options turns the flags into the copy's options and allocation policy.
func options(c *cli.Context, srcs []cmdutil.Operand) (cp.Options, vol.AllocPolicy, error) {
	o := cp.Options{
		Recursive:   c.Bool("recursive"),
		Preserve:    c.Bool("preserve") && !c.Bool("no-preserve"),
		Follow:      c.Bool("dereference"),
		Text:        c.Bool("text"),
		StopOnError: c.Bool("quit-on-error"),
		Stop:        cmdutil.Stopping(),
		Cache:       c.Bool(cmdutil.FlagCache),
		Stdin:       os.Stdin,
	}
	if c.Bool(cmdutil.FlagVerbose) {
		o.Verbose = func(src, dst string) {
			fmt.Fprintf(c.App.ErrWriter, "'%s' -> '%s'\n", cmdutil.Sanitize(src), cmdutil.Sanitize(dst))
		}
	}
	var err error
	if o.Policy, err = cp.ParsePolicy(c.StringSlice("clash")...); err != nil {
		return o, 0, err
	}
	for flag, act := range map[string]cp.Action{"no-clobber": cp.Skip, "overwrite": cp.Overwrite} {
		if !c.Bool(flag) {
			continue
		}
		if o.Policy.Primary != cp.Default && o.Policy.Primary != act {
			return o, 0, fmt.Errorf("--%s contradicts the other clash flags (-n, -o, -D)", flag)
		}
		o.Policy.Primary = act
	}
	// Questions go to a person at a terminal, never to a pipe, and never
	// to standard input that holds the data.
	fromStdin := len(srcs) == 1 && !srcs[0].InImage() && srcs[0].Raw == "-"
	if !fromStdin && term.IsTerminal(int(os.Stdin.Fd())) {
		in := bufio.NewReader(os.Stdin)
		o.Ask = func(q string) (string, error) {
			fmt.Fprint(c.App.ErrWriter, "fcp: "+q)
			return in.ReadString('\n')
		}
	}
	var alloc vol.AllocPolicy
	switch c.String("alloc") {
	case "contiguous":
		alloc = vol.AllocContiguous
	case "first-fit":
		alloc = vol.AllocFirstFit
	default:
		return o, 0, fmt.Errorf("--alloc %s: give contiguous or first-fit", c.String("alloc"))
	}
	return o, alloc, nil
}

// finish prints the outcome (JSON, statistics) and returns the command's
// error: exit status 0 only when everything named was copied.
func finish(c *cli.Context, stdout, stderr io.Writer, imgs cmdutil.Images, res *cp.Result, closeErr error) error {
	var err error
	sig, stopped := cmdutil.Interrupted()
	switch {
	case closeErr != nil:
		err = errors.Join(res.Stopped, closeErr)
		if errors.Is(res.Stopped, cp.ErrInterrupted) {
			err = closeErr
		}
	case stopped && errors.Is(res.Stopped, cp.ErrInterrupted):
		err = cmdutil.InterruptError(sig, fmt.Sprintf("stopped after %s; the file being copied was dropped, what was copied is committed and the volume is consistent", cmdutil.Plural(res.Files, "file")))
	case res.Stopped != nil:
		err = res.Stopped
	case !res.OK():
		err = cmdutil.Exit(1, nil) // each was named on stderr
	}
	rep := &report{Summary: cp.Summary{Files: res.Files, Dirs: res.Dirs, Bytes: res.Bytes, Skipped: res.Skipped, Failed: res.Failed, Renamed: res.Renamed}}
	if ee := (*cmdutil.ExitError)(nil); errors.As(err, &ee) && ee.Err == nil {
		// Each was named on stderr; the report's error says them all.
		rep.Error = cmdutil.Reasons(append(append([]cmdutil.Problem{}, res.Failed...), res.Skipped...))
	}
	if stopped {
		rep.Signal = cmdutil.SignalName(sig)
	}
	stats := func() fio.Stats {
		st := imgs.Stats()
		st.PageCache = cmdutil.PageCache(c, res.PageCache.String())
		return st
	}
	return cmdutil.Finish(c, stdout, stderr, rep, stats, err)
}

// setAlloc gives a FAT volume the allocation policy. exFAT volumes get
// every file contiguous: first-fit follows FSINFO's hint, which exFAT
// has not.
func setAlloc(im *cmdutil.Image, alloc vol.AllocPolicy) error {
	if f, ok := im.Vol.(vol.FATFeatures); ok {
		f.SetAllocPolicy(alloc)
		return nil
	}
	if alloc == vol.AllocFirstFit && im.Dev.Writable() {
		return fmt.Errorf("%s: --alloc first-fit places files as Linux's FAT driver and mcopy do, from FSINFO's next free cluster; an exFAT volume has no FSINFO, and fcp gives each file one contiguous run there", im.Spec)
	}
	return nil
}
