package sortorder

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Job is what each codec's Volume.Sort is asked to do.
type Job struct {
	Order  Options   // how members are ordered (fatsort's rules)
	Select Selection // which directories (empty: every one)
	// Visit, if set, is told each directory sorted: its path, its members
	// (".", "..", the label and other system entries not counted) and
	// whether it was rewritten.
	Visit   func(path string, members int, changed bool)
	Context context.Context // nil: never cancelled
}

// Result counts what a Sort did.
type Result struct {
	Dirs    int // directories looked at
	Changed int // of those, the ones rewritten
	Members int // their members
}

// Done records a directory looked at and tells Visit.
func (j *Job) Done(r *Result, path string, members int, changed bool) {
	r.Dirs++
	r.Members += members
	if changed {
		r.Changed++
	}
	if j.Visit != nil {
		j.Visit(path, members, changed)
	}
}

// CheckSelected makes sure every directory the selection names exists and
// is a directory, by stat (the volume's), before anything is written.
func (j *Job) CheckSelected(stat func(string) (fs.FileInfo, error)) error {
	for _, p := range j.Select.Paths() {
		fi, err := stat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "sort", Path: p, Err: fmt.Errorf("not a directory")}
		}
	}
	return nil
}

// Start is what both codecs' Sort do first: begin (the volume's check
// that it is open and writable), then CheckSelected.
func (j *Job) Start(begin func() error, stat func(string) (fs.FileInfo, error)) error {
	if err := begin(); err != nil {
		return err
	}
	return j.CheckSelected(stat)
}

// Walk visits the directory d and those below it, from the root down, as
// the job selects them: visit sorts d (sort) or only lists it, and returns
// its subdirectories when the walk goes on below it (descend); path names
// a directory for the selection. Both codecs' Sort walk their trees so.
func Walk[D any](j *Job, d D, path func(D) string, visit func(d D, sort, descend bool) ([]D, error)) error {
	sort, descend, err := j.Enter(path(d))
	if err != nil || !sort && !descend {
		return err
	}
	kids, err := visit(d, sort, descend)
	if err != nil || !descend {
		return err
	}
	for _, k := range kids {
		if err := Walk(j, k, path, visit); err != nil {
			return err
		}
	}
	return nil
}

// Enter says whether the walk goes into the directory at path: sort it,
// descend below it; err is the job's cancellation.
func (j *Job) Enter(path string) (sort, descend bool, err error) {
	if err := fsutil.Cancelled(j.Context); err != nil {
		return false, false, err
	}
	sort, descend = j.Select.Match(path)
	return sort, descend, nil
}
