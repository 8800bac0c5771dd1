package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/cmd/internal/cp"
	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// sizeStep is the alignment an auto-sized file system (or partition) is
// rounded to.
const sizeStep = 1 << 20

// fromFlags are --from's: what goes in, how much room is left, the times,
// fcp's rules as long options, and the attributes set by pattern.
func fromFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "from", Usage: "fill the new file system with the host tree `DIR` (its contents become the root); DIR:/FOLDER puts it in a folder (repeatable); without --size the image is sized to fit"},
		&cli.StringFlag{Name: "free", Usage: "with --from, sized to fit: leave `SIZE` (" + fio.SizeHelp + ") or N% of the tree free"},
		&cli.StringFlag{Name: "mtime", Usage: "with --from: stamp every file and folder with `TIME` (@SECONDS, YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS in UTC, or RFC 3339)"},
		cmdutil.Values(&cli.StringSliceFlag{Name: "clash", Usage: "with --from: what to do when a name is taken, as fcp -D `LETTERS`: o overwrite, s skip, a autorename, r rename; upper case for short-name clashes"},
			"o", "s", "a", "r", "O", "S", "A", "R"),
		&cli.BoolFlag{Name: "dereference", Usage: "with --from: follow symbolic links to directories, as fcp -L (a loop is skipped)"},
		&cli.StringSliceFlag{Name: "set-hidden", Usage: "with --from: mark what `GLOB` matches hidden (without case; a pattern with a slash matches the path from the root, else each name; repeatable)"},
		&cli.StringSliceFlag{Name: "set-system", Usage: "with --from: mark what `GLOB` matches system (repeatable)"},
		&cli.StringSliceFlag{Name: "set-read-only", Usage: "with --from: mark what `GLOB` matches read-only (repeatable)"},
	}
}

// fromSpec is one --from: a host directory and the folder of the volume
// it fills ("" for the root).
type fromSpec struct {
	dir, dest string
}

// fromRequest is --from and its companions, checked.
type fromRequest struct {
	specs  []fromSpec
	head   vol.Headroom
	mtime  time.Time // --mtime; zero: the files' own
	follow bool
	policy cp.Policy
	attrs  []attrRule
	tree   *vol.TreeSize // the tally of every tree, for the sizing and the fit
	need   func() string // the size that would hold the trees, for a refusal
	auto   bool          // sized to fit
	sized  *sizedResult  // what the sizing chose
	// tooLarge names the files over FAT's 4 GiB - 1 bytes, which the
	// copy refuses: left out of the sizing, named before the format.
	tooLarge []string
	target   string // the image (spec) written: not counted when in a tree
}

// warnTooLarge names, before anything is written, the files FAT cannot
// hold: the copy skips them (exit status 1).
func (f *fromRequest) warnTooLarge(stderr io.Writer) {
	for _, n := range f.tooLarge {
		cmdutil.Warn(stderr, "fmkfs", "--from: %s is over 4 GiB - 1 bytes, the most a FAT file holds: it will be skipped (--type exfat holds it)", n)
	}
}

// attrRule is one --set-* pattern.
type attrRule struct {
	glob string
	attr vol.Attr
	flag string
}

// sizedResult says what the sizing chose and why, as --json reports it.
type sizedResult struct {
	Size      int64  `json:"size"`       // the image file's
	FSSize    int64  `json:"fs_size"`    // the file system's
	TreeBytes int64  `json:"tree_bytes"` // the files' data
	Files     int64  `json:"files"`
	Dirs      int64  `json:"dirs"`
	Type      string `json:"type"`
	Cluster   int64  `json:"cluster_size"`
	Free      int64  `json:"free_clusters"` // the clusters the headroom left
	Why       string `json:"why"`           // why this size
}

