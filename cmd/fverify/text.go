package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
)

// visitors returns the check's callbacks for -l (each path checked, on
// stdout, or added to list for --json) and -v (each stage, on stderr);
// nil when not asked for.
func visitors(m mode, list *cmdutil.JSONList, stdout, stderr io.Writer) (visit, progress func(string)) {
	if m.list {
		visit = func(p string) {
			if list != nil {
				list.Add(p)
			} else {
				fmt.Fprintf(stdout, "checking %s\n", cmdutil.Sanitize(p))
			}
		}
	}
	if m.verbose {
		progress = func(s string) { cmdutil.Warn(stderr, "fverify", "%s", s) }
	}
	return visit, progress
}

// textReport is what the text output of a check shows, whatever the file
// system.
type textReport struct {
	warnings, problems, plan, left []string
	omitted                        int
	repaired, planned              bool
	summary                        string
}

// print writes the warnings, one line per problem, what was left out,
// the repair's fixes or plan, what it leaves, and the summary line.
func (r textReport) print(w io.Writer, m mode) {
	for _, msg := range r.warnings {
		fmt.Fprintf(w, "warning: %s\n", cmdutil.Sanitize(msg))
	}
	for _, p := range r.problems {
		fmt.Fprintln(w, cmdutil.Sanitize(p))
	}
	if r.omitted > 0 {
		fmt.Fprintf(w, "... and %d more problems\n", r.omitted)
	}
	prefix := ""
	switch {
	case r.repaired:
		prefix = "fixed: "
	case m.dryRun:
		prefix = "would fix: "
	case m.verbose:
		prefix = "plan: "
	}
	if prefix != "" {
		for _, f := range r.plan {
			fmt.Fprintln(w, prefix+cmdutil.Sanitize(f))
		}
	}
	if r.planned {
		for _, p := range r.left {
			fmt.Fprintln(w, "left: "+cmdutil.Sanitize(p))
		}
	}
	fmt.Fprintln(w, cmdutil.Sanitize(r.summary))
}

// lines is each problem's String.
func lines[P fmt.Stringer](ps []P) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// verdict ends the summary line: "clean", or the problems by kind and
// what a repair fixed.
func verdict(s *summary) string {
	if s.Clean {
		return "clean"
	}
	kinds := make([]string, 0, len(s.Kinds))
	for _, k := range slices.Sorted(maps.Keys(s.Kinds)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, s.Kinds[k]))
	}
	line := fmt.Sprintf("%s (%s)", cmdutil.Plural(s.Problems, "problem"), strings.Join(kinds, ", "))
	if s.Fixed > 0 || s.Remaining < s.Problems {
		line += fmt.Sprintf(", %d fixed, %d remaining", s.Fixed, s.Remaining)
	}
	return line
}
