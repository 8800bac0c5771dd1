package cp

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A small file is read ahead whole with one read: the read that returns
// the planned size, short of the byte more asked, met its end. A file
// grown since it was listed fills that byte and is handed over open, from
// its start; one shrunk is read to its end: the copy then sees either
// size differ from the plan's.
func TestFetchSizes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		planned int64
		open    bool
		data    string
	}{
		{planned: 10, data: "0123456789"},
		{planned: 9, open: true},          // grown since listed
		{planned: 12, data: "0123456789"}, // shrunk
		{planned: 0, open: true},
	} {
		f := &fetched{}
		f.fetch(p, c.planned)
		if f.err != nil {
			t.Fatalf("planned %d: %v", c.planned, f.err)
		}
		if c.open {
			if f.f == nil {
				t.Fatalf("planned %d: not handed over open (data %q)", c.planned, f.data)
			}
			b, err := io.ReadAll(f.f)
			f.f.Close()
			if err != nil || string(b) != "0123456789" {
				t.Fatalf("planned %d: the open file reads %q, %v", c.planned, b, err)
			}
			continue
		}
		if f.f != nil || string(f.data) != c.data {
			t.Fatalf("planned %d: data %q (open %v), want %q", c.planned, f.data, f.f != nil, c.data)
		}
	}
}
