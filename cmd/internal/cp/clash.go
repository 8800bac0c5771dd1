package cp

import (
	"fmt"
	"path"
	"strings"

	"github.com/ftools/ftools/pkg/vol"
)

// clashKind says what a destination name clashes with.
type clashKind int

const (
	noClash        clashKind = iota
	clashSameRun             // this copy already put something under the name
	clashExisting            // the destination holds an entry of that name
	clashSecondary           // ... an entry whose short name is that name
)

type clash struct {
	kind clashKind
	prev *planned // clashSameRun
	ex   existing // clashExisting, clashSecondary
}

// place settles where a source named name goes inside the destination
// directory dir: the name the side can store, and what to do when that
// name is taken (the policy, or the user's answer). It returns the target
// and what it holds already; false when the source is not copied (the
// reason is recorded).
func (p *Plan) place(dir, src end, e entry, name string) (end, existing, bool) {
	p.settleName()
	d := p.dirState(dir, false)
	fix := dir.side.storeName(name)
	stored, reason := fix.name, fix.note
	if fix.refusal != "" {
		why := "the name " + quoteName(name) + " " + fix.refusal
		act := p.effective(true)
		switch {
		case act == Autorename && fix.fixed != "":
			stored, reason = fix.fixed, why
			if isDeviceName(stored) {
				stored = p.freeName(dir, d, stored)
			}
		case (act == Rename || act == Ask) && fix.fixed != "" && p.o.Ask != nil:
			var ok bool
			if stored, reason, ok = p.askName(dir, src, why); !ok {
				return p.nope(false, src, why)
			}
		default:
			return p.nope(false, src, why)
		}
	}
	for range 20 {
		target := dir.child(stored)
		key := dir.side.fold(stored)
		c, err := p.clashAt(d, target, key)
		if err != nil {
			return p.nope(true, src, fmt.Sprintf("cannot use %s: %s", quote(target.show), errText(err)))
		}
		// A free name, or an existing directory that a directory merges
		// into, as cp -r does.
		if c.kind == noClash || (c.kind == clashExisting && c.ex.dir && e.kind == kindDir) {
			return p.take(d, key, src, target, e, c.ex, name, reason)
		}
		why := c.describe(stored, target)
		switch p.decide(c, src, target, why) {
		case Overwrite:
			ex := c.ex
			if c.kind == clashSameRun {
				ex = existing{exists: true, dir: c.prev.dir}
			}
			if msg := mismatch(ex.dir, e.kind == kindDir, src, target); msg != "" {
				p.problemLine(true, src.show, msg, msg)
				return end{}, existing{}, false
			}
			if c.kind == clashSameRun && !ex.dir {
				p.o.Warn(line(fmt.Sprintf("%s replaces %s, copied before it to %s (%s)", quote(src.show), quote(c.prev.src), quote(target.show), p.o.Hints.Overwrite)))
			}
			return p.take(d, key, src, target, e, ex, name, reason)
		case Autorename:
			stored, reason = p.freeName(dir, d, stored), why
		case Rename:
			var ok bool
			if stored, reason, ok = p.askName(dir, src, why); !ok {
				return p.nope(false, src, why)
			}
		default:
			if c.kind == clashSameRun && p.effective(true) == Default {
				why += "; " + p.o.Hints.Autorename + " keeps both under other names"
			}
			return p.nope(false, src, why)
		}
	}
	return p.nope(false, src, "no free name was found for it")
}

// clashAt says what a target name clashes with in its directory.
func (p *Plan) clashAt(d *dirNames, target end, key string) (clash, error) {
	if prev := p.lookup(d, key); prev != nil {
		return clash{kind: clashSameRun, prev: prev}, nil
	}
	if d.fresh {
		return clash{}, nil
	}
	ex, err := target.side.lookup(target.path)
	switch {
	case err != nil:
		return clash{}, err
	case ex.exists && !ex.secondary && !ex.dir && p.o.Earlier != nil:
		// A file an earlier plan of this run wrote: kept, as this
		// copy's own are (a folder still merges).
		was := target.side.join(path.Dir(target.path), ex.name)
		return clash{kind: clashSameRun, prev: &planned{src: p.o.Earlier(was), name: ex.name}}, nil
	case ex.exists && ex.secondary:
		return clash{kind: clashSecondary, ex: ex}, nil
	case ex.exists:
		return clash{kind: clashExisting, ex: ex}, nil
	}
	return clash{}, nil
}

// nope records a source that is not copied, for place to return.
func (p *Plan) nope(fail bool, src end, why string) (end, existing, bool) {
	p.problem(fail, src.show, why)
	return end{}, existing{}, false
}

// take records that target is what src becomes.
func (p *Plan) take(d *dirNames, key string, src, target end, e entry, ex existing, name, reason string) (end, existing, bool) {
	// The name is registered when the caller makes the item (claim).
	p.pending = &pendingName{d: d, key: key, pl: planned{src: src.show, name: target.side.base(target.path), dir: e.kind == kindDir}}
	if reason != "" || target.side.base(target.path) != name {
		p.renamed(src.show, target.show, reason)
	}
	return target, ex, true
}

