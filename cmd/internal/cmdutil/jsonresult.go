package cmdutil

import (
	"errors"
	"io"
	"strings"
)

// Problem is one path a command skipped or could not handle, and why, in
// the user's terms: --json lists them, and stderr names each.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ErrorReport is what a command prints on standard output under --json
// when it fails before it can print its own report (a bad flag, an image
// that does not open).
type ErrorReport struct {
	Error      string `json:"error"`
	ExitStatus int    `json:"exit_status"`
}

// JSONErrors wraps run so that under --json every failure is JSON too: when
// run returns an error without having written anything to standard output,
// one ErrorReport object is printed there. The message still goes to
// standard error.
func JSONErrors(run RunFunc) RunFunc {
	return func(args []string, stdout, stderr io.Writer) error {
		w := &countingWriter{w: stdout}
		err := run(args, w, stderr)
		if err != nil && w.n == 0 && WantsJSON(args) {
			msg := err.Error()
			var ee *ExitError
			if errors.As(err, &ee) && ee.Err == nil {
				msg = ""
			}
			PrintJSON(stdout, ErrorReport{Error: msg, ExitStatus: ExitStatus(err)})
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

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
