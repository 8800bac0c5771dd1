package cp

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

// volumePath is an image operand's path with mtools' separators (a
// backslash is a slash) but with "\[" and "\]" kept as escapes: FAT names
// may hold brackets but never backslashes, so a backslash before a
// bracket can only mean "this bracket is literal".
func volumePath(op cmdutil.Operand) string {
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

// expand turns an image source into the paths it names. Its last element
// may hold wildcards (*, ?, [...]), matched case-insensitively as FAT
// names are; an entry whose name is the element itself, brackets and all,
// wins over the wildcard reading, and "\[" escapes a bracket.
func expand(op cmdutil.Operand, s volSide) ([]end, []cmdutil.Problem, error) {
	show := func(p string) string { return op.Show(p) }
	p := volumePath(op)
	dir, base := path.Split(p)
	dir = unescape(strings.TrimSuffix(dir, "/"))
	if dir == "" {
		dir = "."
	}
	literal := s.join(dir, unescape(base))
	if p == "." {
		literal = "."
	}
	one := func(lp string) []end {
		sh := show(lp)
		if op.Contents {
			sh = strings.TrimSuffix(sh, "/") + "/."
		}
		return []end{{s, lp, sh}}
	}
	if !hasMeta(base) {
		return one(literal), nil, nil
	}
	if _, err := s.vol.Stat(literal); err == nil {
		return one(literal), nil, nil
	}
	pat := fat.FoldName(base)
	if _, err := path.Match(pat, ""); err != nil {
		return nil, nil, fmt.Errorf("bad pattern %s: %w", quote(op.Raw), err)
	}
	ents, err := s.vol.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("cannot list %s: no such directory", quote(show(dir)))
		}
		return nil, nil, fmt.Errorf("cannot list %s: %s", quote(show(dir)), errText(err))
	}
	var out []end
	var skipped []cmdutil.Problem
	for _, e := range ents {
		if ok, _ := path.Match(pat, fat.FoldName(e.Name())); !ok {
			continue
		}
		if why := cmdutil.Unaddressable(e.Name()); why != "" {
			skipped = append(skipped, cmdutil.Problem{Path: s.join(show(dir), e.Name()), Reason: "the name " + quoteName(e.Name()) + " " + why})
			continue
		}
		ep := s.join(dir, e.Name())
		out = append(out, end{s, ep, show(ep)})
	}
	if len(out) == 0 && len(skipped) == 0 {
		return nil, nil, fmt.Errorf("no match for %s", quote(op.Raw))
	}
	return out, skipped, nil
}
