package fat

import (
	"strings"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

// NameSlots counts what the writer stores: one short entry for a plain
// 8.3 name (any case the short entry's case bits keep), and a long name's
// slots, one per 13 UTF-16 units, otherwise.
func TestNameSlots(t *testing.T) {
	for _, c := range []struct {
		name string
		want int
	}{
		{"A.TXT", 1},
		{"readme.txt", 1},    // lower case kept by the case bits
		{"ReadMe.txt", 2},    // mixed case needs the long name
		{"a b.txt", 2},       // a space is not 8.3
		{"abcdefghi.txt", 2}, // 13 units: one long slot
		{"abcdefghijklm", 2},
		{"abcdefghijklmn", 3},
		{"été.txt", 2},
		{"😀.txt", 2}, // a surrogate pair is two units
		{strings.Repeat("x", 255), 1 + 20},
		{"a/b", 1}, // refused: Create names the fault
	} {
		if got := NameSlots(c.name); got != c.want {
			t.Errorf("NameSlots(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}

// DirRoom reads what a directory holds: the fixed FAT16 root's size and
// its label, a subdirectory's "." and "..", each member's slots.
func TestDirRoom(t *testing.T) {
	dev := fio.NewMemDevice(32<<20, 512)
	stamp := time.Unix(0, 0)
	if _, _, err := Format(dev, FormatParams{Size: 32 << 20, Type: FAT16, Label: "VOL"}, stamp); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Mkdir("sub", stamp); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"sub/A.TXT", "sub/Long Name.txt"} { // 13 units: 1 + 1 slots
		w, err := v.Create(n, 0, stamp)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	root := v.DirRoom(".")
	if root.Full == "" || root.Alloc != v.Layout().RootDirSize/DirEntrySize || root.Used != 1+1 {
		t.Errorf("root: %+v, want fixed, %d allocated, 2 used (label, sub)", root, v.Layout().RootDirSize/DirEntrySize)
	}
	sub := v.DirRoom("sub")
	if want := (DirSlots{Used: 2 + 1 + 2, Alloc: v.Layout().ClusterSize / DirEntrySize}); sub != want {
		t.Errorf("sub: %+v, want %+v", sub, want)
	}
}
