package io

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syncCounter is a caller's storage that counts its flushes.
type syncCounter struct {
	b     []byte
	syncs int
}

func (s *syncCounter) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(s.b).ReadAt(p, off)
}
func (s *syncCounter) WriteAt(p []byte, off int64) (int, error) { return copy(s.b[off:], p), nil }
func (s *syncCounter) Sync() error                              { s.syncs++; return nil }

// A Device over a caller's ReaderAt reads it and refuses every change
// (ErrReadOnly), never touching it; one over a ReaderAt+WriterAt writes it
// and flushes through its Sync at Close (the default policy); one over a
// []byte changes the slice in place; one over an *os.File writes the file
// and leaves it open. None closes what the caller brought.
func TestSourceDevices(t *testing.T) {
	img := bytes.Repeat([]byte{0xAB}, 8192)
	r, err := NewReaderDevice(bytes.NewReader(img), int64(len(img)), SourceOptions{})
	must(t, err)
	if r.Writable() || r.Size() != 8192 || r.Path() != "reader" {
		t.Errorf("reader device: writable %v, size %d, path %q", r.Writable(), r.Size(), r.Path())
	}
	buf := make([]byte, 100)
	if _, err := r.ReadAt(buf, 8000); err != nil || buf[0] != 0xAB {
		t.Errorf("ReadAt: %v", err)
	}
	if _, err := r.WriteAt([]byte("x"), 0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("WriteAt on a reader: %v, want ErrReadOnly", err)
	}
	if err := r.Zero(0, 512); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Zero on a reader: %v, want ErrReadOnly", err)
	}
	must(t, r.Close())
	if img[0] != 0xAB {
		t.Error("the reader's bytes changed")
	}

	// A size larger than the reader holds: the read past its end fails.
	short, err := NewReaderDevice(bytes.NewReader(img[:1000]), 4096, SourceOptions{Name: "short"})
	must(t, err)
	if _, err := short.ReadAt(buf, 2000); err == nil || !strings.Contains(err.Error(), "short") {
		t.Errorf("read past the reader's end: %v", err)
	}

	sc := &syncCounter{b: make([]byte, 4096)}
	rw, err := NewReadWriterDevice(sc, 4096, SourceOptions{})
	must(t, err)
	_, err = rw.WriteAt([]byte("hello"), 100)
	must(t, err)
	must(t, rw.Close())
	if string(sc.b[100:105]) != "hello" || sc.syncs != 1 {
		t.Errorf("storage: %q, %d syncs, want hello and 1", sc.b[100:105], sc.syncs)
	}

	mem := make([]byte, 4096)
	m, err := NewBytesDevice(mem, SourceOptions{})
	must(t, err)
	_, err = m.WriteAt([]byte("mem"), 10)
	must(t, err)
	must(t, m.Zero(0, 11))
	_, err = m.WriteAt([]byte("mem"), 20)
	must(t, err)
	must(t, m.Close())
	if string(mem[20:23]) != "mem" || mem[10] != 0 {
		t.Errorf("the slice was not written in place: %q", mem[:24])
	}

	path := filepath.Join(t.TempDir(), "f.img")
	must(t, os.WriteFile(path, make([]byte, 4096), 0o644))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	ro, err := NewFileDevice(f, false, SourceOptions{})
	must(t, err)
	if _, err := ro.WriteAt([]byte("x"), 0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("WriteAt on a read-only file device: %v", err)
	}
	must(t, ro.Close())
	fd, err := NewFileDevice(f, true, SourceOptions{})
	must(t, err)
	if fd.Path() != path || fd.Size() != 4096 {
		t.Errorf("file device: path %q, size %d", fd.Path(), fd.Size())
	}
	_, err = fd.WriteAt([]byte("file"), 4000)
	must(t, err)
	must(t, fd.Close())
	if fd.Stats().Flushes != 1 {
		t.Errorf("%d flushes at Close, want 1", fd.Stats().Flushes)
	}
	got := make([]byte, 4)
	if _, err := f.ReadAt(got, 4000); err != nil || string(got) != "file" {
		t.Errorf("the caller's file after Close: %q, %v", got, err)
	}

	for name, err := range map[string]error{
		"nil reader":  func() error { _, err := NewReaderDevice(nil, 1, SourceOptions{}); return err }(),
		"nil storage": func() error { _, err := NewReadWriterDevice(nil, 1, SourceOptions{}); return err }(),
		"nil file":    func() error { _, err := NewFileDevice(nil, false, SourceOptions{}); return err }(),
		"negative":    func() error { _, err := NewReaderDevice(bytes.NewReader(nil), -1, SourceOptions{}); return err }(),
		"sector size": func() error { _, err := NewBytesDevice(mem, SourceOptions{SectorSize: 1000}); return err }(),
		"sync policy": func() error { _, err := NewBytesDevice(mem, SourceOptions{Sync: SyncAlways + 1}); return err }(),
		"io size":     func() error { _, err := NewBytesDevice(mem, SourceOptions{IOSize: -1}); return err }(),
		"a directory": func() error {
			d, _ := os.Open(t.TempDir())
			defer d.Close()
			_, err := NewFileDevice(d, false, SourceOptions{})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A writable device that a volume holds refuses Close (ErrInUse, naming
// the holder) and stays usable; once released it closes. A read-only one
// closes while held: nothing of the holder's waits to be written.
func TestHoldRefusesClose(t *testing.T) {
	d := NewMemDevice(4096, 512)
	release, err := d.Hold("the open FAT16 volume")
	must(t, err)
	if err := d.Close(); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "FAT16 volume") {
		t.Fatalf("Close while held: %v, want ErrInUse naming the holder", err)
	}
	if _, err := d.WriteAt([]byte("still"), 0); err != nil {
		t.Fatalf("write after the refused Close: %v", err)
	}
	release()
	release() // once only
	must(t, d.Close())
	if _, err := d.Hold("late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Hold on a closed device: %v", err)
	}

	r, err := NewReaderDevice(bytes.NewReader(make([]byte, 4096)), 4096, SourceOptions{})
	must(t, err)
	if _, err := r.Hold("reader"); err != nil {
		t.Fatal(err)
	}
	must(t, r.Close())
	if !r.Closed() {
		t.Error("Closed() false after Close")
	}
}
