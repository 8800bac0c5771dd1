package fat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func sn(s string) ShortName {
	if len(s) != 11 {
		panic("sn: " + s + " is not 11 bytes")
	}
	return ShortName([]byte(s))
}

func TestShortNameString(t *testing.T) {
	for _, tc := range []struct {
		n            ShortName
		nt           uint8
		str, display string
	}{
		{sn("README  TXT"), NTLowerBase | NTLowerExt, "README.TXT", "readme.txt"},
		{sn("README  TXT"), NTLowerBase, "README.TXT", "readme.TXT"},
		{sn("README  TXT"), NTLowerExt, "README.TXT", "README.txt"},
		{sn("FOO        "), NTLowerBase, "FOO", "foo"},
		{sn("A B     C  "), 0, "A B.C", "A B.C"},
		{DotName, 0, ".", "."},
		{DotDotName, 0, "..", ".."},
		{sn("\x05BC     TXT"), 0, "ÕBC.TXT", "ÕBC.TXT"},
		{sn("\x9aN_C_D~1TXT"), 0, "ÜN_C_D~1.TXT", "ÜN_C_D~1.TXT"},
		{sn("\x8eBC     TXT"), NTLowerBase, "ÄBC.TXT", "äbc.TXT"},
	} {
		if got := tc.n.String(); got != tc.str {
			t.Errorf("%q.String() = %q, want %q", tc.n[:], got, tc.str)
		}
		if got := tc.n.Display(tc.nt); got != tc.display {
			t.Errorf("%q.Display(%#x) = %q, want %q", tc.n[:], tc.nt, got, tc.display)
		}
	}
	if got := sn("MY VOLUME  ").Label(); got != "MY VOLUME" {
		t.Errorf("Label = %q", got)
	}
}

func TestParseShortName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"README.TXT", "README  TXT", true},
		{"FOO", "FOO        ", true},
		{"12345678.123", "12345678123", true},
		{"A~1.B", "A~1     B  ", true},
		{"ÄBC.TXT", "\x8eBC     TXT", true},
		{"ÕBC", "\x05BC        ", true},
		{"õBC", "", false}, // lower case
		{"ΣBC", "", false}, // not in code page 850
		{"readme.txt", "", false},
		{"README.", "", false},
		{".TXT", "", false},
		{".", "", false},
		{"..", "", false},
		{"", "", false},
		{"123456789", "", false},
		{"A.1234", "", false},
		{"A.B.C", "", false},
		{"A B", "", false},
		{"A+B", "", false},
		{"A[B]", "", false},
		{"日本", "", false},
		{"\x01", "", false},
	} {
		got, ok := ParseShortName(tc.in)
		if ok != tc.ok || (ok && got != sn(tc.want)) {
			t.Errorf("ParseShortName(%q) = %q, %v; want %q, %v", tc.in, got[:], ok, tc.want, tc.ok)
		}
	}
}

