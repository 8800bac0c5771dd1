package io

import (
	"bytes"
	"errors"
	goio "io"
	"os"
	"path/filepath"
	"testing"
)

// ReadRegular reads a file as f.Read does: from its offset, in the pieces
// asked for, io.EOF at the end; a pipe the runtime polls waits for data.
func TestReadRegular(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 100000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	buf := make([]byte, 300000)
	for {
		n, err := ReadRegular(f, buf)
		got = append(got, buf[:n]...)
		if err == goio.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(data))
	}
	if n, err := ReadRegular(f, buf[:0]); n != 0 || err != nil {
		t.Fatalf("empty read: %d, %v", n, err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write([]byte("late"))
		w.Close()
	}()
	n, err := ReadRegular(r, buf)
	if err != nil || string(buf[:n]) != "late" {
		t.Fatalf("pipe: %q, %v", buf[:n], err)
	}
	if _, err := ReadRegular(r, buf); !errors.Is(err, goio.EOF) {
		t.Fatalf("pipe at its end: %v", err)
	}
	f.Close()
	if _, err := ReadRegular(f, buf); err == nil {
		t.Fatal("read of a closed file: no error")
	}
}
