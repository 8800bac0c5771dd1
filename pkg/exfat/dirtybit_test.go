package exfat

import (
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// diskDirty reads VolumeDirty as the device holds it.
func diskDirty(t *testing.T, dev *fio.Device) bool {
	t.Helper()
	return voltest.Boot(t, dev, DecodeBootSector).Dirty()
}

// VolumeDirty is set at the session's first write, not when a change is
// asked for: refused changes write nothing at all, and a change that
// happens sets it before its metadata and clears it at Close.
func TestDirtyAtFirstWrite(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	v := openVol(t, img, true)
	if err := v.MkdirAll("d/e", testTime); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	v = openVol(t, img, true)
	dev := v.Device()
	voltest.DirtyAtFirstWrite(t, v, AttrHidden, voltest.DirtyFlag{
		Name:   "VolumeDirty",
		Dirty:  func() bool { return diskDirty(t, dev) },
		Refuse: map[string]func() error{"SetLabel too long": func() error { return v.SetLabel("twelve chars") }},
	})
}
