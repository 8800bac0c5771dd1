package fsutil

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/dircache"
)

// memStore is a FileStore over a small device of 4-byte clusters: clusters
// are handed out from next on (skipping gap, so that a file can be made of
// two runs), freed ones are counted, and ended chains noted.
type memStore struct {
	dev   []byte
	next  uint32
	gap   uint32 // a cluster Allocate skips
	freed []Run
	ends  []Run
}

func (m *memStore) store(maxSize int64) *FileStore[Run] {
	return &FileStore[Run]{
		FS: "test", ClusterSize: 4, MaxSize: maxSize, TooLarge: errors.New("too large"),
		Run:    func(r Run) Run { return r },
		Extent: func(r Run) Run { return r },
		Offset: func(c uint32) int64 { return int64(c) * 4 },
		Allocate: func(n int64, after uint32) ([]Run, error) {
			var got []Run
			for ; n > 0; n-- {
				if m.next == m.gap {
					m.next++
				}
				if k := len(got); k > 0 && got[k-1].Start+got[k-1].Len == m.next {
					got[k-1].Len++
				} else {
					got = append(got, Run{m.next, 1})
				}
				m.next++
			}
			return got, nil
		},
		Free:     func(rs []Run) { m.freed = append(m.freed, rs...) },
		EndChain: func(last Run) { m.ends = append(m.ends, last) },
		Write:    func(off int64, p []byte) error { copy(m.dev[off:], p); return nil },
	}
}

// The shared writer grows the file as data comes (merging runs that
// touch), places the data across its runs, pads the last cluster, gives
// back what the size hint over-allocated, and refuses a write after Close.
func TestFileWriter(t *testing.T) {
	for _, tc := range []struct {
		name, data                    string
		hint                          int64
		gap                           uint32
		wantExts, wantFreed, wantEnds []Run
	}{
		{name: "no hint", data: "0123456789", wantExts: []Run{{1, 3}}},
		{name: "exact hint", hint: 8, data: "01234567", wantExts: []Run{{1, 2}}},
		{name: "hint too large", hint: 20, data: "0123456", wantExts: []Run{{1, 2}}, wantFreed: []Run{{3, 3}}, wantEnds: []Run{{1, 2}}},
		{name: "two runs", gap: 3, data: "0123456789abcdef", wantExts: []Run{{1, 2}, {4, 2}}},
		{name: "empty", hint: 8, wantFreed: []Run{{1, 2}}},
	} {
		m := &memStore{dev: make([]byte, 64), next: 1, gap: tc.gap}
		for i := range m.dev {
			m.dev[i] = 'x'
		}
		var parent dircache.Node
		w := NewFileWriter[Run, *int](m.store(0), &parent, "f", time.Time{})
		if err := w.Reserve(tc.hint); err != nil {
			t.Fatal(err)
		}
		w.Hold()
		if n, err := w.Write([]byte(tc.data)); n != len(tc.data) || err != nil {
			t.Errorf("%s: Write = %d, %v", tc.name, n, err)
		}
		if !w.Finish() {
			t.Fatalf("%s: Finish false on the first Close", tc.name)
		}
		if err := w.Settle(); err != nil {
			t.Fatal(err)
		}
		w.Unpin()
		if !slices.Equal(w.Exts, tc.wantExts) || !slices.Equal(m.freed, tc.wantFreed) || !slices.Equal(m.ends, tc.wantEnds) {
			t.Errorf("%s: runs %v, freed %v, ended %v; want %v, %v, %v", tc.name, w.Exts, m.freed, m.ends, tc.wantExts, tc.wantFreed, tc.wantEnds)
		}
		var got []byte
		for _, r := range w.Exts {
			got = append(got, m.dev[r.Start*4:(r.Start+r.Len)*4]...)
		}
		want := []byte(tc.data)
		want = append(want, make([]byte, len(got)-len(want))...)
		if string(got) != string(want) {
			t.Errorf("%s: the file's clusters hold %q, want %q", tc.name, got, want)
		}
		if parent.Pinned() {
			t.Errorf("%s: parent still pinned after Close", tc.name)
		}
		if _, err := w.Write([]byte("more")); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("%s: Write after Close: %v, want fs.ErrClosed", tc.name, err)
		}
		if w.Finish() {
			t.Errorf("%s: Finish true on a second Close", tc.name)
		}
	}
}

// Abort gives back every cluster and lets the parent go, once; data past
// MaxSize is refused before a cluster is allocated.
func TestFileWriterAbortAndLimit(t *testing.T) {
	m := &memStore{dev: make([]byte, 64), next: 1}
	var parent dircache.Node
	w := NewFileWriter[Run, *int](m.store(10), &parent, "f", time.Time{})
	w.Hold()
	if _, err := w.Write([]byte("0123456")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("7890")); err == nil || err.Error() != "too large" {
		t.Errorf("write past MaxSize: %v, want the store's TooLarge", err)
	}
	if w.Alloc != 2 {
		t.Errorf("%d clusters allocated after the refused write, want 2", w.Alloc)
	}
	w.Abort()
	w.Abort()
	if !slices.Equal(m.freed, []Run{{1, 2}}) || w.Exts != nil || w.Alloc != 0 || parent.Pinned() {
		t.Errorf("after Abort: freed %v, runs %v, alloc %d, pinned %v", m.freed, w.Exts, w.Alloc, parent.Pinned())
	}
}
