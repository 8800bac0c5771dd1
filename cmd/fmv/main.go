// Command fmv renames and moves files and directories within a FAT volume,
// like mmove and mv, without copying their data: the entries move, the
// clusters stay.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{cmdutil.ImageFlag()}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fmv", "rename and move files and directories within a FAT volume",
		"fmv [flags] ::/SOURCE... ::/DEST\n\n"+cmdutil.AddressingHelp+" All paths must be on the same volume.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 2, -1); err != nil {
			return err
		}
		return move(c, stdout, stderr)
	}
	return app.Run(args)
}

// moved is one rename in fmv --json's output.
type moved struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type summary struct {
	Moved  []moved    `json:"moved"`
	Failed int        `json:"failed"`
	Error  string     `json:"error,omitempty"`
	Stats  *fio.Stats `json:"stats,omitempty"`
}

func move(c *cli.Context, stdout, stderr io.Writer) error {
	args := c.Args().Slice()
	var ops []cmdutil.Operand
	for _, a := range args {
		op, err := cmdutil.ImageOperand(c, a)
		if err != nil {
			return err
		}
		if len(ops) > 0 && !cmdutil.SameImage(op.Image, ops[0].Image) {
			return fmt.Errorf("'%s' and '%s' are on different images: fmv moves within one volume (use fcp and frm)", ops[0].Raw, op.Raw)
		}
		ops = append(ops, op)
	}
	srcs, dst := ops[:len(ops)-1], ops[len(ops)-1]
	imgs := cmdutil.Images{}
	defer imgs.Close()
	im, err := imgs.Open(c, dst.Image, true)
	if err != nil {
		return err
	}
	v := im.Vol
	dfi, err := v.Stat(dst.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot stat '%s': %w", dst.Show(dst.Path), unwrap(err))
	}
	if err != nil {
		dfi = nil
	}
	intoDir := dfi != nil && dfi.IsDir()
	if !intoDir && (len(srcs) > 1 || dst.Slash) {
		return fmt.Errorf("target '%s' is not a directory", dst.Show(dst.Path))
	}
	sum := summary{Moved: []moved{}}
	var errs []error
	for _, s := range srcs {
		to, err := moveOne(v, s, dst, dfi, len(srcs) > 1)
		if err != nil {
			if !c.Bool(cmdutil.FlagJSON) {
				cmdutil.Warn(stderr, "fmv", "%v", err)
			}
			errs = append(errs, err)
			continue
		}
		sum.Moved = append(sum.Moved, moved{From: s.Show(s.Path), To: dst.Show(to)})
	}
	closeErr := imgs.Close()
	if closeErr != nil {
		errs = append(errs, closeErr)
	}
	sum.Failed = len(errs)
	if c.Bool(cmdutil.FlagJSON) {
		if len(errs) > 0 {
			sum.Error = errors.Join(errs...).Error()
		}
		if c.Bool(cmdutil.FlagStats) {
			st := imgs.Stats()
			sum.Stats = &st
		}
		if err := cmdutil.PrintJSON(stdout, sum); err != nil {
			return err
		}
	} else if c.Bool(cmdutil.FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if closeErr != nil {
		return closeErr
	}
	if len(errs) > 0 {
		return cmdutil.Exit(1, nil)
	}
	return nil
}

// moveOne renames s to dst, or into dst (described by dfi, nil if it does
// not exist) under its own name when dst is a directory (always, for many
// sources).
func moveOne(v *fat.Volume, s, dst cmdutil.Operand, dfi fs.FileInfo, many bool) (string, error) {
	fail := func(to string, err error) error {
		return fmt.Errorf("cannot move '%s' to '%s': %w", s.Show(s.Path), dst.Show(to), unwrap(err))
	}
	if s.Path == "." {
		return "", fmt.Errorf("cannot move '%s': it is the root directory", s.Show(s.Path))
	}
	sfi, err := v.Stat(s.VolPath())
	if err != nil {
		return "", fmt.Errorf("cannot stat '%s': %w", s.Show(s.VolPath()), unwrap(err))
	}
	to := dst.Path
	// A directory named as DEST under another case ("docs" -> "Docs") is
	// the source itself: that is a rename, as mv does on a case-insensitive
	// file system, not a move into itself.
	self := dfi != nil && sfi.Sys() == dfi.Sys() && !dst.Slash && !many
	if dfi != nil && dfi.IsDir() && !self {
		to = path.Join(dst.Path, sfi.Name())
	}
	if err := v.Rename(s.Path, to); err != nil {
		return "", fail(to, err)
	}
	return to, nil
}

// unwrap drops the op and paths of *fs.PathError and *os.LinkError:
// messages name the operands as the user wrote them.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
