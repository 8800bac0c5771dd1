package vol

import (
	"testing"
	"time"
)

// A zero time given to Create, Mkdir, MkdirSized or MkdirAll records the
// volume's clock, not 1980-01-01 (the earliest either file system holds).
func TestZeroTimeIsNow(t *testing.T) {
	for typ, v := range volumes(t) {
		checkZeroTimeIsNow(t, typ, v)
		v.Close()
	}
}

// OpenAs's volumes, which have no lock around them, keep the rule too:
// the codecs apply it, not the lock's wrapper.
func TestZeroTimeIsNowUnguarded(t *testing.T) {
	for typ, v := range volumes(t) {
		dev := v.Device()
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		u, err := OpenAs(dev, typ == "exFAT")
		if err != nil {
			t.Fatal(err)
		}
		if _, locked := u.(*locked); locked {
			t.Fatalf("%s: OpenAs returned the locked wrapper", typ)
		}
		u.SetClock(func() time.Time { return stamp })
		checkZeroTimeIsNow(t, typ, u)
		u.Close()
	}
}

// checkZeroTimeIsNow makes folders and a file on v with the zero time and
// checks that each records the volume's clock (stamp).
func checkZeroTimeIsNow(t *testing.T, typ string, v Volume) {
	t.Helper()
	if err := v.Mkdir("d", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := v.MkdirAll("e/f", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := v.MkdirSized("g", time.Time{}, 40); err != nil {
		t.Fatal(err)
	}
	w, err := v.Create("d/x", 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, err = CreateFile(v, "d/y", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d", "e", "e/f", "g", "d/x", "d/y"} {
		fi, err := v.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := fi.ModTime().Sub(stamp); d < -2*time.Second || d > 2*time.Second {
			t.Errorf("%s %s: modified %v, want the volume's clock %v", typ, name, fi.ModTime(), stamp)
		}
	}
}
