package cmdutil

import (
	"io"
	"path"
	"strings"

	"github.com/ftools/ftools/pkg/vol"
)

// StoreName applies v's rule for names (vol.Names, the one fcp and both
// libraries follow) to the name volume path p gives a new entry: its last
// element, or with all every element (the directories mkdir -p makes).
// Trailing dots and spaces are dropped, with a note on stderr naming both
// paths, as fcp says it; a name v cannot store is an error giving the
// reason (*vol.NameError). The root is returned as is.
func StoreName(stderr io.Writer, cmd string, v vol.Volume, op Operand, p string, all bool) (string, error) {
	if p == "." || p == "" {
		return p, nil
	}
	elems := strings.Split(p, "/")
	var note string
	for i, e := range elems {
		if e == "" || (!all && i < len(elems)-1) {
			continue
		}
		clean, why, err := vol.Names(v).Clean(e)
		if err != nil {
			return p, err
		}
		if why != "" {
			elems[i], note = clean, why
		}
	}
	if note == "" {
		return p, nil
	}
	stored := path.Join(elems...)
	Warn(stderr, cmd, "%s is stored as %s: %s", Quote(op.Show(p)), Quote(op.Show(stored)), note)
	return stored, nil
}
