package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

// entry is one listed file or directory; fls --json prints an array of them.
type entry struct {
	Path         string `json:"path"`
	Name         string `json:"name"`
	ShortName    string `json:"short_name"`
	Size         int64  `json:"size"`
	MTime        string `json:"mtime"`
	Attributes   string `json:"attributes"`
	FirstCluster uint32 `json:"first_cluster"`
	Runs         int    `json:"runs"`
	Dir          bool   `json:"dir"`
	mtime        time.Time
}

// lister walks what the operands name and prints (or collects) entries.
type lister struct {
	long, all, recursive, json bool
	out                        io.Writer
	entries                    []entry
	headers                    bool // print "DIR:" before each listing
	printed                    bool
}

func list(c *cli.Context, args []string, stdout, stderr io.Writer) error {
	l := &lister{long: c.Bool("long"), all: c.Bool("all"), recursive: c.Bool("recursive"),
		json: c.Bool(cmdutil.FlagJSON), out: stdout, headers: len(args) > 1 || c.Bool("recursive")}
	imgs := cmdutil.Images{}
	defer imgs.Close()
	var errs []error
	for _, a := range args {
		op, err := cmdutil.ImageOperand(c, a)
		if err == nil {
			var im *cmdutil.Image
			if im, err = imgs.Open(c, op.Image, false); err == nil {
				err = l.operand(im.Vol, op)
			}
		}
		if cmdutil.IsInterrupt(err) {
			return err
		}
		if err != nil {
			cmdutil.Warn(stderr, "fls", "%v", err)
			errs = append(errs, err)
		}
	}
	closeErr := imgs.Close()
	if l.json {
		if l.entries == nil {
			l.entries = []entry{}
		}
		if err := cmdutil.PrintJSON(stdout, l.entries); err != nil {
			return err
		}
	}
	if c.Bool(cmdutil.FlagStats) {
		st := imgs.Stats()
		st.WriteTo(stderr)
	}
	if closeErr != nil {
		return closeErr
	}
	if len(errs) > 0 {
		return cmdutil.Exit(1, nil) // already reported
	}
	return nil
}

// operand lists one operand: a directory's members, or a file itself.
func (l *lister) operand(v *fat.Volume, op cmdutil.Operand) error {
	fi, err := v.Stat(op.VolPath())
	if err != nil {
		return fmt.Errorf("cannot access '%s': %w", op.Show(op.VolPath()), unwrapPath(err))
	}
	if !fi.IsDir() {
		e := l.entryOf(v, volPath(op.Path), fi)
		l.emit(e, op.Show(op.Path))
		return nil
	}
	return l.dir(v, op, op.Path, 0)
}

// maxDepth bounds -R: a FAT path holds at most 260 characters.
const maxDepth = 256

func (l *lister) dir(v *fat.Volume, op cmdutil.Operand, p string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("'%s': directories nested deeper than %d (a loop?)", op.Show(p), maxDepth)
	}
	f, err := v.Open(p)
	if err != nil {
		return fmt.Errorf("cannot open directory '%s': %w", op.Show(p), unwrapPath(err))
	}
	ents, err := f.(fs.ReadDirFile).ReadDir(-1) // stored order, as mdir shows it
	if err != nil {
		return fmt.Errorf("cannot read directory '%s': %w", op.Show(p), err)
	}
	if l.headers && !l.json {
		if l.printed {
			fmt.Fprintln(l.out)
		}
		fmt.Fprintf(l.out, "%s:\n", op.Show(p))
		l.printed = true
	}
	var subdirs []string
	for _, d := range ents {
		fi, err := d.Info()
		if err != nil {
			return err
		}
		r := fi.Sys().(*fat.Record)
		if !l.all && r.Entry.Attr&(fat.AttrHidden|fat.AttrSystem) != 0 {
			continue
		}
		child := path.Join(p, r.Name)
		l.emit(l.entryOf(v, volPath(child), fi), r.Name)
		if fi.IsDir() && cmdutil.Unaddressable(r.Name) == "" {
			subdirs = append(subdirs, child)
		}
	}
	l.printed = true
	if !l.recursive {
		return nil
	}
	var errs []error
	for _, s := range subdirs {
		if err := l.dir(v, op, s, depth+1); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// entryOf describes a member for output.
func (l *lister) entryOf(v *fat.Volume, p string, fi fs.FileInfo) entry {
	r := fi.Sys().(*fat.Record)
	e := entry{Path: p, Name: r.Name, ShortName: r.Short.String(), Size: fi.Size(), mtime: fi.ModTime(),
		Attributes: r.Entry.Attr.String(), FirstCluster: uint32(r.Entry.Cluster), Dir: fi.IsDir()}
	e.MTime = e.mtime.Format(time.RFC3339)
	if r.Entry.Cluster != 0 {
		if chain, err := fat.Chain(v.Table(), r.Entry.Cluster); err == nil {
			e.Runs = runs(chain)
		}
	}
	return e
}

func (l *lister) emit(e entry, shown string) {
	if l.json {
		l.entries = append(l.entries, e)
		return
	}
	if !l.long {
		fmt.Fprintln(l.out, shown)
		return
	}
	size := fmt.Sprint(e.Size)
	if e.Dir {
		size = "<DIR>"
	}
	fmt.Fprintf(l.out, "%-6s %10s %s %s\n", e.Attributes, size, e.mtime.Format("2006-01-02 15:04"), shown)
}

// runs counts the contiguous runs of a cluster chain.
func runs(chain []fat.Cluster) int {
	n := 0
	for i, c := range chain {
		if i == 0 || c != chain[i-1]+1 {
			n++
		}
	}
	return n
}

// volPath is a volume path as --json prints it: "/DIR/FILE".
func volPath(p string) string { return path.Clean("/" + p) }

// unwrapPath drops a *fs.PathError's op and path: messages name the
// operand as the user wrote it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