func TestMakeShortName(t *testing.T) {
	for _, tc := range []struct {
		long     string
		short    string
		nt       uint8
		needLong bool
	}{
		{"readme.txt", "README  TXT", NTLowerBase | NTLowerExt, false},
		{"README.TXT", "README  TXT", 0, false},
		{"readme.TXT", "README  TXT", NTLowerBase, false},
		{"README.txt", "README  TXT", NTLowerExt, false},
		{"abc", "ABC        ", NTLowerBase, false},
		{"A_1-2~3.$$$", "A_1-2~3 $$$", 0, false},
		{"Readme.txt", "README  TXT", 0, true},
		{"README.Txt", "README  TXT", 0, true},
		{"a.b.c", "AB~1    C  ", 0, true},
		{".bashrc", "BASHRC~1   ", 0, true},
		{"..a.b", "A~1     B  ", 0, true},
		{"long file name.html", "LONGFI~1HTM", 0, true},
		{"x+y=z", "X_Y_Z~1    ", 0, true},
		{"[a];b,c", "_A__B_~1   ", 0, true},
		{"my file.txt", "MYFILE~1TXT", 0, true},
		{"FOO BAR.TXT", "FOOBAR~1TXT", 0, true},
		{" lead", "LEAD~1     ", 0, true},
		{"a.t x t", "A~1     TXT", 0, true},
		{"Ünïcødé.txt", "\x9aN\xd8C\x9dD~1TXT", 0, true},
		{"ÄÖ.TXT", "\x8e\x99~1    TXT", 0, true},
		{"日本語.txt", "___~1   TXT", 0, true},
		{"12345678.1234", "123456~1123", 0, true},
		{"123456789", "123456~1   ", 0, true},
		{"ABCDEFGH.TX", "ABCDEFGHTX ", 0, false},
		{"😀", "_~1        ", 0, true},
	} {
		used := NewShortNameSet()
		got, err := MakeShortName(tc.long, used)
		if err != nil {
			t.Errorf("MakeShortName(%q): %v", tc.long, err)
			continue
		}
		want := NameInfo{Short: sn(tc.short), NTRes: tc.nt, NeedLong: tc.needLong}
		if got != want {
			t.Errorf("MakeShortName(%q) = {%q %#x %v}, want {%q %#x %v}", tc.long,
				got.Short[:], got.NTRes, got.NeedLong, tc.short, tc.nt, tc.needLong)
		}
		if used.Len() != 0 {
			t.Errorf("MakeShortName(%q) changed the set", tc.long)
		}
	}
}

func TestMakeShortNameCollisions(t *testing.T) {
	used := NewShortNameSet()
	used.Add(sn("README  TXT"))
	got, err := MakeShortName("README.TXT", used)
	if err != nil || got != (NameInfo{Short: sn("README~1TXT"), NeedLong: true}) {
		t.Errorf("taken 8.3 name: %+v, %v", got, err)
	}
	got, _ = MakeShortName("Readme.txt", used)
	if got.Short != sn("README~1TXT") || !got.NeedLong {
		t.Errorf("taken basis: %+v", got)
	}
	// A foreign lower-case short name on disk still blocks.
	used = NewShortNameSet()
	used.Add(sn("readme  txt"))
	if got, _ = MakeShortName("readme.txt", used); got.Short != sn("README~1TXT") || !got.NeedLong {
		t.Errorf("lower-case on-disk name: %+v", got)
	}

	used = NewShortNameSet()
	var shorts []string
	for i := 0; i < 8; i++ {
		info, err := MakeShortName(fmt.Sprintf("long file name %d.html", i), used)
		if err != nil {
			t.Fatal(err)
		}
		if used.Has(info.Short) {
			t.Fatalf("%q returned a used name", info.Short[:])
		}
		used.Add(info.Short)
		shorts = append(shorts, string(info.Short[:]))
	}
	for i := 0; i < 4; i++ {
		if want := fmt.Sprintf("LONGFI~%dHTM", i+1); shorts[i] != want {
			t.Errorf("name %d: %q, want %q", i, shorts[i], want)
		}
	}
	for i := 4; i < 8; i++ {
		s := shorts[i]
		if !strings.HasPrefix(s, "LO") || s[6:] != "~1HTM" || strings.Trim(s[2:6], "0123456789ABCDEF") != "" {
			t.Errorf("name %d: %q, want LOxxxx~1HTM", i, s)
		}
	}
	// Same inputs, same output.
	a, _ := MakeShortName("long file name 99.html", used)
	b, _ := MakeShortName("long file name 99.html", used)
	if a != b {
		t.Errorf("not deterministic: %q %q", a.Short[:], b.Short[:])
	}
	// Taking the hashed name moves on to ~2, then the tail grows and the
	// prefix shrinks.
	used.Add(a.Short)
	c, _ := MakeShortName("long file name 99.html", used)
	if want := string(a.Short[:6]) + "~2HTM"; string(c.Short[:]) != want {
		t.Errorf("after taking %q got %q, want %q", a.Short[:], c.Short[:], want)
	}
	for i := 2; i <= 10; i++ {
		tail := "~" + strconv.Itoa(i)
		used.Add(sn(string(a.Short[:8-len(tail)]) + tail + "HTM"))
	}
	d, _ := MakeShortName("long file name 99.html", used)
	if want := string(a.Short[:5]) + "~11HTM"; string(d.Short[:]) != want {
		t.Errorf("got %q, want %q", d.Short[:], want)
	}
}