// describe says what a clash is, in the user's terms.
func (c clash) describe(stored string, target end) string {
	switch c.kind {
	case clashSameRun:
		if c.prev.name != stored {
			return fmt.Sprintf("the name %s is the same as %s but for case (%s names ignore case)", quoteName(stored), quoteName(c.prev.name), fsysOf(target.side))
		}
		return fmt.Sprintf("its name %s is taken by %s, copied in this run", quoteName(stored), quote(c.prev.src))
	case clashSecondary:
		return fmt.Sprintf("%s is the short name of %s", quote(target.show), quoteName(c.ex.name))
	}
	return quote(target.show) + " exists"
}

// fsysOf names a destination's file system for messages: "exFAT" or
// "FAT" (whose rule on case exFAT shares, but not its name).
func fsysOf(s side) string {
	if v, ok := s.(volSide); ok && vol.AsExFAT(v.vol) != nil {
		return "exFAT"
	}
	return "FAT"
}

// decide applies the policy (asking where it says so) to a clash.
func (p *Plan) decide(c clash, src, target end, why string) Action {
	primary := c.kind != clashSecondary
	act := p.effective(primary)
	if act == Default {
		switch c.kind {
		case clashSecondary:
			act = Autorename // as mcopy does
		case clashSameRun:
			act = Ask // never overwrite what this copy wrote; skip when nobody can be asked
		default:
			act = Overwrite // as cp does
		}
	}
	if act == Ask {
		act = p.askAction(src, why, primary)
	}
	if act == Rename && p.o.Ask == nil {
		act = Skip
	}
	return act
}

// effective is the action for primary (or secondary) clashes: an answer
// given for all, else the policy.
func (p *Plan) effective(primary bool) Action {
	if primary {
		if p.asked.Primary != Default {
			return p.asked.Primary
		}
		return p.o.Policy.Primary
	}
	if p.asked.Secondary != Default {
		return p.asked.Secondary
	}
	return p.o.Policy.Secondary
}

// mismatch is cp's refusal to put a directory over a file or a file over a
// directory ("" when the kinds agree).
func mismatch(wasDir, isDir bool, src, target end) string {
	switch {
	case wasDir && !isDir:
		return fmt.Sprintf("cannot overwrite directory %s with non-directory %s", quote(target.show), quote(src.show))
	case !wasDir && isDir:
		return fmt.Sprintf("cannot overwrite non-directory %s with directory %s", quote(target.show), quote(src.show))
	}
	return ""
}

// freeName is the first of name-1, name-2, ... (before the extension) that
// nothing in dir holds or will hold, and that is not a device name.
func (p *Plan) freeName(dir end, d *dirNames, name string) string {
	for n := 1; ; n++ {
		cand := numbered(name, n)
		if isDeviceName(cand) || p.lookup(d, dir.side.fold(cand)) != nil {
			continue
		}
		if !d.fresh {
			if ex, err := dir.side.lookup(dir.side.join(dir.path, cand)); err != nil || ex.exists {
				continue
			}
		}
		return cand
	}
}

// askAction asks what to do about a clash: o, s, a or r, upper case for
// every later clash of the same kind (as mtools asks). Skip when nobody
// can be asked or the answer is not understood.
func (p *Plan) askAction(src end, why string, primary bool) Action {
	if p.o.Ask == nil {
		return Skip
	}
	for range 3 {
		ans, err := p.o.Ask(line(fmt.Sprintf("%s: %s. Overwrite, skip, autorename or rename? [o/s/a/r; O/S/A/R: the same for all] ", quote(src.show), why)))
		if err != nil {
			return Skip
		}
		ans = strings.TrimSpace(ans)
		if len(ans) != 1 {
			continue
		}
		if a, ok := actionOf(rune(ans[0])); ok && a != Ask {
			if ans[0] >= 'A' && ans[0] <= 'Z' {
				if primary {
					p.asked.Primary = a
				} else {
					p.asked.Secondary = a
				}
			}
			return a
		}
	}
	return Skip
}

// askName asks for a new name for src in dir, until the side can store
// it; it returns the name and the reason to report.
func (p *Plan) askName(dir, src end, why string) (string, string, bool) {
	if p.o.Ask == nil {
		return "", "", false
	}
	for range 3 {
		ans, err := p.o.Ask(line(fmt.Sprintf("%s: %s. New name in %s (empty to skip): ", quote(src.show), why, quote(dir.show))))
		if err != nil {
			return "", "", false
		}
		ans = strings.TrimRight(ans, "\r\n")
		if ans == "" {
			return "", "", false
		}
		fix := dir.side.storeName(ans)
		if fix.refusal == "" {
			return fix.name, "renamed as asked (" + why + ")", true
		}
		p.o.Warn(line(fmt.Sprintf("the name %s %s", quoteName(ans), fix.refusal)))
	}
	return "", "", false
}
