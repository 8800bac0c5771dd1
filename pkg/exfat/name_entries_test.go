package exfat

import (
	"strings"
	"testing"
)

// NameEntries counts a File, a Stream Extension and one File Name entry
// per 15 UTF-16 units.
func TestNameEntries(t *testing.T) {
	for _, c := range []struct {
		name string
		want int
	}{
		{"a", 3},
		{strings.Repeat("x", 15), 3},
		{strings.Repeat("x", 16), 4},
		{strings.Repeat("😀", 8), 4}, // 16 units
		{strings.Repeat("x", 255), 2 + 17},
		{"a/b", 2}, // refused: Create names the fault
	} {
		if got := NameEntries(c.name); got != c.want {
			t.Errorf("NameEntries(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}
