// Command fcat writes files from FAT images to standard output, like mtype
// and cat, with mtools' addressing (-i IMAGE ::/path, or IMAGE::/path) and
// wildcards.
package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

// chunk is the read size: large reads let the volume read a contiguous file
// in few requests.
const chunk = 4 << 20

func flags() []cli.Flag {
	fl := []cli.Flag{cmdutil.ImageFlag(),
		&cli.BoolFlag{Name: "text", Aliases: []string{"t"}, Usage: "text mode, as mtype -t: drop the carriage returns of DOS line ends (CR LF becomes LF) and end each file at a Ctrl-Z (0x1A)"}}
	fl = append(fl, cmdutil.ImageFlags()...)
	fl = append(fl, cmdutil.IOFlags(false)...)
	return append(fl, cmdutil.CacheFlag(), &cli.BoolFlag{Name: cmdutil.FlagStats, Usage: "print what reached the device on stderr: requests, bytes, average size, flushes, time"},
		cmdutil.Refuse("v", "fcat writes the files' bytes as they are; for cat -v's escapes of control characters, pipe it into cat -v"),
		cmdutil.Refuse(cmdutil.FlagJSON, "fcat writes the files' data on standard output, so it prints no JSON; fls --json describes files"))
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fcat", "write files from FAT and exFAT images to standard output",
		"fcat [flags] ::/FILE...\n\n"+cmdutil.AddressingHelp+"\n"+cmdutil.WildcardHelp, stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, -1); err != nil {
			return err
		}
		return cat(c, stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

func cat(c *cli.Context, stdout, stderr io.Writer) error {
	imgs := cmdutil.Images{}
	defer imgs.Close()
	buf := make([]byte, chunk)
	failed := false
	stdout, stdoutDone := cmdutil.HostStdout(stdout, c.Bool(cmdutil.FlagCache))
	for _, a := range c.Args().Slice() {
		if err := catOne(c, imgs, a, stdout, stderr, buf); err != nil {
			var we *writeError
			if errors.As(err, &we) {
				return we.err // stdout is gone: stop, as cat does
			}
			if cmdutil.IsInterrupt(err) {
				return err
			}
			cmdutil.Warn(stderr, "fcat", "%s", cmdutil.Message(err))
			failed = true
		}
	}
	mode := stdoutDone()
	err := imgs.Close()
	if err == nil && failed {
		err = cmdutil.Exit(1, nil) // each was named
	}
	stats := func() fio.Stats {
		st := imgs.Stats()
		st.PageCache = cmdutil.PageCache(c, mode)
		return st
	}
	return cmdutil.Finish(c, stdout, stderr, &cmdutil.Outcome{}, stats, err)
}

// writeError is a failure to write standard output.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// catOne writes the files one argument names (its wildcards expanded);
// failures other than a failed write are named on stderr as they come.
func catOne(c *cli.Context, imgs cmdutil.Images, arg string, stdout, stderr io.Writer, buf []byte) error {
	op, err := cmdutil.ImageOperand(c, arg)
	if err != nil {
		return err
	}
	im, err := imgs.Open(c, op.Image, false)
	if err != nil {
		return err
	}
	ops, skipped, err := cmdutil.Expand(im.Vol, op)
	var errs []error
	for _, p := range skipped {
		errs = append(errs, fmt.Errorf("%s: %s", cmdutil.Quote(p.Path), p.Reason))
	}
	if err != nil {
		errs = append(errs, err)
	}
	// The files' data comes through the volume's read-ahead, several
	// requests in flight while the last chunk is written out (reading
	// in turn with writing, a 1 GiB file took twice as long as fcp's
	// copy out). A name ending in a slash is left to catFile's checks.
	var names []string
	for _, o := range ops {
		if !o.Slash {
			names = append(names, o.Path)
		}
	}
	var ra *vol.ReadAhead
	if len(names) > 0 {
		ra = im.Vol.ReadAhead(names, vol.ReadAheadOptions{})
		defer ra.Close()
	}
	k := 0
	for _, o := range ops {
		var err error
		if o.Slash {
			err = catFile(im, o, stdout, buf, c.Bool("text"))
		} else {
			err = catAhead(im, ra, k, o, stdout, buf, c.Bool("text"))
			k++
		}
		var we *writeError
		if errors.As(err, &we) {
			return err
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// catAhead writes the k-th file of the read-ahead, chunk by chunk without
// a copy. A file the read-ahead cannot give (a directory, a name not
// found, a damaged chain) goes to catFile, which names what is wrong as it
// always has.
func catAhead(im *cmdutil.Image, ra *vol.ReadAhead, k int, op cmdutil.Operand, stdout io.Writer, buf []byte, text bool) error {
	f, err := ra.File(k)
	if err != nil {
		return catFile(im, op, stdout, buf, text)
	}
	return writeOut(op, stdout, buf, text, f.Chunk)
}

// catFile writes one file; text converts it as mtype -t does (dosText).
func catFile(im *cmdutil.Image, op cmdutil.Operand, stdout io.Writer, buf []byte, text bool) error {
	f, err := im.Vol.Open(op.VolPath())
	if err != nil {
		return fmt.Errorf("%s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", cmdutil.Quote(op.Show(op.Path)))
	}
	return writeOut(op, stdout, buf, text, func() ([]byte, error) {
		n, err := f.Read(buf)
		return buf[:n], err
	})
}

// writeOut writes the bytes next gives until io.EOF. With text, each
// piece is converted in buf (a chunk next hands out may not be written
// to; one it read into buf is converted where it lies) and a Ctrl-Z ends
// the file. A failed write is a *writeError; a failed read names op.
func writeOut(op cmdutil.Operand, stdout io.Writer, buf []byte, text bool, next func() ([]byte, error)) error {
	write := func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		if _, err := stdout.Write(b); err != nil {
			return &writeError{fmt.Errorf("writing standard output: %s", cmdutil.ErrText(err))}
		}
		return nil
	}
	for {
		b, rerr := next()
		for text && len(b) > 0 {
			n := copy(buf, b)
			b = b[n:]
			m, end := dosText(buf[:n])
			if err := write(buf[:m]); err != nil {
				return err
			}
			if end {
				return nil
			}
		}
		if err := write(b); err != nil {
			return err
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("%s: %s", cmdutil.Quote(op.Show(op.Path)), cmdutil.ErrText(rerr))
		}
	}
}

// dosText turns DOS text into Unix text in place, as mtype -t does: every
// carriage return is dropped (CR LF becomes LF), and a Ctrl-Z (0x1A),
// DOS's end of text, ends the file. It returns the bytes kept and whether
// the end was reached.
func dosText(b []byte) (int, bool) {
	j := 0
	for _, c := range b {
		switch c {
		case '\r':
			continue
		case 0x1A:
			return j, true
		}
		b[j] = c
		j++
	}
	return j, false
}
