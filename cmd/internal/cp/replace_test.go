package cp

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// A file replaced on a nearly full volume: the new file is written first
// when it has room of its own; when it fits only in the replaced file's
// clusters, the plan marks it tight and the copy says so, empties the old
// file, commits and writes the new one; when it fits in neither, or its
// size is not known before it is read (standard input, -t), it is refused
// and the old file stays.
func TestPlanReplaceRoom(t *testing.T) {
	const kib = 1024
	cases := []struct {
		name      string
		old, left int64 // the replaced file's size, the free bytes left
		size      int64 // the new file's
		text      bool
		stdin     bool
		tight     bool // written into the old file's clusters
		refused   bool
	}{
		{name: "room of its own", old: 800 * kib, left: 1000 * kib, size: 900 * kib},
		{name: "fits only in the old clusters", old: 800 * kib, left: 300 * kib, size: 900 * kib, tight: true},
		{name: "exactly old plus free", old: 800 * kib, left: 300 * kib, size: 1100 * kib, tight: true},
		{name: "one byte more than old plus free", old: 800 * kib, left: 300 * kib, size: 1100*kib + 1, refused: true},
		{name: "smaller than the old file", old: 800 * kib, left: 0, size: 10 * kib, tight: true},
		{name: "empty new file", old: 800 * kib, left: 0, size: 0},
		{name: "text conversion", old: 800 * kib, left: 300 * kib, size: 900 * kib, text: true, refused: true},
		{name: "standard input", old: 800 * kib, left: 300 * kib, size: 900 * kib, stdin: true, refused: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			oldData := bytes.Repeat([]byte{'o'}, int(tc.old))
			f.volWrite("k.bin", oldData)
			cs := f.vol.ClusterSize()
			fill := int64(f.vol.FreeClusters())*cs - tc.left
			f.volWrite("filler", make([]byte, fill))
			newData := bytes.Repeat([]byte{'n'}, int(tc.size))
			if err := os.WriteFile(f.h("new"), newData, 0o644); err != nil {
				t.Fatal(err)
			}
			o := Options{Text: tc.text, Preserve: true}
			src := f.h("new")
			if tc.stdin {
				src, o.Stdin = "-", bytes.NewReader(newData)
			}
			p, err := f.plan(o, src, "::/k.bin")
			if err != nil {
				t.Fatal(err)
			}
			tight := false
			for i := 0; i < p.items.len(); i++ {
				tight = tight || p.items.at(i).tight
			}
			if tight != tc.tight {
				t.Fatalf("tight %v, want %v (warnings %q)", tight, tc.tight, f.warns)
			}
			res := p.Run()
			if err := f.vol.Commit(); err != nil {
				t.Fatal(err)
			}
			warned := strings.Contains(strings.Join(f.warns, "\n"), "only fits in the clusters of the file it replaces")
			if warned != tc.tight {
				t.Fatalf("warned %v, want %v: %q", warned, tc.tight, f.warns)
			}
			want := string(newData)
			if tc.refused {
				want = string(oldData)
				if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Reason, "no space left") {
					t.Fatalf("failed %+v, want one for want of space", res.Failed)
				}
			} else if len(res.Failed)+len(res.Skipped) != 0 {
				t.Fatalf("problems: %+v %+v", res.Failed, res.Skipped)
			}
			if got := f.tree()["k.bin"]; got != want {
				t.Fatalf("k.bin holds %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// volWrite writes a volume file in one piece.
func (f *fixture) volWrite(name string, data []byte) {
	f.t.Helper()
	w, err := f.vol.Create(name, int64(len(data)), time.Unix(0, 0))
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = f.vol.Commit()
	}
	if err != nil {
		f.t.Fatal(err)
	}
}
