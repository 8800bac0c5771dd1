package fat

import (
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

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
