package fat

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"
	"time"
)

// updateOp is one step on an open Updater: a write at an offset (or at
// the current offset, off < 0), or a truncate (n >= 0, data nil).
type updateOp struct {
	off   int64
	n     int
	trunc int64 // >= 0: Truncate(trunc)
	sync  bool  // Sync after the step
}

func wAt(off int64, n int) updateOp { return updateOp{off: off, n: n, trunc: -1} }
func wNext(n int) updateOp          { return updateOp{off: -1, n: n, trunc: -1} }
func trunc(n int64) updateOp        { return updateOp{trunc: n} }

// updateVolume makes a FAT16 volume (512-byte sectors, clusterSectors per
// cluster) holding "a/f.bin" of size bytes and, right after it, "b.bin",
// so that f grows into clusters apart from its own.
func updateVolume(t *testing.T, clusterSectors int, size int) (*Volume, []byte, func() *Volume) {
	t.Helper()
	dev, v := formatMem(t, FormatParams{Size: 16 << 20, Type: FAT16, SectorsPerCluster: clusterSectors}, time.Unix(0, 0))
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	if err := v.Mkdir("a", mtime); err != nil {
		t.Fatal(err)
	}
	data := pattern(size, 1)
	for _, f := range []struct {
		name string
		data []byte
	}{{"a/f.bin", data}, {"b.bin", pattern(3000, 2)}} {
		w, err := v.Create(f.name, int64(len(f.data)), mtime)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	reopen := func() *Volume {
		t.Helper()
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		nv, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		v = nv
		return nv
	}
	return reopen(), data, reopen
}

// pattern is n bytes that differ from one seed to the next.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed*31 + byte(i>>9)
	}
	return b
}

