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
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"Stat file/", ErrNotDir, func() error { _, err := v.Stat("A.TXT/"); return err }},
		{"Open file/", ErrNotDir, func() error { _, err := v.Open("A.TXT/"); return err }},
		{"Remove file/", ErrNotDir, func() error { return v.Remove("A.TXT/") }},
		{"RemoveAll file/", ErrNotDir, func() error { return v.RemoveAll("A.TXT/") }},
		{"SetAttr file/.", ErrNotDir, func() error { return v.SetAttr("A.TXT/.", AttrHidden, 0) }},
		{"Create file/", ErrNotDir, func() error { _, err := v.Create("A.TXT/", 0, time.Now()); return err }},
		{"Mkdir file/", ErrNotDir, func() error { return v.Mkdir("A.TXT/", time.Now()) }},
		{"Fallocate file/", ErrNotDir, func() error { _, err := v.Fallocate("A.TXT/", 10, FallocateOptions{}); return err }},
		{"Mkdir new/", nil, func() error { return v.Mkdir("NEWDIR/", time.Now()) }},
		{"Stat dir/", nil, func() error { _, err := v.Stat("NEWDIR/"); return err }},
	} {
		if err := tc.fn(); !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	if got := readFile(t, v, "A.TXT"); !bytes.Equal(got, []byte("kept")) {
		t.Errorf("A.TXT holds %q, want it kept", got)
	}
}