func TestMakeShortNameErrors(t *testing.T) {
	if _, err := MakeShortName("a?b", NewShortNameSet()); err == nil {
		t.Error("invalid long name accepted")
	}
	if testing.Short() {
		t.Skip("fills a set with a million names")
	}
	// Every candidate taken: the set must hold ~1..~4 and all hashed tails.
	long := "x.y.z"
	used := NewShortNameSet()
	info, _ := MakeShortName(long, used)
	base := strings.TrimRight(string(info.Short[:8]), " ")
	for i := 1; i <= 4; i++ {
		used.Add(sn(fmt.Sprintf("%-8sZ  ", "XY~"+strconv.Itoa(i))))
	}
	h, _ := MakeShortName(long, used)
	prefix := string(h.Short[:6])
	for i := 1; i <= maxTail; i++ {
		tail := "~" + strconv.Itoa(i)
		used.Add(sn(fmt.Sprintf("%-8sZ  ", prefix[:min(6, 8-len(tail))]+tail)))
	}
	if _, err := MakeShortName(long, used); !errors.Is(err, ErrNoSpace) {
		t.Errorf("all names taken (basis %s): %v", base, err)
	}
}

// cameraNames returns n names sharing a 42-character prefix.
func cameraNames(n int) []string {
	prefix := "Holiday 2024 - Mountains - Camera A - DSC_" // 42 characters
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%05d.JPG", prefix, i)
	}
	return names
}

func TestMakeShortNameManySharedPrefix(t *testing.T) {
	names := cameraNames(12000)
	if len(strings.TrimSuffix(names[0], "00000.JPG")) != 42 {
		t.Fatal("prefix is not 42 characters")
	}
	used := NewShortNameSet()
	maxTailSeen := 0
	for _, n := range names {
		info, err := MakeShortName(n, used)
		if err != nil {
			t.Fatal(err)
		}
		if used.Has(info.Short) || !info.NeedLong {
			t.Fatalf("%q -> %q (NeedLong %v) is taken or has no LFN", n, info.Short[:], info.NeedLong)
		}
		used.Add(info.Short)
		tilde := strings.LastIndexByte(string(info.Short[:8]), '~')
		k, err := strconv.Atoi(strings.TrimRight(string(info.Short[tilde+1:8]), " "))
		if tilde < 0 || err != nil {
			t.Fatalf("%q has no numeric tail", info.Short[:])
		}
		maxTailSeen = max(maxTailSeen, k)
	}
	if used.Len() != len(names) {
		t.Fatalf("%d distinct short names for %d names", used.Len(), len(names))
	}
	// The cost per name is the number of tails tried: it must stay small and
	// not grow with the directory, or 12,000 names take quadratic time.
	if maxTailSeen > 8 {
		t.Errorf("needed tail ~%d: hashed names collide too often", maxTailSeen)
	}
}

func BenchmarkMakeShortName12000(b *testing.B) {
	names := cameraNames(12000)
	for b.Loop() {
		used := NewShortNameSet()
		for _, n := range names {
			info, err := MakeShortName(n, used)
			if err != nil {
				b.Fatal(err)
			}
			used.Add(info.Short)
		}
	}
}

func TestShortNameSet(t *testing.T) {
	s := NewShortNameSet()
	a, b := sn("A       TXT"), sn("B       TXT")
	s.Add(a)
	s.Add(a)
	if !s.Has(a) || s.Has(b) || s.Len() != 1 {
		t.Fatal("Add/Has/Len")
	}
	if !s.Has(sn("a       txt")) {
		t.Error("ASCII case not folded")
	}
	s.Remove(sn("a       TXT"))
	if s.Has(a) || s.Len() != 0 {
		t.Error("Remove")
	}
}

