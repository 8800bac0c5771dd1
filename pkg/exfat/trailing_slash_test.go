package exfat

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// A path ending in a slash must name a directory: an existing file named
// so is refused (ErrNotDir) by every call, as pkg/fat refuses it, and is
// left as it was.
func TestTrailingSlash(t *testing.T) {
	_, v := memVolume(t, 64<<20, FormatParams{})
	writeFile(t, v, "A.TXT", []byte("kept"), 0)
	refused := map[string]func() error{
		"Stat":      func() error { _, err := v.Stat("A.TXT/"); return err },
		"Open":      func() error { _, err := v.Open("A.TXT/"); return err },
		"Remove":    func() error { return v.Remove("A.TXT/") },
		"RemoveAll": func() error { return v.RemoveAll("A.TXT/") },
		"SetAttr":   func() error { return v.SetAttr("A.TXT/.", AttrHidden, 0) },
		"Create":    func() error { _, err := v.Create("A.TXT/", 0, testTime); return err },
		"Mkdir":     func() error { return v.Mkdir("A.TXT/", testTime) },
		"Fallocate": func() error { _, err := v.Fallocate("A.TXT/", 10, FallocateOptions{}); return err },
	}
	for op, fn := range refused {
		if err := fn(); !errors.Is(err, ErrNotDir) {
			t.Errorf("%s of a file named with a trailing slash: %v, want ErrNotDir", op, err)
		}
	}
	if got := readFile(t, v, "A.TXT"); !bytes.Equal(got, []byte("kept")) {
		t.Errorf("A.TXT holds %q, want it kept", got)
	}
	if err := v.Mkdir("NEWDIR/", time.Now()); err != nil {
		t.Errorf("Mkdir NEWDIR/: %v", err)
	}
	if _, err := v.Stat("NEWDIR/"); err != nil {
		t.Errorf("Stat NEWDIR/: %v", err)
	}
}
