package vol

import (
	"testing"

	"github.com/ftools/ftools/pkg/internal/fsattr"
)

// vol's attribute bits are the codecs' own (pkg/internal/fsattr): a
// value a codec hands out reads the same here, and lists the same letters.
func TestAttrBitsAreTheCodecs(t *testing.T) {
	for _, c := range []struct {
		v Attr
		f fsattr.Attr
	}{
		{AttrReadOnly, fsattr.ReadOnly}, {AttrHidden, fsattr.Hidden}, {AttrSystem, fsattr.System},
		{AttrDirectory, fsattr.Directory}, {AttrArchive, fsattr.Archive},
	} {
		if uint16(c.v) != uint16(c.f) {
			t.Errorf("vol bit %#x, fsattr bit %#x", uint16(c.v), uint16(c.f))
		}
	}
	all := AttrReadOnly | AttrHidden | AttrSystem | AttrDirectory | AttrArchive
	if got := all.String(); got != "RHSDA" {
		t.Errorf("all bits list as %q, want RHSDA", got)
	}
	if uint16(all) != uint16(fsattr.Shared) {
		t.Errorf("vol's bits %#x are not fsattr.Shared %#x", uint16(all), uint16(fsattr.Shared))
	}
	if got := (AttrDirectory | 0x08).String(); got != "D" {
		t.Errorf("a bit vol does not name listed: %q, want D", got)
	}
}
