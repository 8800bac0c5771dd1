package names

import (
	"errors"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	long := strings.Repeat("x", 256)
	for _, tc := range []struct {
		fs                 FS
		in, clean, refusal string
		note               bool
	}{
		{fs: FAT, in: "photo.jpg", clean: "photo.jpg"},
		{fs: FAT, in: "x.", clean: "x", note: true},
		{fs: ExFAT, in: "y ", clean: "y", note: true},
		{fs: FAT, in: "trail. . ", clean: "trail", note: true},
		{fs: FAT, in: " lead", clean: " lead"},
		{fs: FAT, in: ".bashrc", clean: ".bashrc"},
		{fs: FAT, in: "", refusal: "is empty"},
		{fs: FAT, in: "...", clean: "...", refusal: "nothing but dots and spaces, which FAT cannot store"},
		{fs: ExFAT, in: "..", clean: "..", refusal: "which exFAT cannot store"},
		{fs: FAT, in: "a*b", clean: "a*b", refusal: `holds '*', which FAT names cannot hold`},
		{fs: ExFAT, in: "a*b", clean: "a*b", refusal: `holds '*', which exFAT names cannot hold`},
		{fs: ExFAT, in: "q?.", clean: "q?", note: true, refusal: `holds '?'`},
		{fs: FAT, in: "new\nline", clean: "new\nline", refusal: `holds '\n'`},
		{fs: ExFAT, in: "nul\x00", clean: "nul\x00", refusal: `holds '\x00'`},
		{fs: FAT, in: "del\x7f", clean: "del\x7f", refusal: `holds '\x7f'`},
		{fs: ExFAT, in: "del\x7f", clean: "del\x7f"},
		{fs: FAT, in: "bad\xffutf8", clean: "bad\xffutf8", refusal: "not valid UTF-8"},
		{fs: ExFAT, in: long, clean: long, refusal: "256 UTF-16 units long, more than exFAT's 255"},
		{fs: FAT, in: strings.Repeat("x", 255), clean: strings.Repeat("x", 255)},
		{fs: FAT, in: "CON", clean: "CON", refusal: "DOS device name"},
		{fs: ExFAT, in: "con.txt", clean: "con.txt", refusal: "DOS device name"},
		{fs: FAT, in: "nul.", clean: "nul", note: true, refusal: "DOS device name"},
		{fs: ExFAT, in: "Lpt9.tar.gz", clean: "Lpt9.tar.gz", refusal: "DOS device name"},
		{fs: FAT, in: "COM0", clean: "COM0"},
		{fs: FAT, in: "CONSOLE", clean: "CONSOLE"},
		{fs: FAT, in: "a+b,c;d=e[f]", clean: "a+b,c;d=e[f]"},
	} {
		clean, note, err := tc.fs.Clean(tc.in)
		var got string
		if err != nil {
			got = err.Error()
		}
		if clean != tc.clean || (note != "") != tc.note || (tc.refusal == "") != (err == nil) || !strings.Contains(got, tc.refusal) {
			t.Errorf("%s.Clean(%q) = %q, %q, %v; want %q, note %v, refusal ~%q", tc.fs.Name(), tc.in, clean, note, err, tc.clean, tc.note, tc.refusal)
		}
		// The library's rule: the same refusals, and trailing dots and
		// spaces refused rather than dropped.
		cerr := tc.fs.Check(tc.in)
		switch {
		case err != nil && (cerr == nil || cerr.Error() != err.Error()):
			t.Errorf("%s.Check(%q) = %v, want %v", tc.fs.Name(), tc.in, cerr, err)
		case err == nil && tc.note && (cerr == nil || !strings.Contains(cerr.Error(), "drop the trailing dots and spaces")):
			t.Errorf("%s.Check(%q) = %v, want a refusal of the trailing characters", tc.fs.Name(), tc.in, cerr)
		case err == nil && !tc.note && cerr != nil:
			t.Errorf("%s.Check(%q) = %v", tc.fs.Name(), tc.in, cerr)
		}
	}
	sentinel := errors.New("sentinel")
	err := FAT.Check("a:b")
	var ne *Error
	if !errors.As(err, &ne) || ne.Name != "a:b" {
		t.Fatalf("not an *Error naming the name: %v", err)
	}
	ne.Err = sentinel
	if !errors.Is(err, sentinel) {
		t.Error("Err is not unwrapped")
	}
}

func TestIsDevice(t *testing.T) {
	for name, want := range map[string]bool{
		"CON": true, "con": true, "Con.txt": true, "con .txt": true, "PRN": true, "AUX.c": true, "NUL": true,
		"COM1": true, "com9.log": true, "LPT1": true, "lpt5.x.y": true,
		"COM0": false, "COM10": false, "LPT": false, "CONS": false, "xCON": false, "": false, ".con": false,
		"\u017fon": false, "n\u0131l": false, "cOn  ": true, "COM\u00b9": false, "C\u00d3N": false,
	} {
		if got := IsDevice(name); got != want {
			t.Errorf("IsDevice(%q) = %v, want %v", name, got, want)
		}
	}
	// Asked of every name a copy writes: it makes no copy of the name.
	if n := testing.AllocsPerRun(10, func() { IsDevice("a file named 042.txt"); IsDevice("con.txt") }); n != 0 {
		t.Errorf("IsDevice: %.0f allocations, want none", n)
	}
}
