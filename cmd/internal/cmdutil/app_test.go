package cmdutil

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func testFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "long", Aliases: []string{"l"}},
		&cli.BoolFlag{Name: "all", Aliases: []string{"a"}},
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"/"}},
		&cli.IntFlag{Name: "fat", Aliases: []string{"F"}},
		&cli.StringFlag{Name: "image", Aliases: []string{"i"}},
		&cli.GenericFlag{Name: "mbr", Value: &optional{}},
	}
}

// optional is a flag value that may be left out, as fmkfs --mbr's.
type optional struct{ v string }

func (o *optional) Set(s string) error { o.v = s; return nil }
func (o *optional) String() string     { return o.v }
func (o *optional) IsBoolFlag() bool   { return true }

// Getopt reads command lines as GNU getopt does: grouped one-letter flags,
// a value attached to its letter, flags after operands, "--" ending them.
func TestGetopt(t *testing.T) {
	for in, want := range map[string]string{
		"fls -la ::/":          "fls -l -a ::/",
		"fls ::/ -l":           "fls -l ::/",
		"fmkfs -F32 x.img":     "fmkfs -F 32 x.img",
		"fmkfs -aF 16 x.img":   "fmkfs -a -F 16 x.img",
		"fls -ai x.img ::/d":   "fls -a -i x.img ::/d",
		"fls -i x.img ::/d -/": "fls -i x.img -/ ::/d",
		"fls --fat=12 a b":     "fls --fat=12 a b",
		"fls a -- -l b":        "fls -- a -l b",
		"fmkfs --mbr x.img":    "fmkfs --mbr x.img",
		"fmkfs x.img --mbr=n":  "fmkfs --mbr=n x.img",
		"fls -lz":              "fls -lz",
		"fls --image -l ::/":   "fls --image -l ::/",
		"fcp - ::/a":           "fcp - ::/a",
	} {
		got, err := Getopt(testFlags(), strings.Fields(in))
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("Getopt(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"fmkfs x.img --fat", "fls ::/ -i", "fls -li"} {
		if _, err := Getopt(testFlags(), strings.Fields(in)); err == nil || !strings.Contains(err.Error(), "needs an argument") {
			t.Errorf("Getopt(%q): %v", in, err)
		}
	}
}

// Errors echo flags as typed.
func TestAsTyped(t *testing.T) {
	args := []string{"fmkfs", "--invariantx", "-Q", "--sync=bad"}
	for in, want := range map[string]string{
		"flag provided but not defined: -invariantx": "flag provided but not defined: --invariantx",
		"flag provided but not defined: -Q":          "flag provided but not defined: -Q",
		"invalid value \"bad\" for flag -sync: x":    "invalid value \"bad\" for flag --sync: x",
		"flag provided but not defined: -zz":         "flag provided but not defined: --zz",
	} {
		if got := AsTyped(in, args); got != want {
			t.Errorf("AsTyped(%q) = %q, want %q", in, got, want)
		}
	}
}

// Help shows short names first, one placeholder, one honest default.
func TestFlagString(t *testing.T) {
	for _, tc := range []struct {
		f    cli.Flag
		want string
	}{
		{&cli.IntFlag{Name: "fat", Aliases: []string{"F"}, Usage: "FAT `TYPE` (default: chosen from the size)"}, "-F, --fat TYPE\tFAT TYPE (default: chosen from the size)"},
		{&cli.BoolFlag{Name: "preserve", Value: true, Usage: "keep times (the default)"}, "--preserve\tkeep times (the default)"},
		{&cli.StringFlag{Name: "sync", Value: "close", Usage: "flush `POLICY`"}, "--sync POLICY\tflush POLICY (default: close)"},
		{&cli.IntFlag{Name: "partition", Usage: "use partition `N`"}, "--partition N\tuse partition N"},
		{&cli.StringFlag{Name: "label"}, "--label LABEL\t"},
		{&cli.GenericFlag{Name: "mbr", Value: &optional{}, Usage: "fake `MODE`"}, "--mbr[=MODE]\tfake MODE"},
	} {
		if got := flagString(tc.f); got != tc.want {
			t.Errorf("flagString = %q, want %q", got, tc.want)
		}
	}
}
