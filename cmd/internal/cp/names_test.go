package cp

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

func TestVolumeName(t *testing.T) {
	long := strings.Repeat("x", 256)
	cases := []struct {
		in                   string
		name, refusal, fixed string
		note                 bool
	}{
		{in: "photo.jpg", name: "photo.jpg"},
		{in: "trail.", name: "trail", note: true},
		{in: "trail. . ", name: "trail", note: true},
		{in: "...", name: "...", refusal: "nothing but dots and spaces"},
		{in: "a:b", name: "a:b", refusal: "holds ':'", fixed: "a_b"},
		{in: "q?*.txt", name: "q?*.txt", refusal: "holds '?'", fixed: "q__.txt"},
		{in: "new\nline", name: "new\nline", refusal: `holds '\n'`, fixed: "new_line"},
		{in: "bad\xffutf8", name: "bad\xffutf8", refusal: "not valid UTF-8", fixed: "bad_utf8"},
		{in: long, name: long, refusal: "256 UTF-16 units"},
		{in: "CON", name: "CON", refusal: "DOS device name", fixed: "CON"},
		{in: "con.txt", name: "con.txt", refusal: "DOS device name", fixed: "con.txt"},
		{in: "Lpt9.tar.gz", name: "Lpt9.tar.gz", refusal: "DOS device name", fixed: "Lpt9.tar.gz"},
		{in: "nul.", name: "nul", note: true, refusal: "DOS device name", fixed: "nul"},
		{in: "COM0", name: "COM0"},
		{in: "CONSOLE", name: "CONSOLE"},
		{in: "[br]67.bin", name: "[br]67.bin"},
	}
	for _, tc := range cases {
		got := volumeName(tc.in)
		if got.name != tc.name || (got.note != "") != tc.note || !strings.Contains(got.refusal, tc.refusal) ||
			(tc.refusal == "") != (got.refusal == "") || got.fixed != tc.fixed {
			t.Errorf("volumeName(%q) = %+v, want name %q, note %v, refusal ~%q, fixed %q", tc.in, got, tc.name, tc.note, tc.refusal, tc.fixed)
		}
	}
}

func TestIsDeviceName(t *testing.T) {
	for name, want := range map[string]bool{
		"CON": true, "con": true, "Con.txt": true, "con .txt": true, "PRN": true, "AUX.c": true, "NUL": true,
		"COM1": true, "com9.log": true, "LPT1": true, "lpt5.x.y": true,
		"COM0": false, "COM10": false, "LPT": false, "CONS": false, "xCON": false, "": false, ".con": false,
	} {
		if got := isDeviceName(name); got != want {
			t.Errorf("isDeviceName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestNumbered(t *testing.T) {
	long := strings.Repeat("é", 254) + ".txt"
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"photo.jpg", 1, "photo-1.jpg"},
		{"README", 2, "README-2"},
		{".bashrc", 1, ".bashrc-1"},
		{"a.tar.gz", 3, "a.tar-3.gz"},
		{"CON", 1, "CON-1"},
	}
	for _, tc := range cases {
		if got := numbered(tc.in, tc.n); got != tc.want {
			t.Errorf("numbered(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	got := numbered(long, 12)
	if n := len(utf16.Encode([]rune(got))); n != 255 || !strings.HasSuffix(got, "-12.txt") {
		t.Errorf("numbered(254 é + .txt, 12) = %d units, %q", n, got[len(got)-12:])
	}
}

func TestParsePolicy(t *testing.T) {
	cases := []struct {
		in   []string
		want Policy
		err  bool
	}{
		{nil, Policy{}, false},
		{[]string{"o"}, Policy{Primary: Overwrite}, false},
		{[]string{"sA"}, Policy{Primary: Skip, Secondary: Autorename}, false},
		{[]string{"s", "o"}, Policy{Primary: Overwrite}, false},
		{[]string{"m", "R"}, Policy{Primary: Ask, Secondary: Rename}, false},
		{[]string{"x"}, Policy{}, true},
		{[]string{"oz"}, Policy{}, true},
	}
	for _, tc := range cases {
		got, err := ParsePolicy(tc.in...)
		if (err != nil) != tc.err || (err == nil && got != tc.want) {
			t.Errorf("ParsePolicy(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Text mode converts in chunks: a CR at the end of one chunk and its LF
// at the start of the next are one line end; in then out gives the bytes
// back.
func TestTextMode(t *testing.T) {
	cases := []struct{ unix, dos string }{
		{"", ""},
		{"a\nb\n", "a\r\nb\r\n"},
		{"no end", "no end"},
		{"cr\ralone\n", "cr\ralone\r\n"},
		{"crlf already\r\n", "crlf already\r\r\n"},
		{"\n\n\r", "\r\n\r\n\r"},
	}
	for _, tc := range cases {
		if got := string(toDOS(nil, []byte(tc.unix))); got != tc.dos {
			t.Errorf("toDOS(%q) = %q, want %q", tc.unix, got, tc.dos)
		}
		for split := 0; split <= len(tc.dos); split++ {
			var f fromDOS
			out := f.convert(nil, []byte(tc.dos[:split]))
			out = f.convert(out, []byte(tc.dos[split:]))
			out = f.end(out)
			if diff := cmp.Diff(tc.unix, string(out)); diff != "" {
				t.Errorf("fromDOS(%q split at %d) (-want +got):\n%s", tc.dos, split, diff)
			}
		}
	}
}
