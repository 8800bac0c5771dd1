package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

const syscallNoFollow = syscall.O_NOFOLLOW

// end is one side of a copy: where, and the path there.
type end struct {
	side any // source and/or sink
	path string
	show string // the path as the user would write it, for messages
}

func (e end) src() source { return e.side.(source) }
func (e end) dst() sink   { return e.side.(sink) }

// copier carries the options and the running totals of one fcp command.
type copier struct {
	recursive bool
	noClobber bool
	buf       []byte
	warn      func(format string, a ...any)
	progress  func(n int64)
	files     int
	dirs      int
	bytes     int64
	skipped   []string
	failed    int
}

// errStop aborts the whole command (the volume is full): later sources
// would fail the same way.
type errStop struct{ err error }

func (e *errStop) Error() string { return e.err.Error() }
func (e *errStop) Unwrap() error { return e.err }

// copyTo copies src to the destination path dst, which names the copy
// itself (not a folder to put it in).
func (cp *copier) copyTo(src, dst end) error {
	if _, ok := cmdutil.Interrupted(); ok {
		return &errStop{errInterrupted}
	}
	fi, err := src.src().stat(src.path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if !cp.recursive {
			return fmt.Errorf("-r not specified; omitting directory '%s'", src.show)
		}
		return cp.copyDir(src, dst, fi)
	}
	if !fi.Mode().IsRegular() {
		cp.warn("skipping '%s': not a regular file or directory", src.show)
		cp.skipped = append(cp.skipped, src.show)
		return nil
	}
	return cp.copyFile(src, dst, fi)
}

func (cp *copier) copyDir(src, dst end, fi fs.FileInfo) error {
	if dfi, err := dst.dst().stat(dst.path); err == nil {
		if !dfi.IsDir() {
			return fmt.Errorf("cannot overwrite non-directory '%s' with directory '%s'", dst.show, src.show)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := dst.dst().mkdir(dst.path, fi.ModTime()); err != nil {
			return cp.fatal(fmt.Errorf("cannot create directory '%s': %w", dst.show, err))
		}
		cp.dirs++
	} else {
		return err
	}
	return cp.copyContents(src, dst, fi)
}

// copyContents copies what is inside the directory src into the existing
// directory dst, in name order.
func (cp *copier) copyContents(src, dst end, fi fs.FileInfo) error {
	ents, err := src.src().readDir(src.path)
	if err != nil {
		return err
	}
	var firstErr error
	// Names that a case-insensitive host would take for one another (a
	// hostile image can hold "A" and "a") are written once.
	_, toHost := dst.side.(hostSide)
	seen := map[string]string{}
	for _, e := range ents {
		name := e.Name()
		why := cmdutil.Unaddressable(name)
		if why == "" {
			why = dst.dst().nameProblem(name)
		}
		if why == "" && toHost {
			key := strings.ToLower(name)
			if other, dup := seen[key]; dup {
				why = fmt.Sprintf("is the same as %q but for case", other)
			}
			seen[key] = name
		}
		if why != "" {
			cp.warn("skipping '%s': the name %q %s", src.src().join(src.show, name), name, why)
			cp.skipped = append(cp.skipped, src.src().join(src.show, name))
			continue
		}
		s := end{src.side, src.src().join(src.path, name), src.src().join(src.show, name)}
		d := end{dst.side, dst.dst().join(dst.path, name), dst.dst().join(dst.show, name)}
		if err := cp.copyTo(s, d); err != nil {
			var stop *errStop
			if errors.As(err, &stop) {
				return err
			}
			cp.warn("%v", err)
			cp.failed++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if err := dst.dst().finishDir(dst.path, fi.ModTime()); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return errReported
	}
	return nil
}

// errInterrupted stops the copy at a file boundary after SIGINT/SIGTERM.
var errInterrupted = errors.New("interrupted")

// errReported marks an error already printed (a tree copy went on past it).
var errReported = errors.New("some files were not copied")

func (cp *copier) copyFile(src, dst end, fi fs.FileInfo) error {
	if dfi, err := dst.dst().stat(dst.path); err == nil {
		if cp.noClobber {
			return nil
		}
		if dfi.IsDir() {
			return fmt.Errorf("cannot overwrite directory '%s' with non-directory '%s'", dst.show, src.show)
		}
	}
	r, err := src.src().open(src.path)
	if err != nil {
		return fmt.Errorf("cannot open '%s' for reading: %w", src.show, err)
	}
	defer r.Close()
	w, err := dst.dst().create(dst.path, fi.Size(), fi.ModTime())
	if err != nil {
		return cp.fatal(fmt.Errorf("cannot create '%s': %w", dst.show, err))
	}
	n, err := cp.stream(w, r)
	if err == nil && n != fi.Size() {
		err = fmt.Errorf("'%s' changed size while being copied (%d bytes, now %d)", src.show, fi.Size(), n)
	}
	if err != nil {
		w.Abort()
		return cp.fatal(fmt.Errorf("copying '%s' to '%s': %w", src.show, dst.show, err))
	}
	if err := w.Close(); err != nil {
		return cp.fatal(fmt.Errorf("'%s': %w", dst.show, err))
	}
	cp.files++
	cp.bytes += n
	return nil
}

// stream copies r to w in large chunks (the volume turns them into large
// device requests).
func (cp *copier) stream(w io.Writer, r io.Reader) (int64, error) {
	var total int64
	for {
		n, err := io.ReadFull(r, cp.buf)
		if n > 0 {
			if _, werr := w.Write(cp.buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
			cp.progress(int64(n))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// fatal turns a full volume into an error that stops the command.
func (cp *copier) fatal(err error) error {
	if errors.Is(err, fat.ErrNoSpace) || errors.Is(err, fat.ErrDirFull) {
		var ns *fat.NoSpaceError
		if errors.As(err, &ns) {
			return &errStop{ns}
		}
		return &errStop{err}
	}
	return err
}
