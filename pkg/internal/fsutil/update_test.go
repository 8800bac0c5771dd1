package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"testing"
)

func TestFileUpdateSeek(t *testing.T) {
	for _, tc := range []struct {
		pos, off int64
		whence   int
		want     int64
		err      error
	}{
		{5, 3, io.SeekStart, 3, nil},
		{5, 3, io.SeekCurrent, 8, nil},
		{5, -2, io.SeekEnd, 8, nil},
		{5, 100, io.SeekEnd, 110, nil}, // past the end is allowed
		{5, -6, io.SeekCurrent, 5, fs.ErrInvalid},
		{5, math.MaxInt64, io.SeekCurrent, 5, fs.ErrInvalid},
		{5, 0, 7, 5, fs.ErrInvalid},
	} {
		f := &FileUpdate{Path: "/f", Size: 10, Pos: tc.pos}
		got, err := f.Seek(tc.off, tc.whence)
		if !errors.Is(err, tc.err) || got != tc.want || f.Pos != tc.want {
			t.Errorf("Seek(%d, %d) from %d: %d (pos %d), %v; want %d, %v", tc.off, tc.whence, tc.pos, got, f.Pos, err, tc.want, tc.err)
		}
	}
	f := &FileUpdate{Path: "/f", Done: true}
	if _, err := f.Seek(0, io.SeekStart); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Seek after Close: %v", err)
	}
}

func TestCheckUpdateFlags(t *testing.T) {
	for flag, ok := range map[int]bool{
		os.O_RDONLY:                           false,
		os.O_WRONLY:                           true,
		os.O_RDWR | os.O_APPEND:               true,
		os.O_WRONLY | os.O_CREATE | os.O_EXCL: true,
		os.O_WRONLY | os.O_TRUNC:              true,
		os.O_WRONLY | os.O_SYNC:               false,
	} {
		if err := CheckUpdateFlags(flag, "/f"); (err == nil) != ok {
			t.Errorf("flags %#x: %v, want accepted %v", flag, err, ok)
		}
	}
}

// PutRuns walks the runs from the byte asked for, and refuses to write
// past them.
func TestPutRuns(t *testing.T) {
	runs := []Run{{Start: 10, Len: 2}, {Start: 20, Len: 1}}
	type w struct{ off, n int64 }
	var got []w
	write := func(off int64, p []byte) error { got = append(got, w{off, int64(len(p))}); return nil }
	offset := func(c uint32) int64 { return int64(c) * 100 }
	id := func(r Run) Run { return r }
	corrupt := errors.New("corrupt")
	if err := PutRuns(make([]byte, 150), 50, runs, id, 100, offset, write, corrupt); err != nil {
		t.Fatal(err)
	}
	if want := []w{{1050, 150}}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("writes %v, want %v", got, want)
	}
	got = nil
	if err := PutRuns(make([]byte, 100), 150, runs, id, 100, offset, write, corrupt); err != nil {
		t.Fatal(err)
	}
	if want := []w{{1150, 50}, {2000, 50}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("writes %v, want %v", got, want)
	}
	if err := PutRuns(make([]byte, 100), 250, runs, id, 100, offset, write, corrupt); !errors.Is(err, corrupt) {
		t.Errorf("a write past the runs: %v", err)
	}
}
