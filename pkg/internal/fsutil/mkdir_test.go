package fsutil

import (
	"errors"
	"io/fs"
	"testing"
	"time"
)

// A zero time is the clock's; any other time is kept.
func TestStamp(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)
	clock := func() time.Time { return now }
	given := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, c := range []struct {
		mtime time.Time
		now   func() time.Time
		want  time.Time
	}{
		{time.Time{}, clock, now},
		{given, clock, given},
		{time.Time{}, nil, time.Time{}}, // no clock: nothing to stamp with
	} {
		if got := Stamp(c.mtime, c.now); !got.Equal(c.want) {
			t.Errorf("Stamp(%v): %v, want %v", c.mtime, got, c.want)
		}
	}
}

// MkdirStart refuses, in order, what the change refuses, a name taken, a
// name the file system cannot hold, a parent without room and a failed
// allocation, naming the path in all but the change's own errors; a
// short allocation falls back to one cluster; the zero time is stamped.
func TestMkdirStart(t *testing.T) {
	type rec struct{}
	errBegin, errName, errRoom, errFull := errors.New("begin"), errors.New("name"), errors.New("room"), errors.New("full")
	now := time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)
	for _, c := range []struct {
		what               string
		begin, check, room error
		exists             bool
		free               int64
		fail               int // allocations of more clusters than this fail
		want               error
		wantPath           bool
		wantClusters       int64
	}{
		{what: "begin refused", begin: errBegin, free: 10, fail: 10, want: errBegin},
		{what: "exists", exists: true, free: 10, fail: 10, want: fs.ErrExist, wantPath: true},
		{what: "bad name", check: errName, free: 10, fail: 10, want: errName, wantPath: true},
		{what: "no room", room: errRoom, free: 10, fail: 10, want: errRoom, wantPath: true},
		{what: "nothing to allocate", free: 10, fail: 0, want: errFull, wantPath: true},
		{what: "sized", free: 10, fail: 10, wantClusters: 3},
		{what: "capped by free", free: 2, fail: 10, wantClusters: 2},
		{what: "one cluster after all", free: 10, fail: 1, wantClusters: 1},
	} {
		r := &rec{}
		ch := Changes[int, *rec]{
			Begin:  func() error { return c.begin },
			Settle: func() error { return nil },
			Parent: func(op, name string) (int, string, error) { return 7, "new", nil },
			Member: func(d int, base string) *rec {
				if c.exists {
					return r
				}
				return nil
			},
			Check: func(string) error { return c.check },
			Room:  func(int, string, int64) error { return c.room },
			Now:   func() time.Time { return now },
		}
		allocate := func(n uint32) ([]Run, error) {
			if int(n) > c.fail {
				return nil, errFull
			}
			return []Run{{Start: 2, Len: n}}, nil
		}
		// 40 slots of 32 bytes: 3 clusters of 512 bytes.
		nd, err := MkdirStart(ch, "a/new", time.Time{}, 40, 512, 1<<20, func() int64 { return c.free }, allocate)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
			continue
		}
		var pe *fs.PathError
		if isPath := errors.As(err, &pe); isPath != c.wantPath || isPath && (pe.Op != "mkdir" || pe.Path != "/a/new") {
			t.Errorf("%s: %#v, want a path error %v", c.what, err, c.wantPath)
		}
		if err != nil {
			continue
		}
		if nd.Parent != 7 || nd.Base != "new" || nd.Clusters != c.wantClusters || len(nd.Exts) != 1 || int64(nd.Exts[0].Len) != c.wantClusters || !nd.Mtime.Equal(now) {
			t.Errorf("%s: %+v, want %d clusters in parent 7 stamped %v", c.what, nd, c.wantClusters, now)
		}
	}
}
