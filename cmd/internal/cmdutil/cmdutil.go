// Package cmdutil holds what every ftools command shares: the urfave/cli
// application skeleton, the image, I/O and output flags, exit codes, --stats
// and --json output, and the progress bar. Commands stay thin: they parse
// flags here, call pkg/fat, and print.
package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// ExitError carries a specific exit status (fverify's 4 and 8, 130 on
// SIGINT). A nil Err exits with Code without printing anything.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit wraps err so that the command exits with code.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// RunFunc is the shape of every command's run function: tests call it
// directly with their own writers.
type RunFunc func(args []string, stdout, stderr io.Writer) error

// GCPercent and MemoryLimit are what Main gives the Go runtime (see
// runtime/debug.SetGCPercent and SetMemoryLimit). The soft limit is what
// keeps a command within its bound (64 MiB) when it allocates fast: below
// it the collector's slack (half what is live) and the pages it has not
// yet returned come on top of what is live, and a copy of a million small
// files peaked at 86-97 MiB with some 30 MiB live. fverify, bound to 128
// MiB, keeps VerifyMemoryLimit (MainWithin): its FAT check holds some 60
// bytes per file (a million files: some 85 MiB live, 95 MiB peak).
const (
	GCPercent         = 50
	MemoryLimit       = 44 << 20
	VerifyMemoryLimit = 96 << 20
)

// Main runs run with the process's arguments and streams, prints its error
// prefixed with the command name, and exits with the right status. Under
// --json a failure that printed nothing prints its Outcome (JSONErrors).
func Main(run RunFunc) { MainWithin(MemoryLimit, run) }

// MainWithin is Main with another soft memory limit.
func MainWithin(limit int64, run RunFunc) {
	// FTOOLS_CPUPROFILE=FILE writes a CPU profile, for finding where a
	// slow run spends its time (go tool pprof).
	if path := os.Getenv("FTOOLS_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	// The collector lets the heap grow by half what is live (GOGC=50, not
	// the default 100) and works harder near a soft memory limit, so that
	// its slack does not double a command's peak: the commands keep to
	// 64 MiB on a 2 TiB volume, fcp to 256 MiB with a million files.
	// GOGC and GOMEMLIMIT override them.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
	err := CheckSourceDateEpoch()
	if err == nil {
		err = JSONErrors(run)(os.Args, os.Stdout, os.Stderr)
	}
	// FTOOLS_MEMPROFILE=FILE writes a heap profile of what is still live
	// when the command ends (go tool pprof).
	if path := os.Getenv("FTOOLS_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	code := Report(os.Stderr, progName(), err)
	pprof.StopCPUProfile()
	os.Exit(code)
}

// Report prints err (if any) as "name: message" on w and returns the exit
// status for it: 0 for nil, the ExitError's code, else 1.
func Report(w io.Writer, name string, err error) int {
	var ee *ExitError
	if err != nil && !(errors.As(err, &ee) && ee.Err == nil) {
		Warn(w, name, "%s", Message(err))
	}
	return ExitStatus(err)
}

// pkgPrefix finds the package prefixes ftools' libraries start their
// messages with ("fat: ", "io: "): a command's message is in the user's
// terms, without them.
var pkgPrefix = regexp.MustCompile(`(^|: |\n)(?:fat|exfat|io): `)

// Message is err's text as a command shows it: without the libraries'
// package prefixes ("x.img: fat: boot sector: ..." reads "x.img: boot
// sector: ...").
func Message(err error) string {
	return pkgPrefix.ReplaceAllString(err.Error(), "$1")
}

// Failure reports err on w as name's message, in the user's terms
// (Message: without the libraries' package prefixes), and returns it as
// the Problem about what that --json lists, with the same reason.
func Failure(w io.Writer, name, what string, err error) Problem {
	msg := Message(err)
	Warn(w, name, "%s", msg)
	return Problem{Path: what, Reason: msg}
}

// Warn prints a message as "name: message" on w. Every line of a
// multi-line message (joined errors) gets the prefix, and control
// characters (from names in a hostile image) are shown escaped, so that a
// message is always lines of "name: ..." and never drives the terminal.
func Warn(w io.Writer, name, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		fmt.Fprintf(w, "%s: %s\n", name, Sanitize(line))
	}
}

// Sanitize escapes control characters (and invalid UTF-8) in s as \xNN.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func progName() string {
	if len(os.Args) > 0 {
		return baseName(os.Args[0])
	}
	return "ftools"
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// PrintJSON writes v as indented JSON followed by a newline. Nil slices and
// maps in v (a struct or a pointer to one) are written as [] and {}: a
// list in ftools' JSON is never null.
func PrintJSON(w io.Writer, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p
	}
	fillNil(rv.Elem())
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rv.Interface())
}

// fillNil replaces nil slices and maps in v (settable) by empty ones,
// through structs, pointers, slices and maps of structs.
func fillNil(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillNil(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				fillNil(f)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes (and json.RawMessage) stay as they are
		}
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			fillNil(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.MakeMap(v.Type()))
		}
	}
}

// NeedArgs checks the number of positional arguments.
func NeedArgs(c *cli.Context, min, max int) error {
	n := c.NArg()
	if n < min || (max >= 0 && n > max) {
		if n < min {
			return fmt.Errorf("missing operand (see '%s --help')", c.App.Name)
		}
		return fmt.Errorf("too many operands: %q (see '%s --help')", c.Args().Slice()[max:], c.App.Name)
	}
	return nil
}
