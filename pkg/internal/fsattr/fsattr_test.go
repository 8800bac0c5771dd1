package fsattr

import (
	"errors"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		a, known Attr
		want     string
	}{
		{0, 0xFF, ""}, {Archive, 0xFF, "A"}, {Directory, 0xFF, "D"},
		{ReadOnly | Hidden | System, 0xFF, "RHS"},
		{VolumeID, 0xFF, "V"}, {VolumeID, 0xFF &^ VolumeID, ""},
		{ReadOnly | Archive | 0x80, 0xFF, "RA"},
	} {
		if got := String(c.a, c.known); got != c.want {
			t.Errorf("String(%#02x, %#02x) = %q, want %q", c.a, c.known, got, c.want)
		}
	}
}

func TestCheckApply(t *testing.T) {
	errAttr := errors.New("only some bits")
	if err := Check(Changeable, Changeable, errAttr); err != nil {
		t.Errorf("the changeable bits: %v", err)
	}
	for _, bad := range []Attr{Directory, VolumeID, 0x80, 0x100} {
		err := Check(ReadOnly, bad, errAttr)
		if !errors.Is(err, errAttr) || !strings.Contains(err.Error(), "0x") {
			t.Errorf("bit %#x: %v, want errAttr naming it", uint16(bad), err)
		}
	}
	if a, changed := Apply(Archive|Directory, ReadOnly|Hidden, Archive|Hidden); a != ReadOnly|Hidden|Directory || !changed {
		t.Errorf("Apply: %#x %v", a, changed)
	}
	if a, changed := Apply(Archive, Archive, 0); a != Archive || changed {
		t.Errorf("Apply of what is set: %#x %v", a, changed)
	}
}
