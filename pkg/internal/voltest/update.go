package voltest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// Updater is a codec's in-place file updater, as the update tests drive it.
type Updater interface {
	Write(p []byte) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Truncate(n int64) error
	Sync() error
	Close() error
}

// UpdateOp is one step on an open Updater: a write of N bytes at Off (at
// the current offset when Off < 0), or Truncate(Trunc) when Trunc >= 0;
// Sync after it when Sync.
type UpdateOp struct {
	Off   int64
	N     int
	Trunc int64
	Sync  bool
}

// WAt writes n bytes at off; WNext n bytes at the current offset; Trunc
// truncates to n.
func WAt(off int64, n int) UpdateOp { return UpdateOp{Off: off, N: n, Trunc: -1} }
func WNext(n int) UpdateOp          { return UpdateOp{Off: -1, N: n, Trunc: -1} }
func Trunc(n int64) UpdateOp        { return UpdateOp{Trunc: n} }

// UpdateCase is a file of Size bytes opened with Flag, then Ops; Runs is
// how many runs of clusters the file has afterwards (0: not checked),
// with clusters of ClusterSize bytes and a file right after the updated
// one (so growth must go elsewhere, unless the codec's allocator takes
// the clusters after it).
type UpdateCase struct {
	Name        string
	ClusterSize int
	Size        int
	Flag        int
	Ops         []UpdateOp
	Runs        int
}

// UpdateCases are the in-place update table both codecs run.
func UpdateCases() []UpdateCase {
	w, wa := os.O_WRONLY, os.O_WRONLY|os.O_APPEND
	return []UpdateCase{
		{"within a sector", 2048, 5000, w, []UpdateOp{WAt(100, 10)}, 1},
		{"across sectors", 2048, 5000, w, []UpdateOp{WAt(500, 30)}, 1},
		{"across clusters", 512, 5000, w, []UpdateOp{WAt(1000, 2000)}, 1},
		{"whole file", 512, 4096, os.O_RDWR, []UpdateOp{WAt(0, 4096)}, 1},
		{"past the end in its last cluster", 2048, 5000, w, []UpdateOp{WAt(5100, 100)}, 1},
		{"past the end into new clusters", 512, 5000, w, []UpdateOp{WAt(4900, 3000)}, 2},
		{"gap past the end", 512, 1000, w, []UpdateOp{WAt(9000, 700)}, 2},
		{"append", 512, 1000, wa, []UpdateOp{WNext(100), WNext(5000), WNext(1)}, 2},
		{"sequential writes", 2048, 0, w, []UpdateOp{WNext(100), WNext(5000), WNext(1)}, 1},
		{"empty file grows", 512, 0, w, []UpdateOp{WAt(0, 2000)}, 1},
		{"truncate down within a cluster", 2048, 5000, w, []UpdateOp{Trunc(4500)}, 1},
		{"truncate down across clusters", 512, 5000, w, []UpdateOp{Trunc(700)}, 1},
		{"truncate to zero", 512, 5000, w, []UpdateOp{Trunc(0)}, 0},
		{"O_TRUNC", 512, 5000, w | os.O_TRUNC, []UpdateOp{WNext(300)}, 1},
		{"truncate up", 512, 700, w, []UpdateOp{Trunc(6000)}, 2},
		{"truncate down then grow", 512, 5000, w, []UpdateOp{Trunc(700), WAt(3000, 4000)}, 0},
		{"grow then truncate into the new clusters", 512, 5000, w, []UpdateOp{WAt(5000, 5000), Trunc(7000)}, 2},
		{"grow then truncate to the old clusters", 512, 5000, w, []UpdateOp{WAt(5000, 5000), Trunc(5100)}, 1},
		{"grow then truncate below", 512, 5000, w, []UpdateOp{WAt(5000, 5000), Trunc(100), WAt(200, 10)}, 1},
		{"sync in between", 512, 3000, w, []UpdateOp{{Off: 2900, N: 3000, Trunc: -1, Sync: true}, WAt(10, 10), WNext(4000)}, 0},
		{"grow twice past the run", 512, 1000, w, []UpdateOp{{Off: 1000, N: 3000, Trunc: -1, Sync: true}, WAt(4000, 3000)}, 0},
	}
}

// Pattern is n bytes that differ from one seed to the next.
func Pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed*31 + byte(i>>9)
	}
	return b
}

