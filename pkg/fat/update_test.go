package fat

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

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
	data := voltest.Pattern(size, 1)
	for _, f := range []struct {
		name string
		data []byte
	}{{"a/f.bin", data}, {"b.bin", voltest.Pattern(3000, 2)}} {
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

func TestUpdaterWrites(t *testing.T) {
	for _, tc := range voltest.UpdateCases() {
		t.Run(tc.Name, func(t *testing.T) {
			v, model, reopen := updateVolume(t, tc.ClusterSize/512, tc.Size)
			u, err := v.OpenFile("a/f.bin", tc.Flag)
			if err != nil {
				t.Fatal(err)
			}
			model = voltest.RunUpdate(t, u, model, tc.Flag, tc.Ops)
			v = reopen()
			got, err := fs.ReadFile(v, "a/f.bin")
			if err != nil {
				t.Fatal(err)
			}
			voltest.SameBytes(t, got, model)
			if b, err := fs.ReadFile(v, "b.bin"); err != nil || !bytes.Equal(b, voltest.Pattern(3000, 2)) {
				t.Fatalf("b.bin changed: %v", err)
			}
			rep, err := Check(v, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() {
				t.Fatalf("check: %+v", rep.Problems)
			}
			if tc.Runs > 0 {
				fi, _ := v.Stat("a/f.bin")
				exts, err := ChainExtents(v.Table(), fi.Sys().(*Record).Entry.Cluster)
				if err != nil || len(exts) != tc.Runs {
					t.Errorf("%d runs (%v), want %d", len(exts), err, tc.Runs)
				}
			}
		})
	}
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
