package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

// entry is one listed file or directory.
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

// volumeFree is the free space of one listed volume.
type volumeFree struct {
	Image     string `json:"image"`
	FreeBytes int64  `json:"free_bytes"`
}

// listing is fls --json's object.
type listing struct {
	Entries []entry           `json:"entries"`
	Files   int               `json:"files"` // entries listed, directories included, as mdir counts
	Bytes   int64             `json:"bytes"` // their sizes
	Volumes []volumeFree      `json:"volumes"`
	Failed  []cmdutil.Problem `json:"failed"`
	cmdutil.Outcome
}

// format is how entries are printed.
type format int

const (
	names format = iota // one name per line, as ls
	long                // -l
	wide                // -w, as mdir -w
	bare                // -b, as mdir -b
)

// lister walks what the operands name and prints (or collects) entries.
type lister struct {
	format   format
	all, rec bool
	json     bool
	out      io.Writer
	rep      listing
	headers  bool // print "DIR:" before each listing
	printed  bool
	dirs     int       // directories listed, for mdir's "Total files listed"
	row      []string  // -w: names waiting to be printed
	tot      dirTotals // the directory being listed
	// entries prints --json's entries as they are listed (see list).
	entries *cmdutil.JSONList
}

// dirTotals counts one directory's listing, as mdir's totals line does.
type dirTotals struct {
	files int
	bytes int64
}

func list(c *cli.Context, args []string, stdout, stderr io.Writer) error {
	l := &lister{all: c.Bool("all"), rec: c.Bool("recursive"), json: c.Bool(cmdutil.FlagJSON), out: stdout,
		headers: len(args) > 1 || c.Bool("recursive")}
	l.entries = cmdutil.NewJSONList(stdout, "entries")
	switch {
	case c.Bool("long"):
		l.format = long
	case c.Bool("wide"):
		l.format = wide
	case c.Bool("bare"):
		l.format, l.headers = bare, false
	}
	imgs := cmdutil.Images{}
	defer imgs.Close()
	fail := func(what string, err error) {
		l.rep.Failed = append(l.rep.Failed, cmdutil.Failure(stderr, "fls", what, err))
	}
	var vols []*cmdutil.Image
	for _, a := range args {
		op, err := cmdutil.ImageOperand(c, a)
		var im *cmdutil.Image
		if err == nil {
			im, err = imgs.Open(c, op.Image, false)
		}
		var ms []cmdutil.Match
		var skipped []cmdutil.Problem
		if err == nil {
			ms, skipped, err = cmdutil.Glob(im.Vol, op)
		}
		if cmdutil.IsInterrupt(err) {
			if l.entries.Len() > 0 {
				// The entries printed are closed with the outcome.
				return cmdutil.Finish(c, l.entries, stderr, &l.rep, imgs.Stats, err)
			}
			return err
		}
		for _, p := range skipped {
			fail(p.Path, fmt.Errorf("%s: %s", cmdutil.Quote(p.Path), p.Reason))
		}
		if err != nil {
			fail(a, err)
			continue
		}
		if !contains(vols, im) {
			vols = append(vols, im)
		}
		for _, m := range ms {
			o := op
			o.Path = m.Path
			if err := l.operand(im.Vol, o, m.Literal); err != nil {
				fail(o.Show(o.Path), err)
			}
		}
	}
	l.flushRow()
	for _, im := range vols {
		if c.Bool("fast") {
			break // mdir -f: the free count can take a FAT scan
		}
		free := int64(im.Vol.FreeClusters()) * im.Vol.ClusterSize()
		l.rep.Volumes = append(l.rep.Volumes, volumeFree{Image: im.Spec, FreeBytes: free})
	}
	l.summary()
	var err error
	if closeErr := imgs.Close(); closeErr != nil {
		err = closeErr
	} else if len(l.rep.Failed) > 0 {
		err = cmdutil.Exit(1, nil) // each was named
		l.rep.Error = cmdutil.Reasons(l.rep.Failed)
	}
	if l.entries.Err() != nil && err == nil {
		return l.entries.Err()
	}
	// --json prints each entry as it is listed, not all of them at the
	// end, so that fls --json -R of a million files holds none (a text
	// listing holds none either).
	return cmdutil.Finish(c, l.entries, stderr, &l.rep, imgs.Stats, err)
}

