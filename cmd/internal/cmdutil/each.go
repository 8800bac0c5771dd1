package cmdutil

import (
	"errors"
	"io"
	"io/fs"

	"github.com/urfave/cli/v2"

	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

// changeSummary is the --json output of a command that changes volumes.
type changeSummary struct {
	Done   []string   `json:"done"`
	Failed int        `json:"failed"`
	Error  string     `json:"error,omitempty"`
	Stats  *fio.Stats `json:"stats,omitempty"`
}

// EachOperand opens the image of every operand writable (each image once),
// applies fn, reports failures as it goes (going on with the next operand,
// as rm does), then commits and closes the images and prints the summary.
func EachOperand(c *cli.Context, name string, stdout, stderr io.Writer, fn func(*fat.Volume, Operand) error) error {
	imgs := Images{}
	defer imgs.Close()
	sum := changeSummary{Done: []string{}}
	var errs []error
	for _, a := range c.Args().Slice() {
		op, err := ImageOperand(c, a)
		if err == nil {
			var im *Image
			if im, err = imgs.Open(c, op.Image, true); err == nil {
				err = fn(im.Vol, op)
			}
		}
		if IsInterrupt(err) {
			// Stopped waiting for a lock: commit what is done, and stop.
			if cerr := imgs.Close(); cerr != nil {
				return errors.Join(err, cerr)
			}
			return err
		}
		if err != nil {
			if !c.Bool(FlagJSON) {
				Warn(stderr, name, "%v", err)
			}
			errs = append(errs, err)
			continue
		}
		sum.Done = append(sum.Done, op.Show(op.Path))
	}
	closeErr := imgs.Close()
	if closeErr != nil {
		errs = append(errs, closeErr)
	}
	sum.Failed = len(errs)
	if c.Bool(FlagJSON) {
		if len(errs) > 0 {
			sum.Error = errors.Join(errs...).Error()
		}
		if c.Bool(FlagStats) {
			st := imgs.Stats()
			sum.Stats = &st
		}
		if err := PrintJSON(stdout, sum); err != nil {
			return err
		}
	} else if c.Bool(FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if closeErr != nil {
		return closeErr
	}
	if len(errs) > 0 {
		return Exit(1, nil) // each was reported
	}
	return nil
}

// UnwrapPath drops a *fs.PathError's op and path: messages name the operand as
// the user wrote it.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
