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
	refuse := func() map[string]error {
		return map[string]error{
			"Mkdir of an existing name":     v.Mkdir("d", testTime),
			"Remove of a non-empty dir":     v.Remove("d"),
			"Remove of a missing name":      v.Remove("nope"),
			"Rename of a missing name":      v.Rename("nope", "x"),
			"Rename into itself":            v.Rename("d", "d/e/x"),
			"SetAttr of a missing name":     v.SetAttr("nope", AttrHidden, 0),
			"SetLabel too long":             v.SetLabel("twelve chars"),
			"Fallocate past the free space": func() error { _, err := v.Fallocate("big", 1<<30, FallocateOptions{}); return err }(),
		}
	}
	voltest.DirtyAtFirstWrite(t, voltest.DirtySession{
		Dev: dev, Refuse: refuse, Commit: v.Commit, Close: v.Close,
		Change: func() error { return v.SetAttr("d", AttrHidden, 0) },
		Dirty:  func() bool { return diskDirty(t, dev) },
		Flag:   "VolumeDirty",
	})
}