func contains(ims []*cmdutil.Image, im *cmdutil.Image) bool {
	for _, x := range ims {
		if x == im {
			return true
		}
	}
	return false
}

// operand lists one operand: a directory's members, or a file itself. A
// hidden or system entry that a wildcard matched is left out without -a,
// as mdir leaves it out.
func (l *lister) operand(v vol.Volume, op cmdutil.Operand, literal bool) error {
	fi, err := v.Stat(op.VolPath())
	if err != nil {
		return fmt.Errorf("cannot access %s: %s", cmdutil.Quote(op.Show(op.VolPath())), cmdutil.ErrText(err))
	}
	if !literal && !l.all && v.Entry(fi).Attr&(vol.AttrHidden|vol.AttrSystem) != 0 {
		return nil
	}
	if !fi.IsDir() {
		// A file operand is a listing of its own, with its totals line,
		// as mdir lists one.
		l.tot = dirTotals{}
		e := l.entryOf(v, volPath(op.Path), fi)
		l.emit(e, op.Show(op.Path), op.Show(op.Path))
		l.dirs++
		l.totals(l.tot)
		return nil
	}
	return l.dir(v, op, op.Path, 0)
}

// dirPage is how many entries fls takes from a directory at a time.
const dirPage = 1024

// maxDepth bounds -R: a FAT path holds at most 260 characters.
const maxDepth = 256

