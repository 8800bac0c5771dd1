package main

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
)

var zeroTime time.Time

// newBar sizes a progress bar by walking the sources first, only when a bar
// can be shown at all.
func newBar(c *cli.Context, stderr io.Writer, srcs []end) *progressbar.ProgressBar {
	if c.Bool(cmdutil.FlagNoProgress) || c.Bool(cmdutil.FlagJSON) || !cmdutil.IsTerminal(stderr) {
		return nil
	}
	var total int64
	for _, s := range srcs {
		total += treeSize(s.src(), s.path, c.Bool("recursive"), 0)
	}
	return cmdutil.NewBar(c, stderr, total, "copying")
}

func treeSize(s source, p string, recursive bool, depth int) int64 {
	fi, err := s.stat(p)
	if err != nil {
		return 0
	}
	if !fi.IsDir() {
		return fi.Size()
	}
	if !recursive || depth > 64 {
		return 0
	}
	ents, err := s.readDir(p)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if e.IsDir() {
			n += treeSize(s, s.join(p, e.Name()), recursive, depth+1)
		} else {
			n += e.Size()
		}
	}
	return n
}
