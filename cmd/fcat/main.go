// Command fcat writes files from FAT images to standard output, like mtype
// and cat, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
)

func main() { cmdutil.Main(run) }

// chunk is the read size: large reads let the volume read a contiguous file
// in few requests.
const chunk = 4 << 20

func flags() []cli.Flag {
	fl := []cli.Flag{cmdutil.ImageFlag()}
	fl = append(fl, cmdutil.ImageFlags()...)
	fl = append(fl, cmdutil.IOFlags(false)...)
	return append(fl, &cli.BoolFlag{Name: cmdutil.FlagStats, Usage: "print what reached the device on stderr: requests, bytes, average size, flushes, time"})
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fcat", "write files from FAT images to standard output",
		"fcat [flags] ::/FILE...\n\n"+cmdutil.AddressingHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		return cat(c, stdout, stderr)
	}
	return app.Run(args)
}

func cat(c *cli.Context, stdout, stderr io.Writer) error {
	imgs := cmdutil.Images{}
	defer imgs.Close()
	buf := make([]byte, chunk)
	failed := false
	for _, a := range c.Args().Slice() {
		if err := catOne(c, imgs, a, stdout, buf); err != nil {
			var we *writeError
			if errors.As(err, &we) {
				return we.err // stdout is gone: stop, as cat does
			}
			if cmdutil.IsInterrupt(err) {
				return err
			}
			cmdutil.Warn(stderr, "fcat", "%v", err)
			failed = true
		}
	}
	if err := imgs.Close(); err != nil {
		return err
	}
	if c.Bool(cmdutil.FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if failed {
		return cmdutil.Exit(1, nil)
	}
	return nil
}

// writeError is a failure to write standard output.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

func catOne(c *cli.Context, imgs cmdutil.Images, arg string, stdout io.Writer, buf []byte) error {
	op, err := cmdutil.ImageOperand(c, arg)
	if err != nil {
		return err
	}
	im, err := imgs.Open(c, op.Image, false)
	if err != nil {
		return err
	}
	f, err := im.Vol.Open(op.VolPath())
	if err != nil {
		return fmt.Errorf("%s: %w", op.Show(op.VolPath()), unwrap(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", op.Show(op.Path))
	}
	for {
		n, rerr := f.Read(buf)
		if n > 0 {
			if _, err := stdout.Write(buf[:n]); err != nil {
				return &writeError{fmt.Errorf("writing standard output: %w", err)}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("%s: %w", op.Show(op.Path), unwrap(rerr))
		}
	}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