// parseFrom reads --from and its companions; nil when --from is not given
// (then its companions are refused).
func parseFrom(c *cli.Context, exFAT bool, target string) (*fromRequest, error) {
	if !c.IsSet("from") {
		for _, f := range []string{"free", "mtime", "clash", "dereference", "set-hidden", "set-system", "set-read-only"} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s shapes what --from copies in: add --from DIR", f)
			}
		}
		if c.String("size") == "auto" || c.String("part-size") == "auto" {
			return nil, errors.New("auto sizes the file system to fit the tree --from names: add --from DIR")
		}
		return nil, nil
	}
	f := &fromRequest{follow: c.Bool("dereference"), tree: vol.NewTreeSize(exFAT), target: target}
	for _, s := range c.StringSlice("from") {
		dir, dest := s, ""
		if i := strings.LastIndex(s, ":/"); i > 0 {
			dir, dest = s[:i], strings.Trim(path.Clean(s[i+1:]), "/")
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("--from %s: %w", s, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("--from %s: %s is not a directory (fcp copies single files in)", s, dir)
		}
		for _, part := range strings.Split(dest, "/") {
			if part == ".." {
				return nil, fmt.Errorf("--from %s: the folder must be a path from the root, without ..", s)
			}
		}
		if err := checkRoot(dir); err != nil {
			return nil, fmt.Errorf("--from %s: %w; nothing was written", s, err)
		}
		names := vol.FATNames
		if exFAT {
			names = vol.ExFATNames
		}
		for _, part := range strings.Split(dest, "/") {
			if part == "" {
				continue
			}
			if _, _, err := names.Clean(part); err != nil {
				return nil, fmt.Errorf("--from %s: the folder %q cannot be made: %w; nothing was written", s, part, err)
			}
		}
		f.specs = append(f.specs, fromSpec{dir: dir, dest: dest})
	}
	if err := checkDests(f.specs); err != nil {
		return nil, err
	}
	if c.IsSet("free") {
		v := c.String("free")
		if pct, ok := strings.CutSuffix(v, "%"); ok {
			n, err := strconv.Atoi(pct)
			if err != nil || n < 0 || n > 1000 {
				return nil, fmt.Errorf("--free %q: want a size such as 4M, or a percentage such as 10%%", v)
			}
			f.head.Percent = n
		} else {
			n, err := fio.ParseSize(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("--free %q: want a size such as 4M, or a percentage such as 10%%", v)
			}
			f.head.Bytes = n
		}
	}
	if c.IsSet("mtime") {
		t, err := parseMtime(c.String("mtime"))
		if err != nil {
			return nil, err
		}
		f.mtime = t
	}
	var err error
	if f.policy, err = cp.ParsePolicy(c.StringSlice("clash")...); err != nil {
		return nil, fmt.Errorf("--clash: %w", err)
	}
	for _, r := range []attrRule{{flag: "set-hidden", attr: vol.AttrHidden}, {flag: "set-system", attr: vol.AttrSystem}, {flag: "set-read-only", attr: vol.AttrReadOnly}} {
		for _, g := range c.StringSlice(r.flag) {
			g = strings.TrimPrefix(g, "/")
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("--%s %q: %w", r.flag, g, err)
			}
			f.attrs = append(f.attrs, attrRule{glob: g, attr: r.attr, flag: r.flag})
		}
	}
	for _, s := range f.specs {
		if err := f.tally(s); err != nil {
			return nil, err
		}
	}
	if c.Bool("sd") && !exFAT {
		// The card is FAT up to 32 GiB and exFAT over: the tree is
		// tallied for both, and each size measured by its own.
		fatTree := f.tree
		f.tree = vol.NewTreeSize(true)
		for _, s := range f.specs {
			if err := f.tally(s); err != nil {
				return nil, err
			}
		}
		fatTree.SetExFAT(f.tree)
		f.tree = fatTree
	}
	return f, nil
}

