package cp

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
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

// forbidden are the printable characters FAT long names cannot hold.
const forbidden = "\"*/:<>?\\|"

// volumeName applies FAT's and Windows' rules to a name going into a
// volume: trailing dots and spaces are dropped (as Windows and mcopy do),
// and characters FAT cannot hold, over-long names and DOS device names
// are refused.
func volumeName(name string) nameFix {
	f := nameFix{name: name}
	if !utf8.ValidString(name) {
		f.refusal = "is not valid UTF-8"
		f.fixed = volumeName(strings.ToValidUTF8(name, "_")).name
		return f
	}
	if clean := strings.TrimRight(name, " ."); clean != name {
		if clean == "" {
			f.refusal = "is nothing but dots and spaces, which FAT cannot store"
			return f
		}
		f.name = clean
		f.note = "FAT names cannot end in a dot or a space (Windows and mcopy drop them too)"
	}
	if i := strings.IndexFunc(f.name, badFATRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(f.name[i:])
		f.refusal = fmt.Sprintf("holds %q, which FAT names cannot hold", r)
		f.fixed = strings.Map(func(r rune) rune {
			if badFATRune(r) {
				return '_'
			}
			return r
		}, f.name)
	}
	if n := len(utf16.Encode([]rune(f.name))); n > fat.MaxLongNameUnits {
		f.refusal = fmt.Sprintf("is %d UTF-16 units long, more than FAT's %d", n, fat.MaxLongNameUnits)
		f.fixed = ""
	}
	if f.refusal == "" && isDeviceName(f.name) {
		f.refusal = "is a DOS device name (CON, PRN, AUX, NUL, COM1-9 and LPT1-9, with any extension), which Windows cannot open"
		f.fixed = f.name // autorename gives it a number
	}
	return f
}

func badFATRune(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune(forbidden, r) }

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

// isDeviceName reports whether a name is one DOS and Windows reserve for a
// device: CON, PRN, AUX, NUL, COM1-COM9 or LPT1-LPT9, in any case, with or
// without an extension ("con.txt" too).
func isDeviceName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (base[:3] == "COM" || base[:3] == "LPT") && base[3] >= '1' && base[3] <= '9'
}

// numbered is name with -n before its extension ("photo-2.jpg"), shortened
// where FAT's length limit requires.
func numbered(name string, n int) string {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i:]
	}
	tail := fmt.Sprintf("-%d%s", n, ext)
	for len(utf16.Encode([]rune(base+tail))) > fat.MaxLongNameUnits && base != "" {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return base + tail
}

// quote shows a user's path in a message: in single quotes, as cp does,
// with control characters escaped so that a message stays one line.
func quote(p string) string { return cmdutil.Quote(p) }
