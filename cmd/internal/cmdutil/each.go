package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/pkg/vol"
)

// ChangeReport is the --json object of a command that changes volumes
// operand by operand (frm, fmkdir, frmdir, fattrib): what was done, and
// what failed and why.
type ChangeReport struct {
	Done   []string  `json:"done"`
	Failed []Problem `json:"failed"`
	Outcome
}

// Each says how EachOperand treats the operands.
type Each struct {
	Name  string // the command, for messages
	Verb  string // what -v says was done to each path ("removed")
	Glob  bool   // expand wildcards in the operands (not for paths to create)
	Write bool   // open the images writable
}

// EachOperand opens the image of every operand (each image once), expands
// its wildcards, applies fn to each path, reports failures as it goes
// (going on with the next, as rm does), names each path done under -v,
// then commits and closes the images and finishes (Finish).
func EachOperand(c *cli.Context, stdout, stderr io.Writer, e Each, fn func(vol.Volume, Operand) error) error {
	imgs := Images{}
	defer imgs.Close()
	rep := &ChangeReport{}
	fail := func(what string, err error) {
		rep.Failed = append(rep.Failed, Failure(stderr, e.Name, what, err))
	}
	for _, a := range c.Args().Slice() {
		ops, skipped, err := e.expand(c, imgs, a)
		for _, p := range skipped {
			fail(p.Path, fmt.Errorf("%s: %s", Quote(p.Path), p.Reason))
		}
		if err != nil {
			if IsInterrupt(err) {
				// Stopped waiting for a lock: commit what is done, and stop.
				return errors.Join(err, imgs.Close())
			}
			fail(a, err)
			continue
		}
		for _, op := range ops {
			im := imgs[op.Image]
			if err := fn(im.Vol, op); err != nil {
				fail(op.Show(op.Path), err)
				continue
			}
			rep.Done = append(rep.Done, op.Show(op.Path))
			if e.Verb != "" && c.Bool(FlagVerbose) {
				fmt.Fprintf(stderr, "%s %s\n", e.Verb, Quote(op.Show(op.Path)))
			}
		}
	}
	var err error
	if closeErr := imgs.Close(); closeErr != nil {
		err = closeErr
	} else if len(rep.Failed) > 0 {
		err = Exit(1, nil) // each was named
		rep.Error = Reasons(rep.Failed)
	}
	return Finish(c, stdout, stderr, rep, imgs.Stats, err)
}

// expand opens the image an argument names and returns the operands it
// stands for, and the wildcard matches whose names cannot be used.
func (e Each) expand(c *cli.Context, imgs Images, arg string) ([]Operand, []Problem, error) {
	op, err := ImageOperand(c, arg)
	if err != nil {
		return nil, nil, err
	}
	im, err := imgs.Open(c, op.Image, e.Write)
	if err != nil {
		return nil, nil, err
	}
	if !e.Glob {
		return []Operand{op}, nil, nil
	}
	return Expand(im.Vol, op)
}

// UnwrapPath drops the op and path of a *fs.PathError or *os.LinkError
// (the path as the library saw it, "stat /a.txt"): messages name the
// operand as the user wrote it.
func UnwrapPath(err error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe) && pe.Err != nil:
			err = pe.Err
		case errors.As(err, &le) && le.Err != nil:
			err = le.Err
		default:
			return err
		}
	}
}
