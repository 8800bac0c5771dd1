package cmdutil

import (
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
)

// failingWriter fails every write, as /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A command that succeeds but could not write its output fails, naming
// standard output (fverify with fsck's operational status 8); a command
// that failed already keeps its own error.
func TestJSONErrorsLostOutput(t *testing.T) {
	printing := func(args []string, stdout, stderr io.Writer) error {
		_, err := io.WriteString(stdout, "listing\n")
		_ = err // as a command that does not check its writes
		return nil
	}
	err := JSONErrors(printing)([]string{"fls"}, failingWriter{}, io.Discard)
	if ExitStatus(err) != 1 || !strings.Contains(Message(err), "writing standard output: no space left on device") {
		t.Fatalf("fls with lost output: status %d, %v", ExitStatus(err), err)
	}
	if err := JSONErrors(printing)([]string{"/usr/bin/fverify"}, failingWriter{}, io.Discard); ExitStatus(err) != 8 {
		t.Fatalf("fverify with lost output: status %d, %v", ExitStatus(err), err)
	}
	own := errors.New("own failure")
	failing := func(args []string, stdout, stderr io.Writer) error {
		io.WriteString(stdout, "x")
		return Exit(4, own)
	}
	if err := JSONErrors(failing)([]string{"fverify"}, failingWriter{}, io.Discard); !errors.Is(err, own) || ExitStatus(err) != 4 {
		t.Fatalf("a failed command's own error: %v", err)
	}
	var sb strings.Builder
	if err := JSONErrors(printing)([]string{"fls"}, &sb, io.Discard); err != nil || sb.String() != "listing\n" {
		t.Fatalf("written output: %v, %q", err, sb.String())
	}
}
