package vol

import (
	"context"
	"slices"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// Problem is one thing Check found wrong, on either file system.
type Problem struct {
	Kind    string   `json:"kind"`            // pkg/fat's and pkg/exfat's Kind constants
	Path    string   `json:"path"`            // the file or directory concerned ("/" for the root), "" for volume-wide problems
	Paths   []string `json:"paths"`           // every path involved (both files of a cross-link), nil if only Path
	Cluster uint32   `json:"cluster"`         // the cluster concerned, 0 if none
	Offset  int64    `json:"offset"`          // byte offset on the volume of the field or entry concerned, -1 if none
	Message string   `json:"message"`         // one sentence
	Fix     string   `json:"fix,omitempty"`   // what Repair does about it, "" if nothing (or not said: exFAT)
	Fixed   bool     `json:"fixed,omitempty"` // Repair did it (or, in a dry run, would)
}

// String formats the problem as one line: kind, path, message, and the
// cluster and byte offset where they are known.
func (p Problem) String() string {
	return fsutil.ProblemLine(p.Kind, p.Path, p.Message, p.Cluster, p.Offset, p.Fixed)
}

// CheckOptions tune Check. The zero value is the usual check.
type CheckOptions struct {
	// MaxDepth bounds the directory nesting Check descends into, and
	// MaxProblems the problems it lists (the counts stay exact); 0 means
	// the file system's default.
	MaxDepth, MaxProblems int
	// Salvage plans lost FAT chains to be saved as files FSCKnnnn.REC in
	// the root (fsck.fat -f) instead of freed. exFAT has no lost chains
	// (its free space is a bitmap): Repair frees lost clusters there, as
	// fsck.exfat does, whatever Salvage says.
	Salvage bool
	// Plan asks Report.Plan for the repair's plan before any Repair.
	// FAT's check plans as it goes, so a FAT report has it anyway; on
	// exFAT, Plan works it out with a dry run on a copy of the report.
	Plan bool
	// Visit, if not nil, is called with the path of every file and
	// directory as it is checked; Progress is told each step as it
	// starts, one sentence each.
	Visit, Progress func(string)
	// Clock, if not nil, dates what a repair creates (FAT's FSCKnnnn.REC
	// files); time.Now otherwise.
	Clock func() time.Time
	// ExFAT, if not nil, is what IsExFAT said of the device, so that
	// Check need not read the boot sector for it again; nil: Check asks.
	ExFAT *bool
	// Context, if not nil, cancels the check: it stops at the next step
	// Progress would be told of or the next directory, and Check returns
	// an error wrapping the context's (context.Canceled, say). A check
	// writes nothing either way. nil: context.Background.
	Context context.Context
	// CompareCache keeps the host files Report.Compare reads in the page
	// cache; by default they pass it without staying (fverify --cache).
	CompareCache bool
}

// RepairOptions tune Repair.
type RepairOptions struct {
	// DryRun works the repair out, and what it would leave, without
	// writing anything: the problems it would fix are marked Fixed.
	DryRun bool
	// Context, if not nil, cancels the repair between its steps, each
	// left whole (see Repair); nil: context.Background.
	Context context.Context
}

// Report is what Check found on a FAT or exFAT volume, and after Repair,
// what it fixed and left. Check's volume stays open with it until Close.
type Report struct {
	Type     string    // "FAT12", "FAT16", "FAT32" or "exFAT"
	Problems []Problem // as many as MaxProblems; Omitted counts the rest
	Warnings []string  // oddities that are not errors
	Omitted  int

	Files        int
	Dirs         int // the root included
	Clusters     uint32
	FreeClusters uint32 // free in the FAT (FAT) or the bitmap (exFAT)
	BadClusters  uint32 // FAT only: exFAT marks none
	LostClusters uint32 // in use, used by nothing
	LostChains   int    // FAT only: exFAT has no chains for free space

	// Left lists what Repair could not fix (set by Repair; after a dry
	// run, what it would leave).
	Left []Problem

	c checked
}

// checked is one file system's check, behind a Report.
type checked interface {
	fill(r *Report)
	compare(host, path string) error
	plan() []string
	repair(o RepairOptions) ([]string, error)
	remaining() int
	fixed() int
	needsRepair() bool
	close() error
}

// Check opens the volume on dev for a check and checks it as fsck.fat -n
// and fsck.exfat -n do, writing nothing. A volume whose main boot sector
// is damaged is opened from its backup when that one is sound: the
// report names the damage, and Repair copies the backup back. The error
// is one the volume could not be checked for at all (not even opened);
// what is wrong with it is in the report.
func Check(dev *fio.Device, o CheckOptions) (*Report, error) {
	var ex bool
	var err error
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	if o.ExFAT != nil {
		ex = *o.ExFAT
	} else if ex, err = IsExFAT(dev); err != nil {
		return nil, err
	}
	r := &Report{}
	if ex {
		v, _, err := exfat.OpenForCheck(dev)
		if err != nil {
			return nil, err
		}
		if o.Clock != nil {
			v.Clock = o.Clock
		}
		rep, err := exfat.Check(v, exfat.CheckOptions{MaxDepth: o.MaxDepth, MaxProblems: o.MaxProblems, Visit: o.Visit, Progress: o.Progress,
			Context: o.Context})
		if err != nil {
			v.Close() // nothing changed: it writes nothing
			return nil, err
		}
		r.c = &exfatChecked{v: v, rep: rep, wantPlan: o.Plan, cache: o.CompareCache}
	} else {
		v, bootErr, err := fat.OpenForCheck(dev)
		if err != nil {
			return nil, err
		}
		if o.Clock != nil {
			v.Clock = o.Clock
		}
		rep, err := fat.Check(v, fat.CheckOptions{MaxDepth: o.MaxDepth, MaxProblems: o.MaxProblems, BootError: bootErr,
			Salvage: o.Salvage, Visit: o.Visit, Progress: o.Progress, Context: o.Context})
		if err != nil {
			return nil, err
		}
		r.c = &fatChecked{v: v, rep: rep, cache: o.CompareCache}
	}
	r.c.fill(r)
	return r, nil
}

// Repair carries out the repair Check planned in rep: what fsck.fat -a
// and fsck.exfat -y repair, keeping every file they keep (see pkg/fat's
// and pkg/exfat's Repair for the fixes and their crash-safe order). It
// returns the plan, one sentence per fix; the problems fixed are marked
// Fixed and what is left is in rep.Left. The device must be writable
// unless o.DryRun is set.
//
// Cancelled (o.Context), Repair returns an error wrapping the context's
// and leaves the volume as a power cut at the same point would, never
// otherwise: it stops before its first write (nothing written) or
// between two steps of the crash-safe order, each written whole. On FAT
// the stops are the verification passes, before the first write, and
// the copies of shared clusters (whatever of the dirty bit, the boot
// sector's own fixes and the copies, into clusters the FAT still marks
// free, reached the device by then); from the FAT's write on it runs to
// its end. On exFAT they are
// before each of its steps (the boot regions, the batch of the bitmap,
// entries and FAT, the boot flags). A volume left part way is one a new
// Check reports the rest of, and Repair takes up again; on FAT the
// cancelled report cannot repair again (Check anew), on exFAT it goes on
// with the steps left.
func Repair(rep *Report, o RepairOptions) ([]string, error) {
	plan, err := rep.c.repair(o)
	rep.c.fill(rep)
	return plan, err
}

// Compare compares the host file or tree at host with the one at path in
// the volume, and adds what differs to the report's problems (Repair
// leaves them: which copy is right is the user's to say).
func (r *Report) Compare(host, path string) error {
	err := r.c.compare(host, path)
	r.c.fill(r)
	return err
}

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// NeedsRepair reports whether Repair has anything to do: a problem, or on
// exFAT a PercentInUse the bitmap contradicts (which fsck.exfat does not
// report, but Repair sets right).
func (r *Report) NeedsRepair() bool { return r.c.needsRepair() }

// Remaining is the number of problems not fixed: before a repair, every
// problem found, the omitted ones included.
func (r *Report) Remaining() int { return r.c.remaining() }

// Fixed is the number of problems Repair fixed, the omitted ones included
// where the file system counts them (FAT).
func (r *Report) Fixed() int { return r.c.fixed() }

// Plan lists the fixes a repair would make, one sentence each, before
// Repair runs (see CheckOptions.Plan).
func (r *Report) Plan() []string { return r.c.plan() }

// Close lets go of the volume Check opened (not of the device).
func (r *Report) Close() error { return r.c.close() }

type fatChecked struct {
	v     *fat.Volume
	rep   *fat.Report
	cache bool // CheckOptions.CompareCache
}

func (c *fatChecked) fill(r *Report) {
	rep := c.rep
	*r = Report{Type: rep.Type.String(), Problems: fatProblems(rep.Problems), Warnings: rep.Warnings, Omitted: rep.Omitted,
		Files: rep.Files, Dirs: rep.Dirs, Clusters: rep.Clusters, FreeClusters: rep.FreeClusters, BadClusters: rep.BadClusters,
		LostClusters: rep.LostClusters, LostChains: rep.LostChains, Left: fatProblems(rep.Left), c: c}
}

func (c *fatChecked) compare(host, path string) error {
	probs, err := fat.Compare(c.v, host, path, c.cache)
	c.rep.Problems = append(c.rep.Problems, probs...)
	return err
}

func (c *fatChecked) plan() []string { return c.rep.Plan() }
func (c *fatChecked) repair(o RepairOptions) ([]string, error) {
	return fat.Repair(c.v, c.rep, fat.RepairOptions{DryRun: o.DryRun, Context: o.Context})
}
func (c *fatChecked) remaining() int    { return c.rep.Remaining() }
func (c *fatChecked) fixed() int        { return c.rep.Fixed() }
func (c *fatChecked) needsRepair() bool { return !c.rep.Clean() }

// close leaves the volume as Repair left it: Repair closes what it
// writes through, and a check alone changed nothing.
func (c *fatChecked) close() error { return nil }

func fatProblems(ps []fat.Problem) []Problem {
	return convert(ps, func(p fat.Problem) Problem {
		return Problem{Kind: p.Kind, Path: p.Path, Paths: p.Paths, Cluster: uint32(p.Cluster), Offset: p.Offset,
			Message: p.Message, Fix: p.Fix, Fixed: p.Fixed}
	})
}

type exfatChecked struct {
	v        *exfat.Volume
	rep      *exfat.Report
	wantPlan bool
	cache    bool // CheckOptions.CompareCache
	left     []exfat.Problem
	repaired bool
}

func (c *exfatChecked) fill(r *Report) {
	rep := c.rep
	*r = Report{Type: "exFAT", Problems: exfatProblems(rep.Problems), Warnings: rep.Warnings, Omitted: rep.Omitted,
		Files: rep.Files, Dirs: rep.Dirs, Clusters: rep.Clusters, FreeClusters: rep.FreeClusters,
		LostClusters: rep.LostClusters, Left: exfatProblems(c.left), c: c}
}

func (c *exfatChecked) compare(host, path string) error {
	probs, err := exfat.Compare(c.v, host, path, c.cache)
	c.rep.Problems = append(c.rep.Problems, probs...)
	return err
}

// plan is a dry run on a copy of the report, which it leaves as it was.
func (c *exfatChecked) plan() []string {
	if !c.wantPlan || c.repaired || c.rep.Clean() {
		return nil
	}
	cp := *c.rep
	cp.Problems = slices.Clone(c.rep.Problems)
	plan, _ := exfat.Repair(c.v, &cp, exfat.RepairOptions{DryRun: true})
	return plan
}

func (c *exfatChecked) repair(o RepairOptions) ([]string, error) {
	plan, err := exfat.Repair(c.v, c.rep, exfat.RepairOptions{DryRun: o.DryRun, Context: o.Context})
	c.repaired = true
	c.left = nil
	for _, p := range c.rep.Problems {
		if !p.Fixed {
			c.left = append(c.left, p)
		}
	}
	return plan, err
}

func (c *exfatChecked) remaining() int { return c.rep.Remaining() }

func (c *exfatChecked) fixed() int {
	n := 0
	for _, p := range c.rep.Problems {
		if p.Fixed {
			n++
		}
	}
	return n
}

func (c *exfatChecked) needsRepair() bool { return !c.rep.Clean() || c.rep.Tidy() }
func (c *exfatChecked) close() error      { return c.v.Close() }

func exfatProblems(ps []exfat.Problem) []Problem {
	return convert(ps, func(p exfat.Problem) Problem {
		return Problem{Kind: p.Kind, Path: p.Path, Paths: p.Paths, Cluster: uint32(p.Cluster), Offset: p.Offset,
			Message: p.Message, Fixed: p.Fixed}
	})
}

// convert maps a file system's problems to Problems; nil stays nil.
func convert[P any](ps []P, f func(P) Problem) []Problem {
	if ps == nil {
		return nil
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}