func TestFoldName(t *testing.T) {
	for _, tc := range [][2]string{
		{"readme.txt", "README.TXT"},
		{"Ünïcødé", "ÜNÏCØDÉ"},
		{"straße", "STRAßE"},
		{"😀a", "😀A"},
	} {
		if got := FoldName(tc[0]); got != tc[1] {
			t.Errorf("FoldName(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
	if FoldName("Readme.TXT") != FoldName("README.txt") {
		t.Error("case-insensitive names fold differently")
	}
}

// FuzzMakeShortName checks that any valid long name gets a free, encodable
// short name and that the record parses back to the same name.
func FuzzMakeShortName(f *testing.F) {
	for _, s := range []string{"readme.txt", "Readme.txt", "a.b.c", ".bashrc", "x+y=z", "Ünïcødé.txt", "😀", "ab.TXT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, long string) {
		used := NewShortNameSet()
		used.Add(sn("README  TXT"))
		used.Add(sn("AB~1    C  "))
		info, err := MakeShortName(long, used)
		if ValidateLongName(long) != nil {
			if err == nil {
				t.Fatalf("invalid name %q accepted", long)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", long, err)
		}
		if used.Has(info.Short) || info.Short[0] == ' ' || info.Short[0] == SlotEnd || info.Short[0] == SlotDeleted {
			t.Fatalf("%q: bad short name %q", long, info.Short[:])
		}
		rec, err := EncodeRecord(long, info, DirEntry{Attr: AttrArchive})
		if err != nil {
			t.Fatalf("%q: %v", long, err)
		}
		recs, probs := ParseDir(rec, FAT32)
		if len(recs) != 1 || len(probs) != 0 || recs[0].Name != long {
			t.Fatalf("%q (%+v) parsed back as %+v %+v", long, info, recs, probs)
		}
	})
}

// TestCodePage437 holds names to code page 437 (as Linux mounts with by
// default) where it differs from the default 850.
func TestCodePage437(t *testing.T) {
	if err := SetCodePage(437); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { SetCodePage(DefaultCodePage) })
	if got := sn("\x9dRE     TXT").String(); got != "¥RE.TXT" {
		t.Errorf("0x9D in 437 = %q, want ¥RE.TXT", got)
	}
	if got := sn("\x05BC     TXT").String(); got != "σBC.TXT" {
		t.Errorf("0x05 (0xE5) in 437 = %q, want σBC.TXT", got)
	}
	if got, ok := ParseShortName("ΣBC"); !ok || got != sn("\xe4BC        ") {
		t.Errorf("ParseShortName(ΣBC) in 437 = %q, %v", got[:], ok)
	}
	if got, err := MakeShortName("Ünïcødé.txt", NewShortNameSet()); err != nil || got.Short != sn("\x9aN_C_D~1TXT") {
		t.Errorf("MakeShortName in 437 = %q, %v", got.Short[:], err)
	}
	if err := SetCodePage(737); err == nil || !strings.Contains(err.Error(), "437, 850, 852") {
		t.Errorf("SetCodePage(737) = %v", err)
	}
	if CodePage() != 437 {
		t.Errorf("a refused SetCodePage changed the code page to %d", CodePage())
	}
}

// TestCodePage850 reads the name mtools writes for ØRE.TXT: 0x9D is Ø in
// code page 850 (mtools' and mkfs.fat's default), ¥ in 437.
func TestCodePage850(t *testing.T) {
	if CodePage() != 850 {
		t.Fatalf("default code page %d, want 850", CodePage())
	}
	if got := sn("\x9dRE     TXT").String(); got != "ØRE.TXT" {
		t.Errorf("0x9D = %q, want ØRE.TXT", got)
	}
	if got, ok := ParseShortName("ØRE.TXT"); !ok || got != sn("\x9dRE     TXT") {
		t.Errorf("ParseShortName(ØRE.TXT) = %q, %v", got[:], ok)
	}
}
