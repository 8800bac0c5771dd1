package exfat

import (
	"testing"

	fio "ftools/pkg/io"
)

// diskDirty reads VolumeDirty as the device holds it.
func diskDirty(t *testing.T, dev *fio.Device) bool {
	t.Helper()
	b := make([]byte, 512)
	if _, err := dev.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	bs, err := DecodeBootSector(b)
	if err != nil {
		t.Fatal(err)
	}
	return bs.Dirty()
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
	writes := dev.Stats().WriteRequests
	for what, err := range map[string]error{
		"Mkdir of an existing name":     v.Mkdir("d", testTime),
		"Remove of a non-empty dir":     v.Remove("d"),
		"Remove of a missing name":      v.Remove("nope"),
		"Rename of a missing name":      v.Rename("nope", "x"),
		"Rename into itself":            v.Rename("d", "d/e/x"),
		"SetAttr of a missing name":     v.SetAttr("nope", AttrHidden, 0),
		"SetLabel too long":             v.SetLabel("twelve chars"),
		"Fallocate past the free space": func() error { _, err := v.Fallocate("big", 1<<30, FallocateOptions{}); return err }(),
	} {
		if err == nil {
			t.Errorf("%s succeeded", what)
		}
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dev.Stats().WriteRequests; got != writes {
		t.Fatalf("refused changes wrote %d requests", got-writes)
	}
	if err := v.SetAttr("d", AttrHidden, 0); err != nil {
		t.Fatal(err)
	}
	if got := dev.Stats().WriteRequests; got != writes || diskDirty(t, dev) {
		t.Fatalf("a change not yet committed wrote %d requests", got-writes)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if !diskDirty(t, dev) {
		t.Error("VolumeDirty is not set once the change is written")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if diskDirty(t, dev) {
		t.Error("VolumeDirty is still set after Close")
	}
}
