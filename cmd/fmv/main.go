// Command fmv renames and moves files and directories within a FAT volume,
// like mmove and mv, without copying their data: the entries move, the
// clusters stay.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		cmdutil.ImageFlag(),
		cmdutil.VerboseFlag("name each move on stderr as it is made (as mv -v)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmv", "rename and move files and directories within a FAT or exFAT volume",
		"fmv [flags] ::/SOURCE... ::/DEST\n\n"+cmdutil.AddressingHelp+" All paths must be on the same volume.\n"+"Wildcards are taken in SOURCE only.\n"+cmdutil.WildcardHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 2, -1); err != nil {
			return err
		}
		return move(c, stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

// moved is one rename in fmv --json's output.
type moved struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// summary is fmv --json's object.
type summary struct {
	Moved  []moved           `json:"moved"`
	Failed []cmdutil.Problem `json:"failed"`
	cmdutil.Outcome
}

func move(c *cli.Context, stdout, stderr io.Writer) error {
	args := c.Args().Slice()
	var ops []cmdutil.Operand
	for _, a := range args {
		op, err := cmdutil.ImageOperand(c, a)
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	dst := ops[len(ops)-1]
	imgs := cmdutil.Images{}
	defer imgs.Close()
	im, err := imgs.Open(c, dst.Image, true)
	if err != nil {
		return err
	}
	for _, op := range ops[:len(ops)-1] {
		if cmdutil.SameImage(op.Image, dst.Image) {
			continue
		}
		// Spelled otherwise ("card.img@@1M" and "card.img", which opens
		// at that partition), it may still be the same volume.
		other, err := imgs.Open(c, op.Image, false)
		if err != nil {
			return err
		}
		if other != im {
			return fmt.Errorf("'%s' and '%s' are on different images: fmv moves within one volume (use fcp and frm)", op.Raw, dst.Raw)
		}
	}
	v := im.Vol
	sum := &summary{}
	fail := func(what string, err error) {
		sum.Failed = append(sum.Failed, cmdutil.Failure(stderr, "fmv", what, err))
	}
	var srcs []cmdutil.Operand
	for _, op := range ops[:len(ops)-1] {
		matched, skipped, err := cmdutil.Expand(v, op)
		for _, p := range skipped {
			fail(p.Path, fmt.Errorf("%s: %s", cmdutil.Quote(p.Path), p.Reason))
		}
		if err != nil {
			fail(op.Raw, err)
		}
		srcs = append(srcs, matched...)
	}
	if dst.Path, err = cmdutil.StoreName(stderr, "fmv", v, dst, dst.Path, false); err != nil {
		return fmt.Errorf("cannot move to %s: %s", cmdutil.Quote(dst.Show(dst.Path)), cmdutil.ErrText(err))
	}
	dfi, err := v.Stat(dst.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot use %s: %s", cmdutil.Quote(dst.Show(dst.Path)), cmdutil.ErrText(err))
	}
	if err != nil {
		dfi = nil
	}
	intoDir := dfi != nil && dfi.IsDir()
	if !intoDir && (len(srcs) > 1 || dst.Slash && !(dfi == nil && loneDir(v, srcs))) {
		return fmt.Errorf("target %s is not a directory", cmdutil.Quote(dst.Show(dst.Path)))
	}
	for _, s := range srcs {
		to, err := moveOne(v, s, dst, dfi, len(srcs) > 1, stderr)
		if err != nil {
			fail(s.Show(s.Path), err)
			continue
		}
		sum.Moved = append(sum.Moved, moved{From: s.Show(s.Path), To: dst.Show(to)})
		if c.Bool(cmdutil.FlagVerbose) {
			fmt.Fprintf(stderr, "renamed %s -> %s\n", cmdutil.Quote(s.Show(s.Path)), cmdutil.Quote(dst.Show(to)))
		}
	}
	if err = imgs.Close(); err == nil && len(sum.Failed) > 0 {
		err = cmdutil.Exit(1, nil) // each was named
		sum.Error = cmdutil.Reasons(sum.Failed)
	}
	return cmdutil.Finish(c, stdout, stderr, sum, imgs.Stats, err)
}

// loneDir says whether srcs is one directory: mv renames it to a DEST/
// that does not exist yet (mv d new/), where a file is refused.
func loneDir(v vol.Volume, srcs []cmdutil.Operand) bool {
	if len(srcs) != 1 {
		return false
	}
	fi, err := v.Stat(srcs[0].VolPath())
	return err == nil && fi.IsDir()
}

// moveOne renames s to dst, or into dst (described by dfi, nil if it does
// not exist) under its own name when dst is a directory (always, for many
// sources).
func moveOne(v vol.Volume, s, dst cmdutil.Operand, dfi fs.FileInfo, many bool, stderr io.Writer) (string, error) {
	fail := func(to string, err error) error {
		return fmt.Errorf("cannot move %s to %s: %s", cmdutil.Quote(s.Show(s.Path)), cmdutil.Quote(dst.Show(to)), cmdutil.ErrText(err))
	}
	if s.Path == "." {
		return "", fmt.Errorf("cannot move %s: it is the root directory", cmdutil.Quote(s.Show(s.Path)))
	}
	sfi, err := v.Stat(s.VolPath())
	if err != nil {
		return "", fmt.Errorf("cannot move %s: %s", cmdutil.Quote(s.Show(s.VolPath())), cmdutil.ErrText(err))
	}
	to := dst.Path
	// A directory named as DEST under another case ("docs" -> "Docs") is
	// the source itself: that is a rename, as mv does on a case-insensitive
	// file system, not a move into itself.
	self := dfi != nil && sfi.Sys() == dfi.Sys() && !dst.Slash && !many
	if self && sfi.Name() == path.Base(dst.Path) {
		// mv's rule: a move onto itself, spelled the same, is an error.
		return "", fmt.Errorf("%s and %s are the same file", cmdutil.Quote(s.Show(s.Path)), cmdutil.Quote(dst.Show(dst.Path)))
	}
	if dfi != nil && dfi.IsDir() && !self {
		to = path.Join(dst.Path, sfi.Name())
		if to, err = cmdutil.StoreName(stderr, "fmv", v, dst, to, false); err != nil {
			return "", fail(to, err)
		}
	}
	if err := v.Rename(s.Path, to); err != nil {
		return "", fail(to, err)
	}
	return to, nil
}
