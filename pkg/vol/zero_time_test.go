package vol

import (
	"testing"
	"time"
)

// A zero time given to Create, Mkdir or MkdirAll records the volume's
// clock, not FAT's 1980 (nor an error on exFAT).
func TestZeroTimeIsNow(t *testing.T) {
	for typ, v := range volumes(t) {
		if err := v.Mkdir("d", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := v.MkdirAll("e/f", time.Time{}); err != nil {
			t.Fatal(err)
		}
		w, err := v.Create("d/x", 0, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"d", "e", "e/f", "d/x"} {
			fi, err := v.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if d := fi.ModTime().Sub(stamp); d < -2*time.Second || d > 2*time.Second {
				t.Errorf("%s %s: modified %v, want the volume's clock %v", typ, name, fi.ModTime(), stamp)
			}
		}
		v.Close()
	}
}
