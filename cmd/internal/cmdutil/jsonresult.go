package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	fio "github.com/ftools/ftools/pkg/io"
)

// Problem is one path a command skipped or could not handle, and why, in
// the user's terms: --json lists them, and stderr names each.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Reasons is the "error" of a report whose problems were each named: each
// path with its reason (the reason alone when it names the path).
func Reasons(ps []Problem) string {
	var s []string
	for _, p := range ps {
		if strings.Contains(p.Reason, p.Path) {
			s = append(s, p.Reason)
		} else {
			s = append(s, p.Path+": "+p.Reason)
		}
	}
	return strings.Join(s, "; ")
}

// Outcome ends every command's --json object, so that all of them share
// one shape: one object on standard output, also when the command fails;
// "error" (only on failure) says why in one message, "exit_status" is the
// status the command exits with, and "stats" (with --stats) what reached
// the device. Lists in the object are never null (PrintJSON sees to it).
// A command's report embeds it; a command that fails before it has a
// report prints the Outcome alone (see JSONErrors).
type Outcome struct {
	Error      string     `json:"error,omitempty"`
	ExitStatus int        `json:"exit_status"`
	Stats      *fio.Stats `json:"stats,omitempty"`
}

func (o *Outcome) outcome() *Outcome { return o }

// Reporter is a command's --json object: a struct that embeds Outcome.
type Reporter interface{ outcome() *Outcome }

// Finish is the tail every command shares once its images are closed: it
// fills in rep's Outcome from err (and stats, with --stats) and prints rep
// on standard output under --json; otherwise --stats prints the statistics
// on standard error. It returns err, whose exit status the command exits
// with. An ExitError without a message means each failure was named on
// standard error already; rep.Error then keeps what the command put there.
func Finish(c *cli.Context, stdout, stderr io.Writer, rep Reporter, stats func() fio.Stats, err error) error {
	o := rep.outcome()
	o.ExitStatus = ExitStatus(err)
	var ee *ExitError
	if err != nil && o.Error == "" && !(errors.As(err, &ee) && ee.Err == nil) {
		o.Error = Message(err)
	}
	if c.Bool(FlagJSON) {
		if c.Bool(FlagStats) && stats != nil {
			st := stats()
			o.Stats = &st
		}
		if perr := PrintJSON(stdout, rep); perr != nil && err == nil {
			return perr
		}
	} else if c.Bool(FlagStats) && stats != nil {
		st := stats()
		st.WriteTo(stderr)
	}
	return err
}

// JSONErrors wraps run so that under --json every failure is JSON too: when
// run returns an error without having written anything to standard output,
// one Outcome object is printed there. The message still goes to
// standard error. Main wraps every command with it.
//
// It also keeps output from being lost in silence: a write to standard
// output that fails (a full disk, /dev/full, an I/O error) makes a command
// that would have succeeded fail, as ls and cat do ("writing standard
// output: no space left on device"), with status 1, or fverify's 8 (fsck's
// operational error).
func JSONErrors(run RunFunc) RunFunc {
	return func(args []string, stdout, stderr io.Writer) error {
		w := &countingWriter{w: stdout}
		err := run(args, w, stderr)
		if w.err != nil && ExitStatus(err) == 0 {
			code := 1
			if len(args) > 0 && filepath.Base(args[0]) == "fverify" {
				code = 8
			}
			return Exit(code, fmt.Errorf("writing standard output: %s", ErrText(w.err)))
		}
		if err != nil && w.n == 0 && WantsJSON(args) {
			msg := Message(err)
			var ee *ExitError
			if errors.As(err, &ee) && ee.Err == nil {
				msg = ""
			}
			PrintJSON(stdout, &Outcome{Error: msg, ExitStatus: ExitStatus(err)})
		}
		return err
	}
}

// WantsJSON reports whether a command line (args[0] is the command) asks
// for --json before any "--".
func WantsJSON(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "--" {
			return false
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == FlagJSON && (!hasVal || val == "true" || val == "1") {
			return true
		}
	}
	return false
}

// ExitStatus is the exit status for err: 0 for nil, an ExitError's code,
// else 1.
func ExitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 1
}

// countingWriter is standard output as a command writes it: it counts
// what was written and keeps the first write that failed, named as
// standard output rather than as the system's "/dev/stdout".
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		err = &fs.PathError{Op: "write", Path: "standard output", Err: UnwrapPath(err)}
		if c.err == nil {
			c.err = err
		}
	}
	return n, err
}
