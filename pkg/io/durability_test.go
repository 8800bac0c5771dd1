package io

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/ftools/ftools/pkg/io/writelog"
)

// Barrier flushes under close and file when something was written since
// the last flush, and never under none and always; under always a
// zeroing call flushes by itself (O_DSYNC does not cover it), and Close
// flushes.
func TestBarrierPolicies(t *testing.T) {
	path, _ := newImage(t, t.TempDir(), 256<<10)
	for _, c := range []struct {
		p                          SyncPolicy
		barrier, zero, atClose     int64
		barrierAfterZero, afterAll int64
	}{
		{SyncNone, 0, 0, 0, 0, 0},
		{SyncClose, 1, 1, 2, 2, 3},
		{SyncFile, 1, 1, 2, 2, 3},
		{SyncAlways, 0, 1, 1, 1, 2},
	} {
		t.Run(c.p.String(), func(t *testing.T) {
			d, err := Open(path, Options{Write: true, Sync: c.p, Buffered: true})
			must(t, err)
			must(t, d.Barrier())
			if got := d.Stats().Flushes; got != 0 {
				t.Fatalf("a barrier with nothing written flushed %d times", got)
			}
			_, err = d.WriteAt([]byte("data"), 10)
			must(t, err)
			must(t, d.Barrier())
			must(t, d.Barrier())
			if got := d.Stats().Flushes; got != c.barrier {
				t.Errorf("after a write and two barriers: %d flushes, want %d", got, c.barrier)
			}
			must(t, d.Zero(64<<10, 64<<10))
			if got := d.Stats().Flushes; got != c.zero {
				t.Errorf("after a zeroing call: %d flushes, want %d", got, c.zero)
			}
			must(t, d.Barrier())
			if got := d.Stats().Flushes; got != c.barrierAfterZero {
				t.Errorf("after a barrier following the zeroing: %d flushes, want %d", got, c.barrierAfterZero)
			}
			must(t, d.Close())
			if got := d.Stats().Flushes; got != c.afterAll {
				t.Errorf("after Close: %d flushes, want %d", got, c.afterAll)
			}
		})
	}
}

// failReads is a backend whose next reads fail.
type failReads struct {
	backend
	fail int
}

func (f *failReads) ReadAt(p []byte, off int64) (int, error) {
	if f.fail > 0 {
		f.fail--
		return 0, syscall.EIO
	}
	return f.backend.ReadAt(p, off)
}

// A stream whose head read fails keeps no buffer: the next write starts
// over, so the stale head never lands on the neighbour's bytes.
func TestStreamHeadReadFailure(t *testing.T) {
	fb := &fakeBackend{memBackend: memBackend{data: make([]byte, 1<<20)}, t: t, align: 4096, bufAlign: 4096}
	copy(fb.data, bytes.Repeat([]byte{9}, 1<<20))
	fr := &failReads{backend: fb, fail: 1}
	d := newDevice(fr, "fake", 1<<20, 512, 4096, 1<<16, true, true, SyncNone)
	s := d.NewStream()
	if err := s.Write(5000, []byte{1, 2, 3}); err == nil {
		t.Fatal("the head read failed, but Write did not")
	}
	must(t, s.Write(5000, []byte{1, 2, 3}))
	must(t, s.Close())
	if want := bytes.Repeat([]byte{9}, 5000-4096); !bytes.Equal(fb.data[4096:5000], want) {
		t.Fatalf("the bytes before the write in its block changed: %v", fb.data[4096:4110])
	}
	if !bytes.Equal(fb.data[5000:5003], []byte{1, 2, 3}) {
		t.Fatalf("the write did not land: %v", fb.data[5000:5003])
	}
}

// A stream starting inside the last, partial block of an odd-sized device
// reads only the bytes the device has, as the tail read does.
func TestStreamOddSizedHead(t *testing.T) {
	d, fb := newFake(t, 65536+100, 4096, 1<<16)
	copy(fb.data, bytes.Repeat([]byte{9}, len(fb.data)))
	s := d.NewStream()
	must(t, s.Write(65536+10, []byte{1, 2, 3}))
	must(t, s.Close())
	if !bytes.Equal(fb.data[65536+10:65536+13], []byte{1, 2, 3}) || fb.data[65536+9] != 9 || fb.data[65536+13] != 9 {
		t.Fatalf("tail block now %v", fb.data[65536:65536+20])
	}
}