// apply does op on the model too.
func applyModel(model []byte, pos *int64, op updateOp, data []byte, appending bool) []byte {
	if op.trunc >= 0 {
		if op.trunc <= int64(len(model)) {
			return model[:op.trunc]
		}
		return append(model, make([]byte, op.trunc-int64(len(model)))...)
	}
	off := op.off
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

func TestUpdaterWrites(t *testing.T) {
	cases := []struct {
		name     string
		cluster  int // sectors per cluster
		size     int
		flag     int
		ops      []updateOp
		wantRuns int // the file's runs afterwards (0: not checked)
	}{
		{"within a sector", 4, 5000, os.O_WRONLY, []updateOp{wAt(100, 10)}, 1},
		{"across sectors", 4, 5000, os.O_WRONLY, []updateOp{wAt(500, 30)}, 1},
		{"across clusters", 1, 5000, os.O_WRONLY, []updateOp{wAt(1000, 2000)}, 1},
		{"whole file", 1, 4096, os.O_RDWR, []updateOp{wAt(0, 4096)}, 1},
		{"past the end in its last cluster", 4, 5000, os.O_WRONLY, []updateOp{wAt(5100, 100)}, 1},
		{"past the end into new clusters", 1, 5000, os.O_WRONLY, []updateOp{wAt(4900, 3000)}, 2},
		{"gap past the end", 1, 1000, os.O_WRONLY, []updateOp{wAt(9000, 700)}, 2},
		{"append", 1, 1000, os.O_WRONLY | os.O_APPEND, []updateOp{wNext(100), wNext(5000), wNext(1)}, 2},
		{"sequential writes", 4, 0, os.O_WRONLY, []updateOp{wNext(100), wNext(5000), wNext(1)}, 1},
		{"empty file grows", 1, 0, os.O_WRONLY, []updateOp{wAt(0, 2000)}, 1},
		{"truncate down within a cluster", 4, 5000, os.O_WRONLY, []updateOp{trunc(4500)}, 1},
		{"truncate down across clusters", 1, 5000, os.O_WRONLY, []updateOp{trunc(700)}, 1},
		{"truncate to zero", 1, 5000, os.O_WRONLY, []updateOp{trunc(0)}, 0},
		{"O_TRUNC", 1, 5000, os.O_WRONLY | os.O_TRUNC, []updateOp{wNext(300)}, 1},
		{"truncate up", 1, 700, os.O_WRONLY, []updateOp{trunc(6000)}, 2},
		{"truncate down then grow", 1, 5000, os.O_WRONLY, []updateOp{trunc(700), wAt(3000, 4000)}, 0},
		{"grow then truncate into the new clusters", 1, 5000, os.O_WRONLY, []updateOp{wAt(5000, 5000), trunc(7000)}, 2},
		{"grow then truncate to the old clusters", 1, 5000, os.O_WRONLY, []updateOp{wAt(5000, 5000), trunc(5100)}, 1},
		{"grow then truncate below", 1, 5000, os.O_WRONLY, []updateOp{wAt(5000, 5000), trunc(100), wAt(200, 10)}, 1},
		{"sync in between", 1, 3000, os.O_WRONLY, []updateOp{{off: 2900, n: 3000, trunc: -1, sync: true}, wAt(10, 10), wNext(4000)}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, model, reopen := updateVolume(t, tc.cluster, tc.size)
			u, err := v.OpenFile("a/f.bin", tc.flag)
			if err != nil {
				t.Fatal(err)
			}
			if tc.flag&os.O_TRUNC != 0 {
				model = model[:0]
			}
			var pos int64
			for i, op := range tc.ops {
				data := pattern(op.n, byte(10+i))
				switch {
				case op.trunc >= 0:
					err = u.Truncate(op.trunc)
				case op.off < 0:
					_, err = u.Write(data)
				default:
					_, err = u.WriteAt(data, op.off)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				model = applyModel(model, &pos, op, data, tc.flag&os.O_APPEND != 0)
				if op.sync {
					if err := u.Sync(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := u.Close(); err != nil {
				t.Fatal(err)
			}
			v = reopen()
			got, err := fs.ReadFile(v, "a/f.bin")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, model) {
				t.Fatalf("read back %d bytes, want %d (first difference at %d)", len(got), len(model), firstByteDiff(got, model))
			}
			if b, err := fs.ReadFile(v, "b.bin"); err != nil || !bytes.Equal(b, pattern(3000, 2)) {
				t.Fatalf("b.bin changed: %v", err)
			}
			rep, err := Check(v, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() {
				t.Fatalf("check: %+v", rep.Problems)
			}
			if tc.wantRuns > 0 {
				fi, _ := v.Stat("a/f.bin")
				exts, err := ChainExtents(v.Table(), fi.Sys().(*Record).Entry.Cluster)
				if err != nil || len(exts) != tc.wantRuns {
					t.Errorf("%d runs (%v), want %d", len(exts), err, tc.wantRuns)
				}
			}
		})
	}
}

func firstByteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// OpenFile's refusals change nothing and say why.
func TestUpdaterRefusals(t *testing.T) {
	v, _, _ := updateVolume(t, 1, 1000)
	for _, tc := range []struct {
		name string
		flag int
		want error
	}{
		{"a/f.bin", os.O_RDONLY, fs.ErrInvalid},
		{"a/missing", os.O_WRONLY, fs.ErrNotExist},
		{"a", os.O_WRONLY, ErrIsDir},
		{"a/f.bin", os.O_WRONLY | os.O_CREATE | os.O_EXCL, fs.ErrExist},
	} {
		if _, err := v.OpenFile(tc.name, tc.flag); !errors.Is(err, tc.want) {
			t.Errorf("OpenFile(%q, %#x): %v, want %v", tc.name, tc.flag, err, tc.want)
		}
	}
	u, err := v.OpenFile("a/new.bin", os.O_WRONLY|os.O_CREATE)
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
	if got, _ := fs.ReadFile(v, "a/new.bin"); string(got) != "hello" {
		t.Errorf("a/new.bin holds %q", got)
	}
	if _, err := u.Seek(0, io.SeekStart); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("seek after Close: %v", err)
	}
}
