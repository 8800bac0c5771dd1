package fat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShortName is the 11-byte on-disk 8.3 name: 8 bytes of base and 3 of
// extension, each padded with spaces, in the OEM code page (DefaultCodePage
// unless SetCodePage chose another). A name that
// really starts with byte 0xE5 is stored with 0x05 there (SlotKanjiE5).
type ShortName [11]byte

// Short names of the "." and ".." entries of a subdirectory.
var (
	DotName    = ShortName{'.', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
	DotDotName = ShortName{'.', '.', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}
)

// String returns the name as "BASE.EXT", or "BASE" without an extension,
// decoded from the OEM code page to UTF-8. A leading 0x05 is shown as the 0xE5
// character it stands for.
func (s ShortName) String() string { return s.Display(0) }

// Display returns the name as String does, with the base and/or extension in
// lower case when nt (DIR_NTRes) has NTLowerBase and/or NTLowerExt.
func (s ShortName) Display(nt uint8) string {
	if s[0] == SlotKanjiE5 {
		s[0] = SlotDeleted
	}
	base := decodeOEM(s[:shortBaseLen], nt&NTLowerBase != 0)
	ext := decodeOEM(s[shortBaseLen:], nt&NTLowerExt != 0)
	if ext == "" {
		return base
	}
	return base + "." + ext
}

// MayBeShortName reports whether name could be a short name as String
// shows it (and lookups match it, case-insensitively): at most 12
// characters, 8 + "." + 3, each byte of the code page decoded to one.
// A longer name is never any entry's short name.
func MayBeShortName(name string) bool {
	return utf8.RuneCountInString(name) <= shortBaseLen+1+shortExtLen
}

// Label returns the 11 bytes as a volume label: no dot, trailing spaces
// removed, decoded from the OEM code page.
func (s ShortName) Label() string {
	if s[0] == SlotKanjiE5 {
		s[0] = SlotDeleted
	}
	return decodeOEM(s[:], false)
}

// decodeOEM decodes b without its trailing spaces, lower-cased if asked.
func decodeOEM(b []byte, lower bool) string {
	n := len(b)
	for n > 0 && b[n-1] == ' ' {
		n--
	}
	var sb strings.Builder
	for _, c := range b[:n] {
		r := oem().DecodeByte(c)
		if lower {
			r = unicode.ToLower(r)
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// shortInvalid lists the ASCII characters that may not appear in a short
// name (besides control characters and lower-case letters).
const shortInvalid = "\"*+,./:;<=>?[\\]|\x7f"

// validShortASCII reports whether c may appear in an upper-case short name.
func validShortASCII(c rune) bool {
	return c > ' ' && c < utf8.RuneSelf && !strings.ContainsRune(shortInvalid, c) && !('a' <= c && c <= 'z')
}

// ParseShortName converts "README.TXT" or "FOO" to the 11-byte form. ok is
// false unless s is a valid upper-case 8.3 name: a base of 1-8 and an optional
// extension of 1-3 characters, each an upper-case letter, digit, one of
// !#$%&'()-@^_`{}~ or a non-ASCII character of the OEM code page that is
// not lower case. Spaces, "." and ".." are refused.
func ParseShortName(s string) (ShortName, bool) {
	var n ShortName
	for i := range n {
		n[i] = ' '
	}
	base, ext, hasDot := strings.Cut(s, ".")
	if hasDot && ext == "" {
		return n, false
	}
	if !putShortPart(n[:shortBaseLen], base) || !putShortPart(n[shortBaseLen:], ext) || base == "" {
		return n, false
	}
	if n[0] == SlotDeleted {
		n[0] = SlotKanjiE5
	}
	return n, true
}

// putShortPart encodes part into dst (space-padded); false if it does not fit
// or holds a character invalid in an upper-case short name.
func putShortPart(dst []byte, part string) bool {
	i := 0
	for _, r := range part {
		if i == len(dst) {
			return false
		}
		c, ok := shortByte(r)
		if !ok || unicode.IsLower(r) {
			return false
		}
		dst[i] = c
		i++
	}
	return true
}

// shortByte maps an (already upper-cased) character to its short-name byte.
func shortByte(r rune) (byte, bool) {
	if r < utf8.RuneSelf {
		return byte(r), validShortASCII(r)
	}
	c, ok := oem().EncodeRune(r)
	// The OEM code pages also give graphic characters to bytes below 0x80
	// (0x01 is a smiley); only the upper half is valid for non-ASCII ones.
	return c, ok && c >= utf8.RuneSelf
}

// FoldName returns the form used to compare long names: FAT compares them
// case-insensitively, like Windows, by upper-casing each character
// (unicode.ToUpper, one rune at a time; no multi-rune foldings such as ß→SS).
func FoldName(s string) string { return strings.Map(unicode.ToUpper, s) }

// ShortNameSet is the set of short names used in one directory, for O(1)
// uniqueness checks. Names are compared with ASCII letters upper-cased, so a
// foreign tool's lower-case short name still blocks its upper-case twin.
type ShortNameSet struct {
	m map[ShortName]struct{}
	// last is MakeShortName's last answer for the set as it is (Add and
	// Remove drop it): a new file's name is asked for twice, when it is
	// created (the slots its record will take) and when it is closed (the
	// record), and between the two nothing changes the set when files are
	// written one at a time. The numeric tail's search is then done once.
	last    madeShort
	hasLast bool
}

// madeShort is one answer of MakeShortName.
type madeShort struct {
	long string
	info NameInfo
}

// NewShortNameSet returns an empty set.
func NewShortNameSet() *ShortNameSet { return &ShortNameSet{m: make(map[ShortName]struct{})} }

func shortKey(n ShortName) ShortName {
	for i, c := range n {
		if 'a' <= c && c <= 'z' {
			n[i] = c - 'a' + 'A'
		}
	}
	return n
}

// Add records n as used.
func (s *ShortNameSet) Add(n ShortName) { s.m[shortKey(n)] = struct{}{}; s.hasLast = false }

// Remove forgets n.
func (s *ShortNameSet) Remove(n ShortName) { delete(s.m, shortKey(n)); s.hasLast = false }

// Has reports whether n is used.
func (s *ShortNameSet) Has(n ShortName) bool { _, ok := s.m[shortKey(n)]; return ok }

// Len returns the number of names in the set.
func (s *ShortNameSet) Len() int { return len(s.m) }

// NameInfo is how a long name is stored in a directory.
type NameInfo struct {
	Short ShortName
	// NTRes has NTLowerBase/NTLowerExt when the name is an 8.3 name whose base
	// and/or extension is all lower case.
	NTRes uint8
	// NeedLong is true when LFN slots are needed: the name is not an 8.3 name
	// in plain ASCII, mixes cases within base or extension, or its own 8.3 form
	// was already taken.
	NeedLong bool
}

// Limits of the numeric tail "~N".
const (
	maxSimpleTail = 4      // ~1..~4 on the basis name, then the hashed form
	maxTail       = 999999 // the largest N a "~N" tail can hold in 8 bytes
)

// MakeShortName returns how to store long in a directory whose used short
// names are in used. It does not add the result to used; the caller does, and
// the caller checks beforehand that no other member has the same long name
// (compared with FoldName).
//
// A name that is already an 8.3 name in plain ASCII, upper case or with an
// all-lower-case base and/or extension (NT flags), is stored as itself without
// LFN slots, unless that short name is in used. Everything else gets LFN slots
// and a generated short name, as Windows makes them: the basis name is the
// name upper-cased, without spaces and leading dots, with the dots before the
// last one dropped, and characters invalid in short names or missing from the
// OEM code page replaced by '_'; base up to 8 and extension up to 3 characters. If
// nothing was lost (say "Readme.txt") and it is free, the basis is used as is;
// otherwise "~1".."~4" are tried on its first 6 characters, then 2 characters
// of the basis, 4 hex digits of a hash of the long name and "~1", "~2", ...
// up to "~999999", cutting the prefix as the tail grows. Non-ASCII names always
// get LFN slots so that readers using another code page see them right. The
// result depends only on long and used.
//
// Errors: long fails ValidateLongName, or every candidate is taken (wraps
// ErrNoSpace; a directory cannot hold that many entries).
func MakeShortName(long string, used *ShortNameSet) (NameInfo, error) {
	if used != nil && used.hasLast && used.last.long == long {
		return used.last.info, nil
	}
	info, err := makeShortName(long, used)
	if err == nil && used != nil {
		used.last, used.hasLast = madeShort{long: long, info: info}, true
	}
	return info, err
}

func makeShortName(long string, used *ShortNameSet) (NameInfo, error) {
	if err := ValidateLongName(long); err != nil {
		return NameInfo{}, err
	}
	if short, nt, ok := exact83(long); ok && !used.Has(short) {
		return NameInfo{Short: short, NTRes: nt}, nil
	}
	base, ext, lossy := basisName(long)
	info := NameInfo{NeedLong: true}
	cand := func(prefix []byte, tail string) ShortName {
		var n ShortName
		for i := range n {
			n[i] = ' '
		}
		keep := min(len(prefix), shortBaseLen-len(tail))
		copy(n[:], prefix[:keep])
		copy(n[keep:], tail)
		copy(n[shortBaseLen:], ext)
		if n[0] == SlotDeleted {
			n[0] = SlotKanjiE5
		}
		return n
	}
	if !lossy && basisIsName(base, ext, long) {
		if n := cand(base, ""); !used.Has(n) {
			info.Short = n
			return info, nil
		}
	}
	for i := 1; i <= maxSimpleTail; i++ {
		if n := cand(base, tailString(i)); !used.Has(n) {
			info.Short = n
			return info, nil
		}
	}
	hashed := append(base[:min(len(base), 2):min(len(base), 2)], hashHex(long)...)
	for i := 1; i <= maxTail; i++ {
		if n := cand(hashed, tailString(i)); !used.Has(n) {
			info.Short = n
			return info, nil
		}
	}
	return NameInfo{}, &nameError{name: long, msg: "no free short name", err: ErrNoSpace}
}

// exact83 reports whether long is an 8.3 name in printable ASCII without
// spaces, and returns its short form and NT lower-case flags.
func exact83(long string) (ShortName, uint8, bool) {
	base, ext, hasDot := strings.Cut(long, ".")
	if hasDot && (ext == "" || strings.Contains(ext, ".")) {
		return ShortName{}, 0, false
	}
	if len(base) > shortBaseLen || len(ext) > shortExtLen {
		// Too long for 8.3 (or not ASCII, refused below too): most long
		// names end here, without the case checks and the upper-casing.
		return ShortName{}, 0, false
	}
	var nt uint8
	for _, p := range []struct {
		s    string
		flag uint8
	}{{base, NTLowerBase}, {ext, NTLowerExt}} {
		hasLower, hasUpper := false, false
		for i := 0; i < len(p.s); i++ {
			c := p.s[i]
			hasLower = hasLower || ('a' <= c && c <= 'z')
			hasUpper = hasUpper || ('A' <= c && c <= 'Z')
		}
		if hasLower && hasUpper {
			return ShortName{}, 0, false
		}
		if hasLower {
			nt |= p.flag
		}
	}
	short, ok := ParseShortName(strings.ToUpper(long))
	if !ok || !isASCII(long) {
		return ShortName{}, 0, false
	}
	return short, nt, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// basisName builds the basis base (up to 8 bytes) and extension (up to 3)
// of long; lossy reports that a character was replaced by '_'.
func basisName(long string) (base, ext []byte, lossy bool) {
	s := strings.ReplaceAll(long, " ", "")
	s = strings.TrimLeft(s, ".")
	baseStr, extStr := s, ""
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		baseStr, extStr = s[:i], s[i+1:]
	}
	baseStr = strings.ReplaceAll(baseStr, ".", "")
	conv := func(part string, limit int) []byte {
		out := make([]byte, 0, limit)
		for _, r := range part {
			if len(out) == limit {
				break
			}
			c, ok := shortByte(unicode.ToUpper(r))
			if !ok {
				c, lossy = '_', true
			}
			out = append(out, c)
		}
		return out
	}
	base, ext = conv(baseStr, shortBaseLen), conv(extStr, shortExtLen)
	if len(base) == 0 {
		base, lossy = []byte{'_'}, true
	}
	return base, ext, lossy
}

// basisIsName reports whether the basis is long upper-cased, nothing dropped.
func basisIsName(base, ext []byte, long string) bool {
	s := string(base)
	if len(ext) > 0 {
		s += "." + string(ext)
	}
	return isASCII(long) && s == strings.ToUpper(long)
}

// tailString returns "~N".
func tailString(n int) string {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	i--
	b[i] = '~'
	return string(b[i:])
}

// hashHex returns 4 upper-case hex digits of a 16-bit FNV-1a hash of the
// UTF-16 units of long.
func hashHex(long string) []byte {
	h := uint32(2166136261)
	for _, u := range utf16Units(long) {
		h ^= uint32(u)
		h *= 16777619
	}
	h16 := uint16(h>>16) ^ uint16(h)
	const digits = "0123456789ABCDEF"
	return []byte{digits[h16>>12], digits[h16>>8&0xF], digits[h16>>4&0xF], digits[h16&0xF]}
}