// checkRoot refuses a --from directory that cannot be read, before
// anything is written (deeper in the tree, what cannot be read is fcp's:
// named and skipped).
func checkRoot(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.ReadDir(1); err != nil && err != io.EOF {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	return nil
}

// checkDests refuses a --from whose folder (or one on its way) would be
// made where another tree puts a file, before anything is written.
func checkDests(specs []fromSpec) error {
	for _, s := range specs {
		at := ""
		for _, part := range strings.Split(s.dest, "/") {
			if part == "" {
				continue
			}
			at = path.Join(at, part)
			for _, o := range specs {
				rel, ok := at, o.dest == ""
				if !ok && len(at) > len(o.dest) && strings.EqualFold(at[:len(o.dest)+1], o.dest+"/") {
					rel, ok = at[len(o.dest)+1:], true
				}
				if !ok {
					continue
				}
				host, found := hostPathFold(o.dir, rel)
				if !found {
					continue
				}
				if fi, err := os.Stat(host); err == nil && !fi.IsDir() {
					return fmt.Errorf("--from %s:/%s: the folder /%s would go where --from %s puts the file %s; nothing was written", s.dir, s.dest, at, o.dir, host)
				}
			}
		}
	}
	return nil
}

// parseMtime reads --mtime: @SECONDS, a date, a date and time in UTC, or
// RFC 3339 with its zone.
func parseMtime(s string) (time.Time, error) {
	if n, ok := strings.CutPrefix(s, "@"); ok {
		sec, err := strconv.ParseInt(n, 10, 64)
		if err == nil {
			return time.Unix(sec, 0), nil
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--mtime %q: want @SECONDS, YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS (UTC) or RFC 3339", s)
}

// tally walks one tree and counts it into f.tree, as fcp will copy it:
// regular files and directories, links to files as the files, links to
// directories only with --dereference (a loop once), nothing else. It
// reads each directory in batches, so that a million files take no more
// memory than the deepest path's directories do.
func (f *fromRequest) tally(s fromSpec) error {
	// The folders on the way to DEST.
	parent := ""
	for _, part := range strings.Split(s.dest, "/") {
		if part == "" {
			continue
		}
		f.tree.AddDir(parent, f.tree.Slots(part))
		parent = path.Join(parent, part)
	}
	seen := map[[2]uint64]bool{}
	var image [2]uint64 // the target image, when it is in the tree: not copied
	if name, _, err := fio.ParseImageSpec(f.target); err == nil {
		if fi, err := os.Stat(name); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				image = [2]uint64{uint64(st.Dev), st.Ino}
			}
		}
	}
	var walk func(host, in string) error
	walk = func(host, in string) error {
		fi, err := os.Stat(host)
		if err != nil {
			return nil // fcp names it
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			id := [2]uint64{uint64(st.Dev), st.Ino}
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		d, err := os.Open(host)
		if err != nil {
			return nil
		}
		defer d.Close()
		var slots int64
		var subdirs []string
		for {
			ents, err := d.ReadDir(1024)
			for _, e := range ents {
				full := filepath.Join(host, e.Name())
				info, ierr := e.Info()
				if ierr != nil {
					continue
				}
				if info.Mode()&fs.ModeSymlink != 0 {
					if info, ierr = os.Stat(full); ierr != nil || (info.IsDir() && !f.follow) {
						continue
					}
				}
				switch {
				case info.IsDir():
					subdirs = append(subdirs, e.Name())
				case info.Mode().IsRegular():
					if st, ok := info.Sys().(*syscall.Stat_t); ok && image == [2]uint64{uint64(st.Dev), st.Ino} {
						continue
					}
					if !f.tree.Holds(info.Size()) {
						// fcp refuses it: named up front, left out.
						f.tooLarge = append(f.tooLarge, fmt.Sprintf("%s (%s)", full, cmdutil.HumanSize(info.Size())))
						f.tree.AddFile(info.Size())
						continue
					}
					f.tree.AddFile(info.Size())
				default:
					continue
				}
				slots += f.tree.Slots(e.Name())
			}
			if err == io.EOF || len(ents) == 0 {
				break
			}
			if err != nil {
				return fmt.Errorf("--from: reading %s: %w", host, err)
			}
		}
		d.Close()
		f.tree.AddDir(in, slots)
		for _, n := range subdirs {
			if err := walk(filepath.Join(host, n), path.Join(in, n)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(s.dir, s.dest)
}

// fits refuses a volume of geometry g that does not hold the trees, with
// the size that would.
func (f *fromRequest) fits(g vol.Geometry) error {
	if err := f.tree.Fits(g, f.head); err != nil {
		hint := ""
		if f.need != nil {
			hint = f.need()
		}
		return fmt.Errorf("--from: %s (%s and %s, %s of data): %w; nothing was written%s", strings.Join(f.dirs(), ", "),
			cmdutil.Plural(int(f.tree.Files), "file"), cmdutil.Plural(int(f.tree.Dirs), "folder"), cmdutil.HumanSize(f.tree.Bytes), err, hint)
	}
	return nil
}

func (f *fromRequest) dirs() []string {
	var out []string
	for _, s := range f.specs {
		out = append(out, s.dir)
	}
	return out
}

// fatGeometry plans the FAT p makes (512-byte sectors unless p says).
func fatGeometry(p fat.FormatParams) (vol.Geometry, error) {
	if p.SectorSize == 0 {
		p.SectorSize = 512
	}
	_, l, err := fat.Plan(p)
	if err != nil {
		return vol.Geometry{}, err
	}
	return vol.FATGeometry(l, p.Label != ""), nil
}

// exfatGeometry plans the exFAT x makes (512-byte sectors unless x says).
func exfatGeometry(x exfat.FormatParams) (vol.Geometry, error) {
	if x.SectorSize == 0 {
		x.SectorSize = 512
	}
	_, l, err := exfat.Plan(x)
	if err != nil {
		return vol.Geometry{}, err
	}
	return vol.ExFATGeometry(l), nil
}

// fatFits checks that the trees fit the FAT p makes (no check without
// --from).
func (f *fromRequest) fatFits(p fat.FormatParams) error {
	if f == nil {
		return nil
	}
	g, err := fatGeometry(p)
	if err != nil {
		return err
	}
	return f.fits(g)
}

// exfatFits checks that the trees fit the exFAT x makes.
func (f *fromRequest) exfatFits(x exfat.FormatParams) error {
	if f == nil {
		return nil
	}
	g, err := exfatGeometry(x)
	if err != nil {
		return err
	}
	return f.fits(g)
}

// autoSize is the size of the image file that holds the trees: the
// smallest file system (or partition, with --table) in steps of 1 MiB,
// planned as the format will plan it. off is where the file system
// starts (an offset); disk, when not 0, is the image's size, fixed
// (--size with --part-size auto).
func autoSize(r *request, disk int64) (int64, error) {
	f := r.from
	var plan func(int64) (vol.Geometry, error)
	var image func(int64) int64
	switch {
	case r.table.kind != "":
		image = func(n int64) int64 {
			if disk != 0 {
				return disk
			}
			if r.table.sd != nil {
				return n
			}
			if r.table.kind == "gpt" {
				return partStart + n + sizeStep // the backup table, aligned
			}
			return partStart + n
		}
		plan = func(n int64) (vol.Geometry, error) {
			t, pp := r.table, r.p
			if t.sd != nil {
				sd := *t.sd
				t.sd = &sd
			} else {
				t.partSize = n
			}
			if t.x != nil {
				x := *t.x
				t.x = &x
			}
			t.from = nil
			spec, err := planTable(image(n), 512, &t, &pp)
			if err != nil {
				return vol.Geometry{}, err
			}
			if t.exfat || t.sd != nil && t.sd.xlayout != nil {
				x := *t.x
				x.Size, x.PartitionOffset = spec.Size, spec.Start
				return exfatGeometry(x)
			}
			pp.Size = spec.Size
			return fatGeometry(pp)
		}
	case r.exfat:
		image = func(n int64) int64 { return r.off + n }
		plan = func(n int64) (vol.Geometry, error) {
			x := *r.x
			x.Size, x.PartitionOffset = n, r.off
			return exfatGeometry(x)
		}
	default:
		image = func(n int64) int64 { return r.off + n }
		plan = func(n int64) (vol.Geometry, error) {
			p := r.p
			p.Size = n
			return fatGeometry(p)
		}
	}
	if n := f.tree.RootEntries(r.p.Label != ""); r.p.RootEntries == 0 && r.table.sd == nil && n > 512 && n <= 32768 {
		// FAT12/16's fixed root holds 512 entries unless -r says: the
		// tree's root needs more (FAT32 ignores it).
		r.p.RootEntries = int(n)
	}
	max := int64(2) << 40
	if disk != 0 {
		max = disk
	}
	opts := vol.SizeOptions{Plan: plan, Step: sizeStep, Min: sizeStep, Max: max, Headroom: f.head}
	if r.table.partSize != 0 && !r.table.partAuto {
		// --part-size N: the partition is that; the image holds it.
		opts.Step, opts.Min, opts.Max = r.table.partSize, r.table.partSize, r.table.partSize
		g, err := plan(r.table.partSize)
		if err == nil {
			err = f.fits(g)
		}
		if err != nil {
			return 0, err
		}
	}
	n, g, err := vol.SizeFor(f.tree, opts)
	if err != nil {
		return 0, fmt.Errorf("--from: %s (%s and %s, %s of data) fits no file system fmkfs can make with these options: %w",
			strings.Join(f.dirs(), ", "), cmdutil.Plural(int(f.tree.Files), "file"), cmdutil.Plural(int(f.tree.Dirs), "folder"), cmdutil.HumanSize(f.tree.Bytes), err)
	}
	if r.table.kind != "" && r.table.sd == nil {
		r.table.partSize = n
	}
	need, _ := f.tree.Need(g)
	f.sized = &sizedResult{Size: image(n), FSSize: g.Size, TreeBytes: f.tree.Bytes, Files: f.tree.Files, Dirs: f.tree.Dirs,
		Type: g.Type, Cluster: g.ClusterSize, Free: g.Free - need, Why: sizedWhy(f.head)}
	if opts.Min == opts.Max {
		f.sized.Why = "the partition --part-size gives, which holds them"
	}
	return image(n), nil
}

// sizedWhy says why the size was chosen: the smallest that holds the
// trees with the headroom asked for.
func sizedWhy(head vol.Headroom) string {
	switch {
	case head.Bytes > 0 && head.Percent > 0:
		return fmt.Sprintf("the smallest, in steps of 1 MiB, that holds them with %s and %d%% free", cmdutil.HumanSize(head.Bytes), head.Percent)
	case head.Bytes > 0:
		return fmt.Sprintf("the smallest, in steps of 1 MiB, that holds them with %s free", cmdutil.HumanSize(head.Bytes))
	case head.Percent > 0:
		return fmt.Sprintf("the smallest, in steps of 1 MiB, that holds them with %d%% free", head.Percent)
	}
	return "the smallest, in steps of 1 MiB, that holds them"
}

// printSized says what the sizing chose and why.
func printSized(w io.Writer, target string, s *sizedResult) {
	fmt.Fprintf(w, "%s: sized to fit: %s image, a %s %s file system of %d-byte clusters for %s in %s and %s: %s (%d clusters left free)\n",
		target, cmdutil.HumanSize(s.Size), cmdutil.HumanSize(s.FSSize), s.Type, s.Cluster, cmdutil.HumanSize(s.TreeBytes), cmdutil.Plural(int(s.Files), "file"), cmdutil.Plural(int(s.Dirs), "folder"), s.Why, s.Free)
}

// fillResult is what --from copied, as --json reports it.
type fillResult struct {
	cp.Summary
	Sized *sizedResult `json:"sized,omitempty"`
}

// fill copies the trees into the volume just made on dev, with fcp's
// rules and its copy engine, then sets the attributes asked for. The
// device stays open for the caller to close. The error returned is
// cmdutil.Exit(1) when something was skipped (each named on stderr).
func fill(r *request, target string, dev *fio.Device, stderr io.Writer) (*fillResult, error) {
	f := r.from
	v, err := vol.Open(dev)
	if err != nil {
		return nil, err
	}
	vol.AdoptDirty(v) // the format left it dirty until the fill is done
	clock := cmdutil.Now
	if !f.mtime.IsZero() {
		clock = func() time.Time { return f.mtime }
	}
	v.SetClock(clock)
	out := &fillResult{Summary: cp.Summary{Skipped: []cmdutil.Problem{}, Failed: []cmdutil.Problem{}, Renamed: []cp.Renamed{}}, Sized: f.sized}
	o := cp.Options{
		Recursive: true,
		Preserve:  f.mtime.IsZero(),
		Follow:    f.follow,
		Policy:    f.policy,
		IOSize:    dev.IOSize(),
		Warn:      func(line string) { cmdutil.Warn(stderr, "fmkfs", "%s", line) },
		Hints:     fromHints,
		DirsFirst: true,
	}
	key := target
	vols := map[string]vol.Volume{key: v}
	for i, s := range f.specs {
		// The volume holds only what the trees before this one put in:
		// a name taken is fcp's clash in one run, not a file to replace.
		o.Earlier = func(dst string) string { return f.earlier(i, dst) }
		if s.dest != "" {
			// The folders made on the way are copied folders too, as the
			// sizing counts them.
			at := ""
			for _, part := range strings.Split(s.dest, "/") {
				at = path.Join(at, part)
				if _, err := v.Stat(at); errors.Is(err, fs.ErrNotExist) {
					out.Dirs++
				}
			}
			if err := v.MkdirAll(s.dest, clock()); err != nil {
				v.Close()
				return nil, fmt.Errorf("--from %s:/%s: %w", s.dir, s.dest, err)
			}
		}
		src, err := cmdutil.ParseOperand(strings.TrimSuffix(s.dir, "/")+"/.", "")
		if err != nil {
			v.Close()
			return nil, err
		}
		dst := cmdutil.Operand{Raw: target + "::/" + s.dest, Image: key, Path: ".", Contents: true}
		if s.dest != "" {
			dst = cmdutil.Operand{Raw: target + "::/" + s.dest + "/", Image: key, Path: s.dest, Slash: true}
		}
		plan, err := cp.NewPlan([]cmdutil.Operand{src}, dst, vols, o)
		if err != nil {
			v.Close()
			return nil, err
		}
		res := plan.Run()
		out.Files += res.Files
		out.Dirs += res.Dirs
		out.Bytes += res.Bytes
		out.Skipped = append(out.Skipped, res.Skipped...)
		out.Failed = append(out.Failed, res.Failed...)
		out.Renamed = append(out.Renamed, res.Renamed...)
		if res.Stopped != nil {
			v.Close()
			return out, res.Stopped
		}
	}
	unmatched, err := setAttrs(v, f.attrs)
	if err != nil {
		v.Close()
		return out, err
	}
	for _, r := range unmatched {
		// Likely a mistyped pattern: said, but no failure (exit 0).
		cmdutil.Warn(stderr, "fmkfs", "--%s %q matches nothing copied in", r.flag, r.glob)
	}
	if err := v.Close(); err != nil {
		return out, err
	}
	if len(out.Skipped)+len(out.Failed) > 0 {
		return out, cmdutil.Exit(1, nil)
	}
	return out, nil
}

// fromHints are fmkfs's options for what fcp's messages advise.
var fromHints = cp.Hints{
	Autorename: "--clash a",
	Overwrite:  "--clash o",
	Follow:     "give --dereference to follow it",
	Special:    "fmkfs --from copies only files and folders",
}

// earlier names the host file of one of the first n trees that the
// volume path dst came from (the tree when no file there says so).
func (f *fromRequest) earlier(n int, dst string) string {
	for i := n - 1; i >= 0; i-- {
		s := f.specs[i]
		rel, ok := dst, s.dest == ""
		if !ok && len(dst) > len(s.dest) && strings.EqualFold(dst[:len(s.dest)+1], s.dest+"/") {
			rel, ok = dst[len(s.dest)+1:], true
		}
		if !ok {
			continue
		}
		if host, found := hostPathFold(s.dir, rel); found {
			return host
		}
	}
	return "an earlier --from tree"
}

// hostPathFold finds the host path under dir whose names are those of
// rel but for case, as FAT and exFAT find them.
func hostPathFold(dir, rel string) (string, bool) {
	at := dir
	for _, part := range strings.Split(rel, "/") {
		if _, err := os.Lstat(filepath.Join(at, part)); err == nil {
			at = filepath.Join(at, part)
			continue
		}
		ents, err := os.ReadDir(at)
		if err != nil {
			return "", false
		}
		found := false
		for _, e := range ents {
			if strings.EqualFold(e.Name(), part) {
				at, found = filepath.Join(at, e.Name()), true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	return at, true
}

// setAttrs sets the attributes of what the --set-* patterns match: a
// pattern with a slash is matched against the path from the root, one
// without against each name. It returns the rules that matched nothing.
func setAttrs(v vol.Volume, rules []attrRule) ([]attrRule, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	matched := make([]bool, len(rules))
	err := fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		var set vol.Attr
		for i, r := range rules {
			subject := d.Name()
			if strings.Contains(r.glob, "/") {
				subject = p
			}
			// FAT and exFAT names are found without case: so are patterns.
			if ok, _ := path.Match(strings.ToLower(r.glob), strings.ToLower(subject)); ok {
				set |= r.attr
				matched[i] = true
			}
		}
		if set == 0 {
			return nil
		}
		return v.SetAttr(p, set, 0)
	})
	var none []attrRule
	for i, r := range rules {
		if !matched[i] {
			none = append(none, r)
		}
	}
	return none, err
}

// isExit1 reports whether err is only fill's "something was skipped".
func isExit1(err error) bool {
	var ee *cmdutil.ExitError
	return errors.As(err, &ee) && ee.Err == nil
}

// printFilled says what the sizing chose and what --from copied.
func printFilled(w io.Writer, r *request, res *fillResult) {
	if res == nil {
		return
	}
	if res.Sized != nil {
		printSized(w, r.path, res.Sized)
	}
	fmt.Fprintf(w, "copied %s and %s (%s) into %s\n", cmdutil.Plural(res.Files, "file"), cmdutil.Plural(res.Dirs, "folder"), cmdutil.HumanSize(res.Bytes), r.path)
}

// needHint is what a refusal adds: the size of the image, or of the
// file system, that would hold the trees (as --size auto would make it).
func needHint(r *request) func() string {
	return func() string {
		rr, ff := *r, *r.from
		ff.need = nil
		rr.from, rr.table.from = &ff, &ff
		rr.table.partAuto = true
		if _, err := autoSize(&rr, 0); err != nil || ff.sized == nil {
			return ""
		}
		// The size the sizing chose, which the advice gives back.
		n, flag, what := ff.sized.Size-rr.off, "--size", "file system"
		if r.table.kind != "" {
			n, flag, what = rr.table.partSize, "--part-size", "partition"
		}
		if r.o.Partition != 0 {
			// An existing partition's size is what is there: no option
			// sizes it.
			return fmt.Sprintf("; it needs a partition %d of %d bytes (%s) or more: make partition %d larger", r.o.Partition, n, cmdutil.HumanSize(n), r.o.Partition)
		}
		rootHint := ""
		if r.p.RootEntries == 0 && rr.p.RootEntries != 0 && ff.sized.Type != "FAT32" {
			rootHint = fmt.Sprintf(" -r %d", rr.p.RootEntries)
		}
		if r.table.kind != "" {
			return fmt.Sprintf("; it needs a %s of %d bytes (%s; %s %dM%s)", what, n, cmdutil.HumanSize(n), flag, n/sizeStep, rootHint)
		}
		return fmt.Sprintf("; it needs a %s of %d bytes (%s; %s %dM%s, or --size auto for an image file)", what, n, cmdutil.HumanSize(n), flag, n/sizeStep, rootHint)
	}
}
