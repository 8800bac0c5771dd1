package sortorder

import (
	"slices"
	"testing"
)

// The orders below are fatsort 1.6.4's, run under LC_ALL=C.UTF-8 on a
// FAT16 image mcopy filled (short names as fatsort spells them).
func TestCompareMatchesFatsort(t *testing.T) {
	names := []string{"B", "A", "A10", "A9", "A2X", "A02", "a 1", "A.B  ", "A_B", "AB", "\x90", "E", "Z", "~X", "10", "9",
		"X1Y", "X01Y", "X1", "X", "README", "README.TXT", "Zebra", "APPLE", "\x84PFEL", "A1B2", "A1B10", "A1B3"}
	dirs := []string{"DIRB", "DIRA", "Dir10", "DIR9"}
	cases := []struct {
		name string
		o    Options
		want []string
	}{
		{"bytes", Options{}, []string{"DIR9", "DIRA", "DIRB", "Dir10", "10", "9", "A", "A.B  ", "A02", "A10", "A1B10", "A1B2", "A1B3", "A2X", "A9", "AB", "APPLE", "A_B", "B", "E",
			"README", "README.TXT", "X", "X01Y", "X1", "X1Y", "Z", "Zebra", "a 1", "~X", "\x84PFEL", "\x90"}},
		{"natural", Options{Natural: true}, []string{"DIR9", "DIRA", "DIRB", "Dir10", "\x84PFEL", "\x90", "9", "10", "A", "A.B  ", "A1B2", "A1B3", "A1B10", "A02", "AB", "APPLE", "A2X", "A9", "A10", "A_B", "B", "E",
			"README", "README.TXT", "X", "X1", "X1Y", "X01Y", "Z", "Zebra", "a 1", "~X"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var keys []Key
			for _, n := range names {
				keys = append(keys, Key{Name: n})
			}
			for _, n := range dirs {
				keys = append(keys, Key{Name: n, Dir: true})
			}
			Sort(c.o, keys, func(k *Key) Key { return *k })
			var got []string
			for _, k := range keys {
				got = append(got, k.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestCompareRules(t *testing.T) {
	cases := []struct {
		o    Options
		a, b Key
		want int
	}{
		{Options{}, Key{"b", true}, Key{"a", false}, -1},
		{Options{Order: OrderFilesFirst}, Key{"b", true}, Key{"a", false}, 1},
		{Options{Order: OrderMixed}, Key{"b", true}, Key{"a", false}, 1},
		{Options{Reverse: true}, Key{"b", true}, Key{"a", false}, -1}, // -r keeps directories first
		{Options{Reverse: true}, Key{"b", false}, Key{"a", false}, -1},
		{Options{}, Key{"Zebra", false}, Key{"apple", false}, -1},
		{Options{IgnoreCase: true}, Key{"Zebra", false}, Key{"apple", false}, 1},
		{Options{IgnoreCase: true}, Key{"ABC", false}, Key{"abc", false}, 0},
		{Options{}, Key{"same", false}, Key{"same", false}, 0},
		{Options{Natural: true}, Key{"track2", false}, Key{"track10", false}, -1},
		{Options{Natural: true}, Key{"a01", false}, Key{"a1", false}, 0},
		{Options{Natural: true}, Key{"a", false}, Key{"a1", false}, -1},
		{Options{Natural: true}, Key{"4294967297", false}, Key{"1", false}, 0}, // 32-bit wrap, as fatsort
		{Options{Natural: true}, Key{"x", false}, Key{"", false}, 1},
	}
	for _, c := range cases {
		if got := c.o.Compare(c.a, c.b); sign(got) != c.want {
			t.Errorf("%+v: Compare(%q, %q) = %d, want %d", c.o, c.a.Name, c.b.Name, got, c.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestShortKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{"README  TXT", "README.TXT"},
		{"A       B  ", "A.B  "},
		{"FOO        ", "FOO"},
		{"A B     C  ", "A.C  "},
		{".          ", "."},
	}
	for _, c := range cases {
		var s [11]byte
		copy(s[:], c.in)
		if got := ShortKey(s); got != c.want {
			t.Errorf("ShortKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSelection(t *testing.T) {
	cases := []struct {
		s             Selection
		p             string
		sort, descend bool
	}{
		{Selection{}, "a/b", true, true},
		{Selection{Only: []string{"a/b"}}, ".", false, true},
		{Selection{Only: []string{"a/b"}}, "a", false, true},
		{Selection{Only: []string{"a/b"}}, "A/B", true, false},
		{Selection{Only: []string{"a/b"}}, "a/b/c", false, false},
		{Selection{Only: []string{"a/b"}}, "ab", false, false},
		{Selection{Tree: []string{"a"}}, "a/b/c", true, true},
		{Selection{Tree: []string{"a"}}, ".", false, true},
		{Selection{Tree: []string{"a"}}, "b", false, false},
		{Selection{Tree: []string{"."}}, "b", true, true},
	}
	for _, c := range cases {
		s, d := c.s.Match(c.p)
		if s != c.sort || d != c.descend {
			t.Errorf("%+v.Match(%q) = %v, %v; want %v, %v", c.s, c.p, s, d, c.sort, c.descend)
		}
	}
}