// ReadAt reads the alignments that the fallback to buffered I/O changes
// under the lock the fallback holds. Run with -race (scripts/test does):
// readers spin on aligned direct reads while another goroutine switches
// the alignments under the lock, as Device.call does when O_DIRECT is
// refused.
func TestReadAtDuringFallback(t *testing.T) {
	d, _ := newFake(t, 1<<20, 4096, 1<<16)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := alignedBuf(4096, 4096)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := d.ReadAt(buf, 8192); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 2000 {
		d.mu.Lock()
		if i%2 == 0 {
			d.align, d.bufAlign = 1, 1
		} else {
			d.align, d.bufAlign = 4096, 4096
		}
		d.mu.Unlock()
	}
	close(stop)
	wg.Wait()
}

// Record logs every completed write, zeroing call and flush with absolute
// offsets, and the device's close.
func TestRecord(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log")
	l, err := writelog.Create(logPath)
	must(t, err)
	d := NewMemDevice(1<<20, 512)
	d.start, d.size = 4096, 1<<20-4096 // a volume at an offset
	must(t, d.Record(l))
	_, err = d.WriteAt([]byte("hello"), 100)
	must(t, err)
	must(t, d.Zero(8192, 8192))
	must(t, d.Sync())
	must(t, d.Close())
	recs, err := writelog.ReadFile(logPath)
	must(t, err)
	var got []string
	for _, r := range recs {
		switch r.Kind {
		case writelog.KindWrite:
			got = append(got, fmt.Sprintf("W %d %s", r.Off, r.Data))
		case writelog.KindZero:
			got = append(got, fmt.Sprintf("Z %d %d", r.Off, r.N))
		default:
			got = append(got, r.Kind.String())
		}
	}
	if want := []string{"open", "W 4196 hello", "Z 12288 8192", "flush", "close"}; !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
}

// With FTOOLS_WRITE_LOG set, Open records every writable device under its
// absolute path, and read-only ones not at all; every write of an O_DSYNC
// device is followed by a flush in its ops.
func TestEnvWriteLog(t *testing.T) {
	dir := t.TempDir()
	path, _ := newImage(t, dir, 64<<10)
	logPath := filepath.Join(dir, "write.log")
	t.Setenv(EnvWriteLog, logPath)
	t.Chdir(dir)
	for _, p := range []SyncPolicy{SyncClose, SyncAlways} {
		d, err := Open(filepath.Base(path), Options{Write: true, Sync: p})
		must(t, err)
		_, err = d.WriteAt([]byte("x"), 513)
		must(t, err)
		must(t, d.Close())
	}
	r, err := Open(path, Options{})
	must(t, err)
	must(t, r.Close())
	recs, err := writelog.ReadFile(logPath)
	must(t, err)
	opens := 0
	for _, rec := range recs {
		if rec.Kind == writelog.KindOpen {
			opens++
			if rec.Path != path || rec.N != 64<<10 {
				t.Errorf("open record for %q of %d bytes, want %q and %d", rec.Path, rec.N, path, 64<<10)
			}
		}
	}
	if opens != 2 {
		t.Fatalf("%d devices recorded, want the 2 writable ones", opens)
	}
	ops, err := writelog.Ops(recs, path)
	must(t, err)
	// close: write, flush (Close); always: write, flush (O_DSYNC), flush (Close).
	var kinds []writelog.Kind
	for _, o := range ops {
		kinds = append(kinds, o.Kind)
	}
	want := []writelog.Kind{writelog.KindWrite, writelog.KindFlush, writelog.KindWrite, writelog.KindFlush, writelog.KindFlush}
	if !slices.Equal(kinds, want) {
		t.Fatalf("ops %v, want %v", kinds, want)
	}
	if _, err := writelog.Ops(recs, "/elsewhere"); !errors.Is(err, writelog.ErrNoDevice) {
		t.Fatalf("ops of an image not in the log: %v", err)
	}
}
