package io

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ftools/ftools/pkg/io/writelog"
)

// allocated is the bytes the file system holds for the file at path.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	must(t, syscall.Stat(path, &st))
	return st.Blocks * 512
}

// fullImage is an image file of n bytes of 0xA5, every block allocated.
func fullImage(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "img")
	must(t, os.WriteFile(p, bytes.Repeat([]byte{0xA5}, n), 0o644))
	return p
}

// Discard punches a hole in an image file: the range's blocks go back to
// the file system and read as zeros; the bytes around it stay; secure
// discard, which a file has not, is refused with nothing done; a
// read-only device refuses it.
func TestDiscardImageFile(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		p := fullImage(t, 4<<20)
		before := allocated(t, p)
		d, err := Open(p, Options{Write: true, Buffered: buffered, Sync: SyncClose})
		must(t, err)
		if _, err := d.Discard(1<<20, 1<<20, true); !errors.Is(err, ErrDiscardUnsupported) {
			t.Fatalf("secure discard of a file: %v", err)
		}
		n, err := d.Discard(1<<20+100, 1<<20, false) // narrowed to whole sectors
		must(t, err)
		if n != 1<<20-512 {
			t.Errorf("discarded %d bytes, want %d", n, 1<<20-512)
		}
		st := d.Stats()
		if st.DiscardRequests != 1 || st.DiscardBytes != n {
			t.Errorf("stats: %d discards of %d bytes", st.DiscardRequests, st.DiscardBytes)
		}
		must(t, d.Close())
		got, err := os.ReadFile(p)
		must(t, err)
		s := 1<<20 + 512 // the first whole sector at or after byte 1 MiB + 100
		e := s + int(n)
		if !bytes.Equal(got[s:e], make([]byte, e-s)) {
			t.Errorf("the discarded range does not read as zeros")
		}
		if !bytes.Equal(got[:s], bytes.Repeat([]byte{0xA5}, s)) || !bytes.Equal(got[e:], bytes.Repeat([]byte{0xA5}, len(got)-e)) {
			t.Errorf("bytes outside the discarded range changed")
		}
		if after := allocated(t, p); before-after < 1<<20-8192 {
			t.Errorf("buffered %v: allocation went from %d to %d bytes: the hole was not punched", buffered, before, after)
		}
	}
	p := fullImage(t, 1<<20)
	d, err := Open(p, Options{})
	must(t, err)
	defer d.Close()
	if _, err := d.Discard(0, 4096, false); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only device: %v", err)
	}
}

// The portable backend punches too on Linux; a memory device reads zeros.
func TestDiscardOSFileAndMemory(t *testing.T) {
	p := fullImage(t, 1<<20)
	d, err := openOSFile(p, Options{Write: true})
	must(t, err)
	if _, err := d.Discard(0, 1<<19, false); err != nil {
		t.Fatal(err)
	}
	must(t, d.Close())
	got, err := os.ReadFile(p)
	must(t, err)
	if !bytes.Equal(got[:1<<19], make([]byte, 1<<19)) {
		t.Errorf("osFile: not punched")
	}
	m := NewMemDevice(1<<16, 512)
	_, err = m.WriteAt(bytes.Repeat([]byte{1}, 1<<16), 0)
	must(t, err)
	n, err := m.Discard(512, 1024, false)
	must(t, err)
	b := make([]byte, 2048)
	_, err = m.ReadAt(b, 0)
	must(t, err)
	if n != 1024 || b[511] != 1 || b[512] != 0 || b[1535] != 0 || b[1536] != 1 {
		t.Errorf("memory discard: %d bytes, %v", n, b[510:514])
	}
}

// loggedOps reads the ops the log at logPath holds for the image at p.
func loggedOps(t *testing.T, logPath, p string) []writelog.Op {
	t.Helper()
	recs, err := writelog.ReadFile(logPath)
	must(t, err)
	abs, _ := filepath.Abs(p)
	ops, err := writelog.Ops(recs, abs)
	must(t, err)
	return ops
}

// The write log records a discard with its absolute range, and Ops hands
// it to Replay.
func TestDiscardRecorded(t *testing.T) {
	p := fullImage(t, 1<<20)
	logPath := filepath.Join(t.TempDir(), "log")
	l, err := writelog.Create(logPath)
	must(t, err)
	// SyncNone: no flush at Close, so the discard is the one op.
	d, err := Open(p, Options{Write: true, Offset: 4096, Force: true, Sync: SyncNone})
	must(t, err)
	must(t, d.Record(l))
	_, err = d.Discard(8192, 65536, false)
	must(t, err)
	must(t, d.Close())
	ops := loggedOps(t, logPath, p)
	if len(ops) != 1 || ops[0].Kind != writelog.KindDiscard || ops[0].Off != 4096+8192 || ops[0].N != 65536 {
		t.Fatalf("ops %+v", ops)
	}
}

// On a loop device Discard issues BLKDISCARD, which the loop driver
// passes to the backing file as a punched hole.
func TestDiscardLoopDevice(t *testing.T) {
	img := fullImage(t, 8<<20)
	dev := losetup(t, img)
	noMounts := mountsFile(t, "proc /proc proc rw 0 0")
	before := allocated(t, img)
	d, err := Open(dev, Options{Write: true, MountsFile: noMounts, Sync: SyncClose})
	must(t, err)
	n, err := d.Discard(1<<20, 4<<20, false)
	must(t, err)
	if n != 4<<20 {
		t.Errorf("discarded %d bytes", n)
	}
	must(t, d.Close())
	if after := allocated(t, img); before-after < 4<<20-65536 {
		t.Errorf("backing file allocation went from %d to %d bytes", before, after)
	}
}

// DiscardAll flushes what was written before it, whatever the policy,
// then discards the whole window; a secure discard a file cannot do is reported, not an error,
// and leaves the bytes.
func TestDiscardAllOrder(t *testing.T) {
	for _, pol := range []SyncPolicy{SyncNone, SyncClose} {
		p := fullImage(t, 1<<20)
		logPath := filepath.Join(t.TempDir(), "log")
		l, err := writelog.Create(logPath)
		must(t, err)
		d, err := Open(p, Options{Write: true, Sync: pol})
		must(t, err)
		must(t, d.Record(l))
		_, err = d.WriteAt(make([]byte, 512), 0)
		must(t, err)
		res, err := DiscardAll(d, false)
		must(t, err)
		if res.Bytes != 1<<20 || !res.Punched || res.Unsupported {
			t.Errorf("%v: %+v", pol, res)
		}
		must(t, d.Close())
		ops := loggedOps(t, logPath, p)
		var kinds string
		for _, o := range ops {
			kinds += string(o.Kind)
		}
		if want := "WFD"; !strings.HasPrefix(kinds, want) { // Close may flush
			t.Errorf("%v: ops %q, want %q first", pol, kinds, want)
		}
	}
	p := fullImage(t, 1<<20)
	d, err := Open(p, Options{Write: true})
	must(t, err)
	res, err := DiscardAll(d, true)
	must(t, err)
	must(t, d.Close())
	got, _ := os.ReadFile(p)
	if !res.Unsupported || res.Bytes != 0 || got[4096] != 0xA5 {
		t.Errorf("secure discard of a file: %+v, byte %#x", res, got[4096])
	}
}
