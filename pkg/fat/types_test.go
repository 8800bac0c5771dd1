package fat

import (
	"errors"
	"testing"
)

func TestTypeForClusters(t *testing.T) {
	for _, tc := range []struct {
		n    uint32
		want Type
	}{
		{0, FAT12}, {1, FAT12}, {4084, FAT12}, {4085, FAT16}, {4086, FAT16},
		{65524, FAT16}, {65525, FAT32}, {0x0FFFFFF5, FAT32}, {0xFFFFFFFF, FAT32},
	} {
		if got := TypeForClusters(tc.n); got != tc.want {
			t.Errorf("TypeForClusters(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
	if FAT12.String() != "FAT12" || FAT32.String() != "FAT32" || Type(7).String() != "FAT(7)" {
		t.Error("Type.String")
	}
}

func TestFormatError(t *testing.T) {
	e := &FormatError{Structure: "boot sector", Field: "bytes per sector", Offset: 0x0b, Value: 300, Msg: "not a power of two", Err: ErrNotFAT}
	if got, want := e.Error(), "fat: boot sector: bytes per sector 300 at 0x0b: not a power of two"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(e, ErrNotFAT) || errors.Is(e, ErrCorrupt) {
		t.Error("errors.Is")
	}
	e = &FormatError{Structure: "FAT", Field: "cluster 5", Offset: -1, Msg: "loops", Err: ErrCorrupt}
	if got, want := e.Error(), "fat: FAT: cluster 5: loops"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
