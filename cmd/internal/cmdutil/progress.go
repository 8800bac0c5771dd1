package cmdutil

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// FlagNoProgress turns the progress bar off.
const FlagNoProgress = "no-progress"

// progressMin is the least work worth a bar.
const progressMin = 8 << 20

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// NewBar returns a byte progress bar on stderr (bytes, rate, ETA) for total
// bytes of work, or nil when stderr is not a terminal, --no-progress or
// --json is given, or the work is small.
func NewBar(c *cli.Context, stderr io.Writer, total int64, what string) *progressbar.ProgressBar {
	if !ShowsBar(c, stderr) || total < progressMin {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionUseIECUnits(true), // MiB, as --stats counts
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100e6),
		progressbar.OptionFullWidth(),
	)
}

// ShowsBar reports whether a progress bar may be drawn (NewBar draws one
// when the total is large enough too): a command whose total costs a walk
// of its own asks first.
func ShowsBar(c *cli.Context, stderr io.Writer) bool {
	return !c.Bool(FlagNoProgress) && !c.Bool(FlagJSON) && IsTerminal(stderr)
}
