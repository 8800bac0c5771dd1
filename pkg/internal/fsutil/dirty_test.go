package fsutil

import (
	"errors"
	"strings"
	"testing"
)

type fakeDev struct{ f func() error }

func (d *fakeDev) BeforeFirstWrite(f func() error) { d.f = f }

// The flag goes out once, just before the first write, comes back armed
// after a failed write, and comes off at Close after a barrier; a session
// that wrote nothing clears nothing.
func TestDirtyFlag(t *testing.T) {
	var log []string
	dev := &fakeDev{}
	var f DirtyFlag
	fail := true
	write := func() error {
		log = append(log, "write")
		if fail {
			fail = false
			return errors.New("eio")
		}
		return nil
	}
	undo := func() { log = append(log, "undo") }
	barrier := func() error { log = append(log, "barrier"); return nil }
	var mark func(bool) error
	mark = func(flush bool) error { return f.Mark(dev, flush, write, undo, barrier, mark) }
	f.Arm(dev, false, mark)
	if dev.f == nil || !f.Armed {
		t.Fatal("Arm did not arm")
	}
	if err := dev.f(); err == nil || !f.Armed || dev.f == nil {
		t.Fatalf("failed write: %v, armed %v", err, f.Armed)
	}
	if err := dev.f(); err != nil || f.Armed || !f.Set || dev.f != nil {
		t.Fatalf("second write: %v, armed %v set %v", err, f.Armed, f.Set)
	}
	f.Arm(dev, false, mark) // set already: nothing to arm
	clear := func() error { log = append(log, "clear"); return nil }
	closeData := func() error { log = append(log, "data"); return nil }
	if err := f.Close(nil, dev, closeData, true, barrier, clear); err != nil || f.Set {
		t.Fatalf("Close: %v, set %v", err, f.Set)
	}
	if got, want := strings.Join(log, " "), "write undo write barrier data barrier clear"; got != want {
		t.Errorf("steps %q, want %q", got, want)
	}
	var g DirtyFlag
	log = nil
	g.Arm(dev, false, mark)
	if err := g.Close(nil, dev, closeData, false, barrier, clear); err != nil || g.Armed || dev.f != nil {
		t.Fatalf("Close of an unwritten session: %v, armed %v", err, g.Armed)
	}
	if got := strings.Join(log, " "); got != "data" {
		t.Errorf("unwritten session's Close: %q, want only the data stream closed", got)
	}
	var none DirtyFlag
	none.Arm(dev, true, mark)
	if none.Armed {
		t.Error("a volume with no flag was armed")
	}
}
