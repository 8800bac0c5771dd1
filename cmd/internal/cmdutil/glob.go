package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/ftools/ftools/pkg/vol"
)

// Match is one path a volume operand names once its wildcards are
// expanded.
type Match struct {
	Path    string // volume path ("." for the root)
	Show    string // as messages show it
	Literal bool   // the operand named it without a wildcard (or by its literal name)
}

// JoinVol joins a volume directory ("." for the root) and a name.
func JoinVol(dir, name string) string {
	switch {
	case dir == "." || dir == "":
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

// volumePath is an image operand's path with mtools' separators (a
// backslash is a slash) but with "\[" and "\]" kept as escapes: FAT names
// may hold brackets but never backslashes, so a backslash before a
// bracket can only mean "this bracket is literal".
func volumePath(op Operand) string {
	raw := op.Raw
	if i := strings.Index(raw, "::"); i >= 0 {
		raw = raw[i+2:]
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' {
			if i+1 < len(raw) && (raw[i+1] == '[' || raw[i+1] == ']') {
				b.WriteString(raw[i : i+2])
				i++
				continue
			}
			c = '/'
		}
		b.WriteByte(c)
	}
	p := path.Clean("/" + b.String())[1:]
	if p == "" {
		return "."
	}
	return p
}

// LiteralPath is an image operand's path with mtools' separators and its
// escapes taken literally: the path of a destination, which is never
// expanded.
func LiteralPath(op Operand) string { return unescape(volumePath(op)) }

// hasMeta reports whether a path element holds an unescaped wildcard.
func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescape drops the backslashes of "\[" and "\]".
func unescape(s string) string {
	return strings.NewReplacer(`\[`, "[", `\]`, "]").Replace(s)
}

// Glob turns an image operand into the paths it names, as mtools does. Its
// last element may hold wildcards (*, ?, [...]), matched
// case-insensitively as the volume compares names; an entry whose name is the element
// itself, brackets and all, wins over the wildcard reading, and "\["
// escapes a bracket. A path without wildcards is returned as it is,
// whether it exists or not. Entries whose names cannot be named in a path
// are returned as problems; no match at all is an error.
func Glob(v vol.Volume, op Operand) ([]Match, []Problem, error) {
	p := volumePath(op)
	dir, base := path.Split(p)
	dir = unescape(strings.TrimSuffix(dir, "/"))
	if dir == "" {
		dir = "."
	}
	literal := JoinVol(dir, unescape(base))
	if p == "." {
		literal = "."
	}
	one := []Match{{Path: literal, Show: op.Show(literal), Literal: true}}
	if !hasMeta(base) {
		return one, nil, nil
	}
	if _, err := v.Stat(literal); err == nil {
		return one, nil, nil
	}
	pat := v.FoldName(base)
	if _, err := path.Match(pat, ""); err != nil {
		return nil, nil, fmt.Errorf("bad pattern %s: %w", Quote(op.Raw), err)
	}
	ents, err := v.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("cannot list %s: no such directory", Quote(op.Show(dir)))
		}
		return nil, nil, fmt.Errorf("cannot list %s: %s", Quote(op.Show(dir)), ErrText(err))
	}
	var out []Match
	var skipped []Problem
	for _, e := range ents {
		if ok, _ := path.Match(pat, v.FoldName(e.Name())); !ok {
			continue
		}
		if why := Unaddressable(e.Name()); why != "" {
			skipped = append(skipped, Problem{Path: JoinVol(op.Show(dir), e.Name()), Reason: fmt.Sprintf("the name %q %s", e.Name(), why)})
			continue
		}
		ep := JoinVol(dir, e.Name())
		out = append(out, Match{Path: ep, Show: op.Show(ep)})
	}
	if len(out) == 0 && len(skipped) == 0 {
		return nil, nil, fmt.Errorf("no match for %s", Quote(op.Raw))
	}
	return out, skipped, nil
}

// Expand is Glob for the verbs: the operands that op names, each with its
// path replaced by a match (and the trailing slash it was given with).
func Expand(v vol.Volume, op Operand) ([]Operand, []Problem, error) {
	ms, skipped, err := Glob(v, op)
	var ops []Operand
	for _, m := range ms {
		o := op
		o.Path = m.Path
		ops = append(ops, o)
	}
	return ops, skipped, err
}

// Quote shows a path inside a message: in single quotes, control
// characters escaped.
func Quote(p string) string { return "'" + Sanitize(p) + "'" }

// ErrText is an error as the user reads it, after the path the message
// already names: without the library's own op and path (a *fs.PathError
// or *os.LinkError names the path as the library saw it, "stat /a.txt")
// and without package prefixes ("fat: ", "io: "). Common errors read as
// the shell's tools say them ("no such file or directory").
func ErrText(err error) string {
	if ns := vol.NoSpace(err); ns != nil {
		return ns.Error()
	}
	err = UnwrapPath(err)
	// Only the bare sentinels: an error that wraps one says more.
	switch err {
	case fs.ErrNotExist:
		return "no such file or directory"
	case fs.ErrExist:
		return "file exists"
	case fs.ErrPermission:
		return "permission denied"
	}
	msg := err.Error()
	for _, prefix := range []string{"fat: ", "exfat: ", "io: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}
