package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// CanAsk reports whether a command may ask its user: stdin and stderr
// are both terminals (a script's pipe or file never answers).
func CanAsk(stdin io.Reader, stderr io.Writer) bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && IsTerminal(stderr)
}

// Confirm writes question and " [y/N] " to out and reads one line from
// in: "y" or "yes" (any case, spaces around) is yes; anything else, an
// empty line or the end of the input is no.
func Confirm(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprintf(out, "%s [y/N] ", question)
	answer, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}
