package io

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The portable fallback (os.File, buffered, no cheap zeroing), which Open
// uses off Linux, reads, writes, zeros and flushes an odd-sized image
// file correctly; it runs here on Linux through openOSFile.
func TestOSFileFallback(t *testing.T) {
	path, shadow := newImage(t, t.TempDir(), 3<<20+100)
	d, err := openOSFile(path, Options{Write: true, Sync: SyncClose, IOSize: 64 << 10})
	must(t, err)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		n := 1 + rng.IntN(20000)
		off := rng.Int64N(int64(len(shadow)) - int64(n))
		p := make([]byte, n)
		fill(rng, p)
		_, err := d.WriteAt(p, off)
		must(t, err)
		copy(shadow[off:], p)
	}
	// Zeroing falls back to writing zeros, across IOSize pieces.
	must(t, d.Zero(1000, 200000))
	clear(shadow[1000 : 1000+200000])
	// The unaligned tail up to the end of the file.
	tail := make([]byte, 150)
	_, err = d.ReadAt(tail, int64(len(shadow)-150))
	must(t, err)
	if !bytes.Equal(tail, shadow[len(shadow)-150:]) {
		t.Fatal("tail read differs from shadow")
	}
	if _, err := d.ReadAt(tail, int64(len(shadow)-100)); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("read past the end: %v", err)
	}
	all := make([]byte, len(shadow))
	_, err = d.ReadAt(all, 0)
	must(t, err)
	if !bytes.Equal(all, shadow) {
		t.Fatal("whole read differs from shadow")
	}
	must(t, d.Close())
	disk, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(disk, shadow) {
		t.Fatal("file contents differ from shadow")
	}
	st := d.Stats()
	if st.Direct || st.Align != 1 || !strings.Contains(st.Fallback, "no direct I/O") ||
		st.ZeroRequests != 0 || st.Flushes != 1 || d.SectorSize() != 512 || d.DiskSize() != int64(len(shadow)) {
		t.Errorf("stats %+v, sector size %d, disk size %d", st, d.SectorSize(), d.DiskSize())
	}
}

// The fallback opened read-only refuses writes and never flushes.
func TestOSFileFallbackReadOnly(t *testing.T) {
	path, shadow := newImage(t, t.TempDir(), 8192)
	d, err := openOSFile(path, Options{Buffered: true, Sync: SyncClose})
	must(t, err)
	if _, err := d.WriteAt([]byte("x"), 0); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write on a read-only device: %v", err)
	}
	got := make([]byte, 512)
	_, err = d.ReadAt(got, 4096)
	must(t, err)
	if !bytes.Equal(got, shadow[4096:4608]) {
		t.Fatal("read differs")
	}
	must(t, d.Close())
	if st := d.Stats(); st.Flushes != 0 || st.Fallback != "" {
		t.Errorf("stats %+v", st)
	}
}

// The fallback opens regular files only: no block device, no directory.
func TestOSFileFallbackRefuses(t *testing.T) {
	dir := t.TempDir()
	path, _ := newImage(t, dir, 4096)
	must(t, statOSImage(path))
	if err := statOSImage(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := statOSImage(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if err := statOSImage(os.DevNull); err == nil || !strings.Contains(err.Error(), "Linux only") {
		t.Errorf("device: %v", err)
	}
}