func (l *lister) dir(v vol.Volume, op cmdutil.Operand, p string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: directories nested deeper than %d (a loop?)", cmdutil.Quote(op.Show(p)), maxDepth)
	}
	f, err := v.Open(p)
	if err != nil {
		return fmt.Errorf("cannot open directory %s: %s", cmdutil.Quote(op.Show(p)), cmdutil.ErrText(err))
	}
	defer f.Close()
	// Stored order, as mdir shows it, a page at a time: a folder of
	// 60,000 names is never held twice (the volume's copy of a page is
	// all a listing adds to its directory cache).
	rd := f.(fs.ReadDirFile)
	readErr := func(err error) error {
		return fmt.Errorf("cannot read directory %s: %s", cmdutil.Quote(op.Show(p)), cmdutil.ErrText(err))
	}
	ents, err := rd.ReadDir(dirPage)
	if err != nil && err != io.EOF {
		return readErr(err)
	}
	if l.headers && !l.json {
		l.flushRow()
		if l.printed {
			fmt.Fprintln(l.out)
		}
		fmt.Fprintf(l.out, "%s:\n", op.Show(p))
		l.printed = true
	}
	l.tot = dirTotals{}
	var subdirs []string
	var errs []error
	for page := 0; len(ents) > 0; page++ {
		if page > 0 {
			if ents, err = rd.ReadDir(dirPage); err != nil && err != io.EOF {
				errs = append(errs, readErr(err))
				break
			}
		}
		l.listPage(v, op, p, ents, &subdirs, &errs)
		if err == io.EOF {
			break
		}
	}
	l.printed = true
	l.dirs++
	l.totals(l.tot)
	if !l.rec {
		return errors.Join(errs...)
	}
	for _, s := range subdirs {
		if err := l.dir(v, op, s, depth+1); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// listPage lists one page of the directory p's entries, adding the
// subdirectories to list after it (-R) and the members it cannot show.
func (l *lister) listPage(v vol.Volume, op cmdutil.Operand, p string, ents []fs.DirEntry, subdirs *[]string, errs *[]error) {
	for _, d := range ents {
		fi, err := d.Info()
		if err != nil {
			// A member whose entry is damaged (exFAT: a size past the
			// cluster heap) is named and left out; the others are listed.
			*errs = append(*errs, fmt.Errorf("cannot access %s: %s", cmdutil.Quote(op.Show(path.Join(p, d.Name()))), cmdutil.ErrText(err)))
			continue
		}
		en := v.Entry(fi)
		if !l.all && en.Attr&(vol.AttrHidden|vol.AttrSystem) != 0 {
			continue
		}
		child := path.Join(p, en.Name)
		l.emit(l.entryOf(v, volPath(child), fi), en.Name, op.Show(child))
		if fi.IsDir() && cmdutil.Unaddressable(en.Name) == "" {
			*subdirs = append(*subdirs, child)
		}
	}
}

// entryOf describes a member for output.
func (l *lister) entryOf(v vol.Volume, p string, fi fs.FileInfo) entry {
	en := v.Entry(fi)
	e := entry{Path: p, Name: en.Name, ShortName: en.ShortName, Size: fi.Size(), mtime: fi.ModTime(),
		Attributes: en.Attr.String(), FirstCluster: en.FirstCluster, Dir: fi.IsDir()}
	e.MTime = e.mtime.Format(time.RFC3339)
	if en.FirstCluster != 0 {
		if n, err := v.Runs(fi); err == nil {
			e.Runs = n
		}
	}
	return e
}

// emit prints or collects one entry: name is how a listing shows it,
// full its whole path (for -b).
func (l *lister) emit(e entry, name, full string) {
	if l.json {
		l.entries.Add(e)
	}
	l.rep.Files++
	l.tot.files++
	if !e.Dir {
		l.rep.Bytes += e.Size
		l.tot.bytes += e.Size
	}
	if l.json {
		return
	}
	switch l.format {
	case names:
		fmt.Fprintln(l.out, name)
	case bare:
		if e.Dir {
			full = strings.TrimSuffix(full, "/") + "/"
		}
		fmt.Fprintln(l.out, full)
	case wide:
		if e.Dir {
			name = "[" + name + "]"
		}
		l.row = append(l.row, name)
	case long:
		size := fmt.Sprint(e.Size)
		if e.Dir {
			size = "<DIR>"
		}
		fmt.Fprintf(l.out, "%-6s %10s %s %s\n", e.Attributes, size, e.mtime.Format("2006-01-02 15:04"), name)
	}
}

// wideWidth is the page mdir -w fills: 80 columns, 16 per name.
const wideWidth, wideColumn = 80, 16

// flushRow prints the names -w collected, across the page.
func (l *lister) flushRow() {
	if len(l.row) == 0 {
		return
	}
	col := wideColumn
	for _, n := range l.row {
		col = max(col, len(n)+2)
	}
	per := max(1, wideWidth/col)
	for i, n := range l.row {
		if i%per == per-1 || i == len(l.row)-1 {
			fmt.Fprintln(l.out, n)
		} else {
			fmt.Fprintf(l.out, "%-*s", col, n)
		}
	}
	l.row = nil
}

// totals prints a directory's totals line, as mdir does after a -l or -w
// listing.
func (l *lister) totals(t dirTotals) {
	if l.json || (l.format != long && l.format != wide) {
		return
	}
	l.flushRow()
	fmt.Fprintf(l.out, "%9s %-12s %18s bytes\n", grouped(int64(t.files)), word(t.files, "file"), grouped(t.bytes))
}

// summary prints mdir's last lines: the grand total when more than one
// directory was listed, and the free space of each volume.
func (l *lister) summary() {
	if l.json || (l.format != long && l.format != wide) {
		return
	}
	if l.dirs > 1 {
		fmt.Fprintln(l.out, "\nTotal files listed:")
		fmt.Fprintf(l.out, "%9s %-12s %18s bytes\n", grouped(int64(l.rep.Files)), word(l.rep.Files, "file"), grouped(l.rep.Bytes))
	}
	for _, v := range l.rep.Volumes {
		line := fmt.Sprintf("%41s bytes free", grouped(v.FreeBytes))
		if len(l.rep.Volumes) > 1 {
			line += " on " + v.Image
		}
		fmt.Fprintln(l.out, line)
	}
}

func word(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

// grouped writes n with its digits in groups of three, as mdir does
// ("2 019 328").
func grouped(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// volPath is a volume path as --json prints it: "/DIR/FILE".
func volPath(p string) string { return path.Clean("/" + p) }
