// Command fcp copies files and trees into FAT images, out of them, and
// within or between them, with mtools' addressing (-i IMAGE ::/path, or
// IMAGE::/path) and cp's rules.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

func main() {
	// SIGINT and SIGTERM stop the copy at the next file boundary, with
	// everything copied so far committed.
	cmdutil.CatchInterrupts()
	cmdutil.Main(run)
}

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"r", "R", "s"}, Usage: "copy directories and their contents"},
		&cli.BoolFlag{Name: "preserve", Aliases: []string{"p"}, Value: true, Usage: "keep modification times (the default)"},
		&cli.BoolFlag{Name: "no-preserve", Usage: "stamp copies with the current time"},
		&cli.BoolFlag{Name: "no-clobber", Aliases: []string{"n"}, Usage: "do not overwrite existing files"},
		&cli.BoolFlag{Name: "no-progress", Usage: "never draw a progress bar"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fcp", "copy files and trees into, out of and within FAT images",
		"fcp [flags] SOURCE... DEST\n\n"+cmdutil.AddressingHelp+" Other paths are host paths.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 2, -1); err != nil {
			return err
		}
		return fcp(c, stdout, stderr)
	}
	return app.Run(args)
}

// report is fcp --json's output.
type report struct {
	Files   int        `json:"files"`
	Dirs    int        `json:"dirs"`
	Bytes   int64      `json:"bytes"`
	Skipped []string   `json:"skipped"`
	Failed  int        `json:"failed"`
	Error   string     `json:"error,omitempty"`
	Stats   *fio.Stats `json:"stats,omitempty"`
}

