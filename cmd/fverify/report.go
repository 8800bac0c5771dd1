package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

// result is what verify has to print.
type result struct {
	rep      *fat.Report
	checked  []string // -l with --json: the paths checked
	plan     []string // the repair, one sentence per fix
	planned  bool     // Repair worked the plan out (--repair or --dry-run)
	repaired bool     // and carried it out
}

// output is --json's object.
type output struct {
	Device   string        `json:"device"`
	FATType  string        `json:"fat_type,omitempty"`
	Error    string        `json:"error,omitempty"`
	Problems []fat.Problem `json:"problems"`
	Warnings []string      `json:"warnings"`
	Fixes    []string      `json:"fixes"`          // the fixes made (--repair)
	Plan     []string      `json:"plan,omitempty"` // the fixes planned, not made
	Left     []fat.Problem `json:"left,omitempty"` // what the repair leaves (--repair, --dry-run)
	Checked  []string      `json:"checked,omitempty"`
	Summary  *summary      `json:"summary,omitempty"`
	Stats    *fio.Stats    `json:"stats,omitempty"`
}

// summary holds the counts of the summary line.
type summary struct {
	Clean        bool           `json:"clean"`
	Problems     int            `json:"problems"` // found, the omitted ones included
	Fixed        int            `json:"fixed"`
	Remaining    int            `json:"remaining"`
	Omitted      int            `json:"omitted"` // found but not listed
	Kinds        map[string]int `json:"kinds"`   // listed problems by kind
	Files        int            `json:"files"`
	Directories  int            `json:"directories"`
	Clusters     uint32         `json:"clusters"`
	FreeClusters uint32         `json:"free_clusters"`
	BadClusters  uint32         `json:"bad_clusters"`
	LostClusters uint32         `json:"lost_clusters"`
	LostChains   int            `json:"lost_chains"`
}

func summarize(rep *fat.Report) *summary {
	s := &summary{Clean: rep.Clean(), Omitted: rep.Omitted, Remaining: rep.Remaining(), Kinds: map[string]int{},
		Files: rep.Files, Directories: rep.Dirs, Clusters: rep.Clusters, FreeClusters: rep.FreeClusters,
		BadClusters: rep.BadClusters, LostClusters: rep.LostClusters, LostChains: rep.LostChains}
	s.Problems = len(rep.Problems) + rep.Omitted
	for _, p := range rep.Problems {
		s.Kinds[p.Kind]++
		if p.Fixed {
			s.Fixed++
		}
	}
	return s
}

// printReport prints the problems, the plan or fixes, what is left and
// the summary line, or the JSON object. dev (if not nil) supplies --stats
// for JSON.
func printReport(c *cli.Context, w io.Writer, spec string, m mode, res result, dev *fio.Device) {
	rep := res.rep
	s := summarize(rep)
	if c.Bool(cmdutil.FlagJSON) {
		out := &output{Device: spec, FATType: rep.Type.String(), Problems: rep.Problems, Warnings: rep.Warnings,
			Fixes: []string{}, Left: rep.Left, Checked: res.checked, Summary: s}
		if res.repaired {
			out.Fixes = res.plan
		} else {
			out.Plan = res.plan
		}
		if out.Problems == nil {
			out.Problems = []fat.Problem{}
		}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		if dev != nil && c.Bool(cmdutil.FlagStats) {
			st := dev.Stats()
			out.Stats = &st
		}
		cmdutil.PrintJSON(w, out)
		return
	}
	for _, msg := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", cmdutil.Sanitize(msg))
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, cmdutil.Sanitize(p.String()))
	}
	if rep.Omitted > 0 {
		fmt.Fprintf(w, "... and %d more problems\n", rep.Omitted)
	}
	prefix := ""
	switch {
	case res.repaired:
		prefix = "fixed: "
	case m.dryRun:
		prefix = "would fix: "
	case m.verbose:
		prefix = "plan: "
	}
	if prefix != "" {
		for _, f := range res.plan {
			fmt.Fprintln(w, prefix+cmdutil.Sanitize(f))
		}
	}
	if res.planned {
		for _, p := range rep.Left {
			fmt.Fprintln(w, "left: "+cmdutil.Sanitize(p.String()))
		}
	}
	fmt.Fprintln(w, cmdutil.Sanitize(summaryLine(spec, rep.Type, s)))
}

func summaryLine(spec string, t fat.Type, s *summary) string {
	used := s.Clusters - min(s.FreeClusters, s.Clusters)
	line := fmt.Sprintf("%s: %s, %d files, %d directories, %d/%d clusters used, %d bad, %d lost in %d chains: ",
		spec, t, s.Files, s.Directories, used, s.Clusters, s.BadClusters, s.LostClusters, s.LostChains)
	if s.Clean {
		return line + "clean"
	}
	kinds := make([]string, 0, len(s.Kinds))
	for _, k := range slices.Sorted(maps.Keys(s.Kinds)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, s.Kinds[k]))
	}
	line += fmt.Sprintf("%d problems (%s)", s.Problems, strings.Join(kinds, ", "))
	if s.Fixed > 0 || s.Remaining < s.Problems {
		line += fmt.Sprintf(", %d fixed, %d remaining", s.Fixed, s.Remaining)
	}
	return line
}
