package cp

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

// nameFix is what becomes of a source's name on its way into a side.
type nameFix struct {
	name    string // the name to store (the source's, or a cleaned one)
	note    string // why name differs from the source's ("" if it does not)
	refusal string // why the name cannot be stored ("" if it can)
	// fixed is a storable name for a refused one, used when the clash
	// policy renames ("" when there is none).
	fixed string
}

// nameRules are one file system's rules for names going into a volume
// (vol.Names: the rule every command and both libraries follow).
type nameRules struct{ vol.NameRule }

var (
	fatNames   = nameRules{vol.FATNames}
	exfatNames = nameRules{vol.ExFATNames}
)

// volumeName applies FAT's and Windows' rules to a name going into a FAT
// volume (see nameRules.fix).
func volumeName(name string) nameFix { return fatNames.fix(name) }

// fix applies the rules to a name going into a volume: trailing dots and
// spaces are dropped (as Windows and mcopy do), and characters the file
// system cannot hold, over-long names and DOS device names are refused;
// fixed is a storable name for a refused one where there is one.
func (nr nameRules) fix(name string) nameFix {
	clean, note, err := nr.Clean(name)
	f := nameFix{name: clean, note: note}
	var ne *vol.NameError
	if !errors.As(err, &ne) {
		return f
	}
	f.refusal = ne.Reason
	switch {
	case !utf8.ValidString(name):
		f.fixed = nr.fix(strings.ToValidUTF8(name, "_")).name
	case strings.IndexFunc(clean, nr.Bad) >= 0:
		f.fixed = strings.Map(func(r rune) rune {
			if nr.Bad(r) {
				return '_'
			}
			return r
		}, clean)
		if len(utf16.Encode([]rune(f.fixed))) > vol.MaxNameUnits {
			f.fixed = ""
		}
	case vol.IsDeviceName(clean) && len(utf16.Encode([]rune(clean))) <= vol.MaxNameUnits:
		f.fixed = clean // autorename gives it a number
	}
	return f
}

// hostName checks a name from a volume going onto the host: it must not
// be read as a separator, a parent or a terminal control.
func hostName(name string) nameFix {
	f := nameFix{name: name}
	if why := cmdutil.Unaddressable(name); why != "" {
		f.refusal = why
		return f
	}
	if strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		f.refusal = "contains a control character"
	}
	return f
}

func isDeviceName(name string) bool { return vol.IsDeviceName(name) }

// numbered is name with -n before its extension ("photo-2.jpg"), shortened
// where FAT's length limit requires.
func numbered(name string, n int) string {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i:]
	}
	tail := fmt.Sprintf("-%d%s", n, ext)
	for len(utf16.Encode([]rune(base+tail))) > vol.MaxNameUnits && base != "" {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return base + tail
}

// quote shows a user's path in a message: in single quotes, as cp does,
// with control characters escaped so that a message stays one line.
func quote(p string) string { return cmdutil.Quote(p) }