// RunUpdate does ops on u, which holds model (the file's bytes), and
// returns what the file must hold afterwards.
func RunUpdate(tb testing.TB, u Updater, model []byte, flag int, ops []UpdateOp) []byte {
	tb.Helper()
	if flag&os.O_TRUNC != 0 {
		model = model[:0]
	}
	var pos int64
	for i, op := range ops {
		data := Pattern(op.N, byte(10+i))
		var err error
		switch {
		case op.Trunc >= 0:
			err = u.Truncate(op.Trunc)
		case op.Off < 0:
			_, err = u.Write(data)
		default:
			_, err = u.WriteAt(data, op.Off)
		}
		if err != nil {
			tb.Fatalf("step %d: %v", i, err)
		}
		model = applyOp(model, &pos, op, data, flag&os.O_APPEND != 0)
		if op.Sync {
			if err := u.Sync(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := u.Close(); err != nil {
		tb.Fatal(err)
	}
	return model
}

// applyOp does op on the model.
func applyOp(model []byte, pos *int64, op UpdateOp, data []byte, appending bool) []byte {
	if op.Trunc >= 0 {
		if op.Trunc <= int64(len(model)) {
			return model[:op.Trunc]
		}
		return append(model, make([]byte, op.Trunc-int64(len(model)))...)
	}
	off := op.Off
	if off < 0 {
		off = *pos
		if appending {
			off = int64(len(model))
		}
		*pos = off + int64(len(data))
	}
	if end := off + int64(len(data)); end > int64(len(model)) {
		model = append(model, make([]byte, end-int64(len(model)))...)
	}
	copy(model[off:], data)
	return model
}

// SameBytes fails tb unless got is want.
func SameBytes(tb testing.TB, got, want []byte) {
	tb.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	tb.Fatalf("read back %d bytes, want %d (first difference at byte %d)", len(got), len(want), i)
}

// UpdateRefusals holds a codec's OpenFile (open) to its refusals on a
// volume holding the folder "a" and the file "a/f.bin": a read-only
// open, a missing file, a folder (isDir), O_EXCL over a file; then
// O_CREATE makes "a/new.bin", which read (fs.ReadFile on the volume)
// finds, and the closed Updater refuses a write.
func UpdateRefusals[U Updater](t *testing.T, open func(name string, flag int) (U, error), isDir error, read func(name string) ([]byte, error)) {
	t.Helper()
	for _, tc := range []struct {
		name string
		flag int
		want error
	}{
		{"a/f.bin", os.O_RDONLY, fs.ErrInvalid},
		{"a/missing", os.O_WRONLY, fs.ErrNotExist},
		{"a", os.O_WRONLY, isDir},
		{"a/f.bin", os.O_WRONLY | os.O_CREATE | os.O_EXCL, fs.ErrExist},
	} {
		if _, err := open(tc.name, tc.flag); !errors.Is(err, tc.want) {
			t.Errorf("OpenFile(%q, %#x): %v, want %v", tc.name, tc.flag, err, tc.want)
		}
	}
	u, err := open("a/new.bin", os.O_WRONLY|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
	if got, err := read("a/new.bin"); err != nil || string(got) != "hello" {
		t.Errorf("a/new.bin holds %q (%v)", got, err)
	}
}

// UpdateTable runs UpdateCases on a codec. start makes the case's volume,
// "a/f.bin" holding Pattern(tc.Size, 1) and "b.bin" Pattern(3000, 2)
// after it, and opens a/f.bin with tc.Flag; done closes and opens the
// volume again and returns it, the problems its check finds, and the
// runs of clusters of a/f.bin.
func UpdateTable[U Updater](t *testing.T, start func(t *testing.T, tc UpdateCase) U, done func(t *testing.T) (fs.FS, []string, int)) {
	for _, tc := range UpdateCases() {
		t.Run(tc.Name, func(t *testing.T) {
			u := start(t, tc)
			model := RunUpdate(t, u, Pattern(tc.Size, 1), tc.Flag, tc.Ops)
			fsys, problems, runs := done(t)
			got, err := fs.ReadFile(fsys, "a/f.bin")
			if err != nil {
				t.Fatal(err)
			}
			SameBytes(t, got, model)
			if b, err := fs.ReadFile(fsys, "b.bin"); err != nil || !bytes.Equal(b, Pattern(3000, 2)) {
				t.Fatalf("b.bin changed: %v", err)
			}
			if len(problems) > 0 {
				t.Fatalf("check: %v", problems)
			}
			if tc.Runs > 0 && runs != tc.Runs {
				t.Errorf("%d runs, want %d", runs, tc.Runs)
			}
		})
	}
}
