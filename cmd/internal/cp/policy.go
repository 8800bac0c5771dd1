package cp

import "fmt"

// Action is what to do when a name clashes: one of mcopy's -D letters.
type Action byte

// The clash actions, by their mcopy letter (lower case: for the primary
// name; upper case: for the secondary name).
const (
	Default    Action = 0   // the rule described at Policy
	Overwrite  Action = 'o' // replace the existing file (directories merge)
	Skip       Action = 's' // leave the existing entry, skip the source
	Autorename Action = 'a' // store the source under a free name ("name-1.ext")
	Rename     Action = 'r' // ask for a new name (skip when nobody can be asked)
	Ask        Action = 'm' // ask what to do (skip when nobody can be asked)
)

// Policy is mcopy's -D: what to do with a clash of the primary name (the
// name as shown: the long name, or the short one when there is no long
// name) and of the secondary name (the hidden short name of an entry whose
// long name differs: "PROGRA~1" for "Program Files").
//
// Defaults (Default): a file that existed before the copy is overwritten,
// as cp does; a name that this copy already used (names that differ only
// in case, or in trailing dots and spaces) is asked about on a terminal and
// otherwise skipped, so that a copy never overwrites what it copied itself;
// a directory onto a file, or a file onto a directory, fails as with cp; a
// secondary clash is autorenamed, as mcopy does. Names a volume cannot
// store (DOS device names, forbidden characters) are refused, unless the
// primary action renames (a, r or m).
type Policy struct {
	Primary, Secondary Action
}

// ParsePolicy reads -D letters: each of o, s, a, r, m sets the primary
// action, each of O, S, A, R, M the secondary one; later letters win.
func ParsePolicy(specs ...string) (Policy, error) {
	var p Policy
	for _, s := range specs {
		for _, r := range s {
			a, ok := actionOf(r)
			if !ok {
				return p, fmt.Errorf("-D %s: %q is not a clash action (o overwrite, s skip, a autorename, r rename, m ask; upper case for secondary names)", s, r)
			}
			if r >= 'A' && r <= 'Z' {
				p.Secondary = a
			} else {
				p.Primary = a
			}
		}
	}
	return p, nil
}

func actionOf(r rune) (Action, bool) {
	if r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	switch a := Action(r); a {
	case Overwrite, Skip, Autorename, Rename, Ask:
		return a, true
	}
	return 0, false
}

// renames reports whether an action gives a refused name another one.
func (a Action) renames() bool { return a == Autorename || a == Rename || a == Ask }
