package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// result is what verify has to print.
type result struct {
	rep      *vol.Report
	plan     []string // the repair, one sentence per fix
	planned  bool     // Repair worked the plan out (--repair or --dry-run)
	repaired bool     // and carried it out
	after    *summary // the check made again after a repair
}

// output is --json's object. With -l, its first list, "checked" (each
// path as it is checked), is printed before it as the check goes
// (cmdutil.JSONList).
type output struct {
	Device   string        `json:"device"`
	FATType  string        `json:"fat_type,omitempty"`
	Problems []vol.Problem `json:"problems"`
	Warnings []string      `json:"warnings"`
	Fixes    []string      `json:"fixes"`          // the fixes made (--repair)
	Plan     []string      `json:"plan,omitempty"` // the fixes planned, not made
	Left     []vol.Problem `json:"left,omitempty"` // what the repair leaves (--repair, --dry-run)
	Summary  *summary      `json:"summary,omitempty"`
	// After is the summary of the check made again after --repair.
	After *summary `json:"after_repair,omitempty"`
	cmdutil.Outcome
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

func summarize(rep *vol.Report) *summary {
	s := &summary{Clean: rep.Clean(), Omitted: rep.Omitted, Remaining: rep.Remaining(), Kinds: map[string]int{},
		Files: rep.Files, Directories: rep.Dirs, Clusters: rep.Clusters, FreeClusters: rep.FreeClusters,
		BadClusters: rep.BadClusters, LostClusters: rep.LostClusters, LostChains: rep.LostChains}
	s.Problems = len(rep.Problems) + rep.Omitted
	s.Fixed = rep.Fixed() // the omitted ones too
	for _, p := range rep.Problems {
		s.Kinds[p.Kind]++
	}
	return s
}

// finish prints the problems, the plan or fixes, what is left and the
// summary line, or the JSON object, and ends the command with err
// (cmdutil.Finish: the exit status, and the error and --stats in the
// object or on standard error). dev (if not nil) supplies --stats.
func finish(c *cli.Context, w, stderr io.Writer, spec string, m mode, res result, dev *fio.Device, err error) error {
	rep := res.rep
	s := summarize(rep)
	out := &output{Device: spec}
	if c.Bool(cmdutil.FlagJSON) {
		out = &output{Device: spec, FATType: rep.Type, Problems: rep.Problems, Warnings: rep.Warnings,
			Fixes: []string{}, Left: rep.Left, Summary: s, After: res.after}
		if res.repaired {
			out.Fixes = res.plan
		} else {
			out.Plan = res.plan
		}
	} else {
		textReport{warnings: rep.Warnings, problems: lines(rep.Problems), omitted: rep.Omitted, plan: res.plan,
			left: lines(rep.Left), repaired: res.repaired, planned: res.planned, summary: summaryLine(spec, rep.Type, s)}.print(w, m)
		if res.after != nil {
			fmt.Fprintln(w, cmdutil.Sanitize(summaryLine(spec+" after the repair", rep.Type, res.after)))
		}
	}
	return cmdutil.Finish(c, w, stderr, out, statsOf(dev), err)
}

// statsOf is dev's statistics for cmdutil.Finish; nil without a device.
func statsOf(dev *fio.Device) func() fio.Stats {
	if dev == nil {
		return nil
	}
	return dev.Stats
}

// summaryLine is the last line of the text output. exFAT's leaves out
// bad clusters and lost chains, which it has not.
func summaryLine(spec string, t string, s *summary) string {
	used := s.Clusters - min(s.FreeClusters, s.Clusters)
	if t == "exFAT" {
		return fmt.Sprintf("%s: exFAT, %d files, %d directories, %d/%d clusters used, %d lost: %s",
			spec, s.Files, s.Directories, used, s.Clusters, s.LostClusters, verdict(s))
	}
	return fmt.Sprintf("%s: %s, %d files, %d directories, %d/%d clusters used, %d bad, %d lost in %d chains: %s",
		spec, t, s.Files, s.Directories, used, s.Clusters, s.BadClusters, s.LostClusters, s.LostChains, verdict(s))
}
