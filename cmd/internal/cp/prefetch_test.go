package cp

import (
	"bytes"
	"fmt"
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

// The files read ahead are handed over to the writer in groups: a
// channel hand-over (and a goroutine woken on each side) per group of up
// to prefetchGroup files, not per file. A group ends early where the
// bytes held would wait for the writer, which frees room only from the
// groups it was handed: files of a megabyte come a few at a time, and
// none waits for room forever. Files the writer skips are let go.
func TestPrefetchGroups(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		files, size, maxGroups int
	}{
		{files: 200, size: 100, maxGroups: (200 + prefetchGroup - 1) / prefetchGroup},
		{files: 12, size: prefetchWhole, maxGroups: 12},
	} {
		var paths []string
		var sizes []int64
		for i := range c.files {
			p := filepath.Join(dir, fmt.Sprintf("f%d-%d", c.size, i))
			if err := os.WriteFile(p, bytes.Repeat([]byte{byte(i)}, c.size), 0o644); err != nil {
				t.Fatal(err)
			}
			paths, sizes = append(paths, p), append(sizes, int64(c.size))
		}
		pf := newPrefetch(paths, sizes)
		for k := 0; k < c.files; k += 1 + k%3 { // some skipped
			f := pf.get(k)
			if f == nil || f.err != nil || len(f.data) != c.size || (c.size > 0 && f.data[0] != byte(k)) {
				t.Fatalf("%d files of %d bytes: file %d: %+v", c.files, c.size, k, f)
			}
			pf.release(f)
		}
		pf.close()
		if pf.groups > c.maxGroups {
			t.Errorf("%d files of %d bytes: handed over in %d groups, want at most %d", c.files, c.size, pf.groups, c.maxGroups)
		}
		if pf.held.used != 0 {
			t.Errorf("%d files of %d bytes: %d bytes still held after close", c.files, c.size, pf.held.used)
		}
	}
}
