package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// discardFlags are --no-discard and --secure-erase.
func discardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-discard", Usage: "do not discard the range the file system takes before writing it (default: discard it on a block device, punch it out of an image file)"},
		&cli.BoolFlag{Name: "secure-erase", Usage: "discard with BLKSECDISCARD (a secure erase), on block devices that support it"},
	}
}

// discardResult is --json's "discard" object.
type discardResult = fio.DiscardResult

// discardRequest is what the command line asks of the discard, and what
// the discard did (nil until it ran, and with --no-discard).
type discardRequest struct {
	off, secure bool
	res         *discardResult
}

func discardOf(c *cli.Context) discardRequest {
	return discardRequest{off: c.Bool("no-discard"), secure: c.Bool("secure-erase")}
}

// printDiscard says what the discard of a block device did, in one line
// (an image file's is in --json alone: punching its range out is how an
// image stays sparse, and its output stays mkfs.fat's).
func printDiscard(w io.Writer, target string, res *discardResult) {
	switch {
	case res == nil || res.Punched || (res.Unsupported && !res.Secure && !isBlock(target)):
	case res.Unsupported && res.Secure:
		fmt.Fprintf(w, "%s does not support secure erase: nothing was erased\n", target)
	case res.Unsupported:
		fmt.Fprintf(w, "%s does not support discard: nothing was discarded\n", target)
	case res.Secure:
		fmt.Fprintf(w, "securely erased %s\n", cmdutil.HumanSize(res.Bytes))
	default:
		fmt.Fprintf(w, "discarded %s\n", cmdutil.HumanSize(res.Bytes))
	}
}

// isBlock reports whether path is a block device.
func isBlock(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeDevice != 0
}