func fcp(c *cli.Context, stdout, stderr io.Writer) error {
	args := c.Args().Slice()
	defImage := c.String(cmdutil.FlagImage)
	var srcs []cmdutil.Operand
	for _, a := range args[:len(args)-1] {
		op, err := cmdutil.ParseOperand(a, defImage)
		if err != nil {
			return err
		}
		srcs = append(srcs, op)
	}
	dst, err := cmdutil.ParseOperand(args[len(args)-1], defImage)
	if err != nil {
		return err
	}
	anyImage := dst.InImage()
	for _, s := range srcs {
		anyImage = anyImage || s.InImage()
	}
	if !anyImage {
		return errors.New("neither a SOURCE nor DEST is inside an image (write ::/path with -i IMAGE, or IMAGE::/path); use cp for host copies")
	}
	// The destination's image opens writable, the others read-only; an
	// image that is both is opened once, writable.
	imgs := cmdutil.Images{}
	defer imgs.Close()
	var buf []byte
	for _, op := range append([]cmdutil.Operand{dst}, srcs...) {
		if op.InImage() {
			im, err := imgs.Open(c, op.Image, dst.InImage() && op.Image == dst.Image)
			if err != nil {
				return err
			}
			if buf == nil {
				// Aligned, so that reads from the image go straight
				// into it with O_DIRECT.
				buf = im.Dev.AlignedBuffer(im.Dev.IOSize())
			}
		}
	}
	preserve := c.Bool("preserve") && !c.Bool("no-preserve")
	sideOf := func(op cmdutil.Operand) any {
		if op.InImage() {
			return volSide{vol: imgs[op.Image].Vol, preserve: preserve}
		}
		return hostSide{preserve: preserve}
	}
	show := func(op cmdutil.Operand, p string) string { return op.Show(p) }
	cp := &copier{
		recursive: c.Bool("recursive"),
		noClobber: c.Bool("no-clobber"),
		buf:       buf,
		warn:      func(f string, a ...any) { cmdutil.Warn(stderr, "fcp", f, a...) },
		progress:  func(int64) {},
	}

	// Expand wildcards in image sources.
	var expanded []end
	var opErrs []error
	for _, s := range srcs {
		ends, err := expand(s, sideOf(s), show, cp.warn)
		if err != nil {
			opErrs = append(opErrs, err)
			continue
		}
		expanded = append(expanded, ends...)
	}

	bar := newBar(c, stderr, expanded)
	if bar != nil {
		cp.progress = func(n int64) { bar.Add64(n) }
	}

	dstSide := sideOf(dst)
	if h, ok := dstSide.(hostSide); ok {
		// Below DEST, links are not followed: nothing is written through
		// a symbolic link out of it. DEST itself may be one, as with cp.
		h.top = filepath.Clean(dst.Path)
		dstSide = h
	}
	dstEnd := end{dstSide, dst.Path, show(dst, dst.Path)}
	runErr := cp.copyAll(expanded, dstEnd, dst, len(srcs) > 1)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	closeErr := imgs.Close()

	var stop *errStop
	var errs []error
	errs = append(errs, opErrs...)
	if runErr != nil && !errors.Is(runErr, errReported) {
		errs = append(errs, runErr)
	}
	if closeErr != nil {
		errs = append(errs, closeErr)
	}
	failed := len(errs) > 0 || errors.Is(runErr, errReported) || cp.failed > 0
	if c.Bool(cmdutil.FlagJSON) {
		rep := report{Files: cp.files, Dirs: cp.dirs, Bytes: cp.bytes, Skipped: cp.skipped, Failed: cp.failed + len(errs)}
		if rep.Skipped == nil {
			rep.Skipped = []string{}
		}
		if len(errs) > 0 {
			rep.Error = errors.Join(errs...).Error()
		}
		if c.Bool(cmdutil.FlagStats) {
			st := imgs.Stats()
			rep.Stats = &st
		}
		cmdutil.PrintJSON(stdout, rep)
	} else if c.Bool(cmdutil.FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if sig, ok := cmdutil.Interrupted(); ok && errors.Is(runErr, errInterrupted) {
		if closeErr != nil {
			return closeErr
		}
		return cmdutil.InterruptError(sig, fmt.Sprintf("stopped after %d files; what was copied is committed and the volume is consistent", cp.files))
	}
	if !failed {
		return nil
	}
	if errors.As(runErr, &stop) && len(errs) == 1 {
		return stop.err
	}
	if len(errs) == 0 {
		return cmdutil.Exit(1, nil)
	}
	return errors.Join(errs...)
}

// copyAll copies each source to the destination with cp's rules: into DEST
// when it is a directory (or several sources are given, or DEST ends in a
// slash), else as DEST.
func (cp *copier) copyAll(srcs []end, dst end, dstOp cmdutil.Operand, many bool) error {
	ds := dst.dst()
	dfi, err := ds.stat(dst.path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	intoDir := many || dstOp.Slash || (exists && dfi.IsDir())
	if exists && !dfi.IsDir() && (many || dstOp.Slash) {
		return fmt.Errorf("target '%s' is not a directory", dst.show)
	}
	if !exists {
		parent := parentPath(dst)
		if intoDir {
			parent = dst.path
		}
		if pfi, perr := ds.stat(parent); perr != nil || !pfi.IsDir() {
			if !cp.recursive {
				what := dst.show
				if !intoDir {
					what = parent
				}
				return fmt.Errorf("cannot create '%s': directory '%s' does not exist (give -r to create it)", dst.show, what)
			}
			if err := ds.mkdirAll(parent, zeroTime); err != nil {
				return cp.fatal(fmt.Errorf("cannot create directory '%s': %w", parent, err))
			}
		}
	}
	failed := false
	report := func(err error) {
		cp.warn("%v", err)
		cp.failed++
		failed = true
	}
	for _, s := range srcs {
		target := dst
		sfi, err := s.src().stat(s.path)
		if err != nil {
			report(fmt.Errorf("cannot stat '%s': %w", s.show, err))
			continue
		}
		contents := sfi.IsDir() && s.contents()
		if intoDir && !contents {
			name := s.src().base(s.path)
			if why := ds.nameProblem(name); why != "" {
				cp.warn("skipping '%s': the name %q %s", s.show, name, why)
				cp.skipped = append(cp.skipped, s.show)
				continue
			}
			target = end{dst.side, ds.join(dst.path, name), ds.join(dst.show, name)}
		}
		if sameFile(s, target) {
			report(fmt.Errorf("'%s' and '%s' are the same file", s.show, target.show))
			continue
		}
		if sfi.IsDir() && inside(s, target) {
			report(fmt.Errorf("cannot copy a directory, '%s', into itself, '%s'", s.show, target.show))
			continue
		}
		if contents {
			if !cp.recursive {
				report(fmt.Errorf("-r not specified; omitting directory '%s'", s.show))
				continue
			}
			err = cp.copyDir(end{s.side, s.path, strings.TrimSuffix(s.show, "/.")}, target, sfi)
		} else {
			err = cp.copyTo(s, target)
		}
		if err != nil {
			var stop *errStop
			if errors.As(err, &stop) {
				return err
			}
			if errors.Is(err, errReported) {
				failed = true
				continue
			}
			report(err)
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// contents reports whether a source operand asks for a directory's contents.
func (e end) contents() bool {
	return strings.HasSuffix(e.show, "/.") || e.show == "." || strings.HasSuffix(e.show, "::/") || e.show == "::/"
}

func parentPath(e end) string { return path.Dir(e.path) }

// sameFile and inside compare two ends on the same volume.
func sameFile(a, b end) bool {
	va, ok1 := a.side.(volSide)
	vb, ok2 := b.side.(volSide)
	return ok1 && ok2 && va.vol == vb.vol && strings.EqualFold(a.path, b.path)
}

func inside(a, b end) bool {
	va, ok1 := a.side.(volSide)
	vb, ok2 := b.side.(volSide)
	if !ok1 || !ok2 || va.vol != vb.vol {
		return false
	}
	ap, bp := strings.ToLower(a.path), strings.ToLower(b.path)
	return ap == "." || strings.HasPrefix(bp, ap+"/")
}

// expand turns an image source with wildcards in its last element into the
// matching entries (matched case-insensitively, as FAT names are).
func expand(op cmdutil.Operand, side any, show func(cmdutil.Operand, string) string, warn func(string, ...any)) ([]end, error) {
	base := path.Base(op.Path)
	s := side.(source)
	if !op.InImage() || !strings.ContainsAny(base, "*?[") {
		sh := show(op, op.Path)
		if op.Contents && op.InImage() {
			sh = strings.TrimSuffix(sh, "/") + "/."
		} else if op.Contents {
			sh = op.Raw
		}
		return []end{{side, op.Path, sh}}, nil
	}
	dir := path.Dir(op.Path)
	ents, err := s.readDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot list '%s': %w", show(op, dir), err)
	}
	pat := fat.FoldName(base)
	if _, err := path.Match(pat, ""); err != nil {
		return nil, fmt.Errorf("bad pattern '%s': %w", op.Raw, err)
	}
	var out []end
	for _, e := range ents {
		if ok, _ := path.Match(pat, fat.FoldName(e.Name())); ok {
			if why := cmdutil.Unaddressable(e.Name()); why != "" {
				warn("skipping '%s': the name %q %s", s.join(show(op, dir), e.Name()), e.Name(), why)
				continue
			}
			p := side.(source).join(dir, e.Name())
			out = append(out, end{side, p, show(op, p)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no match for '%s'", op.Raw)
	}
	return out, nil
}
