package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/exfat"
	fio "github.com/ftools/ftools/pkg/io"
)

// exfatOutput is --json's object for an exFAT volume: the keys of a FAT
// volume's (output), with exFAT's problems.
type exfatOutput struct {
	Device   string          `json:"device"`
	FATType  string          `json:"fat_type"`
	Problems []exfat.Problem `json:"problems"`
	Warnings []string        `json:"warnings"`
	Fixes    []string        `json:"fixes"`
	Plan     []string        `json:"plan,omitempty"`
	Left     []exfat.Problem `json:"left,omitempty"`
	Checked  []string        `json:"checked,omitempty"`
	Summary  *summary        `json:"summary,omitempty"`
	cmdutil.Outcome
}

// verifyExFAT checks an exFAT volume as fsck.exfat -n does, compares,
// repairs what fsck.exfat repairs (--repair) and reports, with FAT's
// flags, output and exit statuses.
func verifyExFAT(c *cli.Context, spec string, m mode, compares []comparison, dev *fio.Device, stdout, stderr io.Writer) error {
	jsonOut := c.Bool(cmdutil.FlagJSON)
	fail := func(err error) error {
		return cmdutil.Finish(c, stdout, stderr, &exfatOutput{Device: spec, FATType: "exFAT"}, nil, cmdutil.Exit(exitFailed, err))
	}
	if c.Bool(flagSalvage) {
		return cmdutil.Exit(exitUsage, fmt.Errorf("%s: --salvage saves lost FAT chains as FSCKnnnn.REC files; exFAT keeps free space in a bitmap, not chains, so --repair frees lost clusters as fsck.exfat does", spec))
	}
	v, _, err := exfat.OpenForCheck(dev)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	v.Clock = cmdutil.Now
	var opts exfat.CheckOptions
	var checked []string
	opts.Visit, opts.Progress = visitors(m, jsonOut, stdout, stderr, &checked)
	rep, err := exfat.Check(v, opts)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	for _, cmp := range compares {
		probs, err := exfat.Compare(v, cmp.host, cmp.vol)
		if err != nil {
			return fail(fmt.Errorf("--compare %s=%s: %w", cmp.host, cmp.vol, err))
		}
		rep.Problems = append(rep.Problems, probs...)
	}
	var plan []string
	var left []exfat.Problem
	planned := (m.repair || m.dryRun) && (!rep.Clean() || rep.Tidy())
	switch {
	case planned:
		plan, err = exfat.Repair(v, rep, exfat.RepairOptions{DryRun: m.dryRun})
		left = leftOf(rep)
		if err != nil {
			return printExFAT(c, stdout, stderr, spec, m, rep, plan, left, checked, planned, nil, cmdutil.Exit(exitFailed, fmt.Errorf("%s: %w", spec, err)))
		}
	case m.verbose && !rep.Clean():
		// The plan -v prints, worked out on a copy of the report.
		cp := *rep
		cp.Problems = slices.Clone(rep.Problems)
		plan, _ = exfat.Repair(v, &cp, exfat.RepairOptions{DryRun: true})
	}
	if err := v.Close(); err != nil {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	if err := dev.Close(); err != nil && !errors.Is(err, fio.ErrClosed) {
		return fail(fmt.Errorf("%s: %w", spec, err))
	}
	switch {
	case rep.Clean():
		err = nil
	case m.repair && rep.Remaining() == 0:
		err = cmdutil.Exit(exitFixed, nil)
	default:
		err = cmdutil.Exit(exitProblems, nil)
	}
	return printExFAT(c, stdout, stderr, spec, m, rep, plan, left, checked, planned, dev, err)
}

// leftOf lists the problems a repair leaves.
func leftOf(rep *exfat.Report) []exfat.Problem {
	var left []exfat.Problem
	for _, p := range rep.Problems {
		if !p.Fixed {
			left = append(left, p)
		}
	}
	return left
}

func summarizeExFAT(rep *exfat.Report) *summary {
	s := &summary{Clean: rep.Clean(), Omitted: rep.Omitted, Remaining: rep.Remaining(), Kinds: map[string]int{},
		Files: rep.Files, Directories: rep.Dirs, Clusters: rep.Clusters, FreeClusters: rep.FreeClusters,
		LostClusters: rep.LostClusters}
	s.Problems = len(rep.Problems) + rep.Omitted
	for _, p := range rep.Problems {
		s.Kinds[p.Kind]++
		if p.Fixed {
			s.Fixed++
		}
	}
	return s
}

// printExFAT prints an exFAT volume's report as finish prints a FAT
// volume's, and ends the command with err.
func printExFAT(c *cli.Context, w, stderr io.Writer, spec string, m mode, rep *exfat.Report, plan []string, left []exfat.Problem, checked []string, planned bool, dev *fio.Device, err error) error {
	s := summarizeExFAT(rep)
	if c.Bool(cmdutil.FlagJSON) {
		out := &exfatOutput{Device: spec, FATType: "exFAT", Problems: rep.Problems, Warnings: rep.Warnings,
			Fixes: []string{}, Checked: checked, Summary: s}
		if planned {
			out.Left = left
		}
		if m.repair {
			out.Fixes = plan
		} else {
			out.Plan = plan
		}
		return cmdutil.Finish(c, w, stderr, out, statsOf(dev), err)
	}
	textReport{warnings: rep.Warnings, problems: lines(rep.Problems), omitted: rep.Omitted, plan: plan,
		left: lines(left), repaired: m.repair, planned: planned, summary: exfatSummaryLine(spec, s)}.print(w, m)
	return cmdutil.Finish(c, w, stderr, &exfatOutput{}, statsOf(dev), err)
}

func exfatSummaryLine(spec string, s *summary) string {
	used := s.Clusters - min(s.FreeClusters, s.Clusters)
	return fmt.Sprintf("%s: exFAT, %d files, %d directories, %d/%d clusters used, %d lost: %s",
		spec, s.Files, s.Directories, used, s.Clusters, s.LostClusters, verdict(s))
}
