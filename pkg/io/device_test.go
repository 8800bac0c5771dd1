package io

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newImage creates a size-byte image in dir filled with a pattern and
// returns its path and contents.
func newImage(t *testing.T, dir string, size int) (string, []byte) {
	t.Helper()
	p := filepath.Join(dir, "disk.img")
	data := make([]byte, size)
	fill(rand.New(rand.NewPCG(3, 4)), data)
	must(t, os.WriteFile(p, data, 0o644))
	return p, data
}

// exerciseFile writes unaligned pieces and reads them back through d and
// through the file system.
func exerciseFile(t *testing.T, path string, o Options, shadow []byte) *Device {
	t.Helper()
	d, err := Open(path, o)
	must(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		n := 1 + rng.IntN(20000)
		off := rng.Int64N(int64(len(shadow)) - int64(n))
		p := make([]byte, n)
		fill(rng, p)
		_, err := d.WriteAt(p, off)
		must(t, err)
		copy(shadow[off:], p)
		got := make([]byte, n)
		_, err = d.ReadAt(got, off)
		must(t, err)
		if !bytes.Equal(got, p) {
			t.Fatalf("read back %d bytes at %d differ", n, off)
		}
	}
	all := make([]byte, len(shadow))
	_, err = d.ReadAt(all, 0)
	must(t, err)
	if !bytes.Equal(all, shadow) {
		t.Fatal("whole read differs from shadow")
	}
	must(t, d.Close())
	st := d.Stats()
	disk, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(disk, shadow) {
		t.Fatal("file contents differ from shadow")
	}
	if st.WriteRequests == 0 || st.ReadRequests == 0 || st.Flushes != 1 {
		t.Errorf("stats %+v", st)
	}
	return d
}

func TestTmpfsFallsBack(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "ftools-io-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	path, shadow := newImage(t, dir, 1<<20+7)
	d := exerciseFile(t, path, Options{Write: true, Sync: SyncClose}, shadow)
	st := d.Stats()
	if st.Direct || st.Fallback == "" || st.Align != 1 {
		t.Errorf("tmpfs: direct %v align %d fallback %q", st.Direct, st.Align, st.Fallback)
	}
}

func TestBufferedForced(t *testing.T) {
	path, shadow := newImage(t, t.TempDir(), 1<<20)
	d := exerciseFile(t, path, Options{Write: true, Buffered: true, Sync: SyncClose}, shadow)
	if st := d.Stats(); st.Direct || st.Fallback != "" {
		t.Errorf("buffered: direct %v fallback %q", st.Direct, st.Fallback)
	}
}

func TestOpenOffsetAndErrors(t *testing.T) {
	dir := t.TempDir()
	path, data := newImage(t, dir, 1<<20)
	d, err := Open(path, Options{Write: true, Offset: 4096 + 3})
	must(t, err)
	if d.Start() != 4099 || d.Size() != 1<<20-4099 || d.SectorSize() != 512 || d.IsBlockDevice() {
		t.Errorf("start %d size %d sector %d block %v", d.Start(), d.Size(), d.SectorSize(), d.IsBlockDevice())
	}
	_, err = d.WriteAt([]byte("xyz"), 0)
	must(t, err)
	if _, err := d.WriteAt([]byte("x"), d.Size()); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("write at Size: %v", err)
	}
	must(t, d.Close())
	if err := d.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second close: %v", err)
	}
	disk, _ := os.ReadFile(path)
	copy(data[4099:], "xyz")
	if !bytes.Equal(disk, data) {
		t.Error("offset write landed in the wrong place")
	}

	ro, err := Open(path, Options{})
	must(t, err)
	if _, err := ro.WriteAt([]byte("x"), 0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("write read-only: %v", err)
	}
	if err := ro.Zero(0, 1); !errors.Is(err, ErrReadOnly) {
		t.Errorf("zero read-only: %v", err)
	}
	must(t, ro.Close())
	if st := ro.Stats(); st.Flushes != 0 {
		t.Errorf("read-only close flushed %d times", st.Flushes)
	}

	for _, c := range []struct {
		path string
		o    Options
		want string
	}{
		{path, Options{Offset: 2 << 20}, "past the end"},
		{path, Options{IOSize: 1000}, "not a multiple"},
		{path, Options{Offset: -1}, "bad options"},
		{filepath.Join(dir, "missing"), Options{}, "no such file"},
		{dir, Options{}, "not a regular file or block device"},
		{"/dev/null", Options{}, "not a regular file or block device"},
	} {
		if _, err := Open(c.path, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s, %+v) = %v, want %q", c.path, c.o, err, c.want)
		}
	}
}

func TestSyncPolicies(t *testing.T) {
	path, _ := newImage(t, t.TempDir(), 64<<10)
	for _, c := range []struct {
		p                  SyncPolicy
		afterFile, atClose int64
	}{{SyncNone, 0, 0}, {SyncClose, 0, 1}, {SyncFile, 1, 2}, {SyncAlways, 0, 1}} {
		d, err := Open(path, Options{Write: true, Sync: c.p})
		must(t, err)
		_, err = d.WriteAt([]byte("data"), 10)
		must(t, err)
		must(t, d.FileDone())
		if got := d.Stats().Flushes; got != c.afterFile {
			t.Errorf("%v: %d flushes after FileDone, want %d", c.p, got, c.afterFile)
		}
		must(t, d.Close())
		if got := d.Stats().Flushes; got != c.atClose {
			t.Errorf("%v: %d flushes after Close, want %d", c.p, got, c.atClose)
		}
		if d.Policy() != c.p {
			t.Errorf("Policy() = %v", d.Policy())
		}
	}
	d, err := Open(path, Options{Write: true, Sync: SyncNone})
	must(t, err)
	must(t, d.Sync())
	if d.Stats().Flushes != 1 {
		t.Error("Sync did not count a flush")
	}
	must(t, d.Close())
}

func TestZeroFile(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "z.img")
		must(t, os.WriteFile(path, bytes.Repeat([]byte{0xff}, 1<<20), 0o644))
		d, err := Open(path, Options{Write: true, Buffered: buffered, Sync: SyncClose})
		must(t, err)
		must(t, d.Zero(1000, 300000))
		must(t, d.Zero(5, 3)) // smaller than a block
		st := d.Stats()
		must(t, d.Close())
		if st.ZeroRequests < 1 || st.ZeroBytes < 290000 {
			t.Errorf("buffered=%v: zero stats %d requests %d bytes", buffered, st.ZeroRequests, st.ZeroBytes)
		}
		disk, _ := os.ReadFile(path)
		for i, c := range disk {
			in := i >= 1000 && i < 301000 || i >= 5 && i < 8
			if in && c != 0 || !in && c != 0xff {
				t.Fatalf("buffered=%v: byte %d = %#x", buffered, i, c)
			}
		}
	}
}
