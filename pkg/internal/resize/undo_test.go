package resize

import (
	"bytes"
	"errors"
	"testing"
)

func TestUndoRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	u := NewUndoWriter(&buf)
	recs := map[int64][]byte{0: bytes.Repeat([]byte{1}, 512), 4096: []byte("dir"), 100: {}}
	for _, off := range []int64{0, 4096, 100} {
		if err := u.Record(off, recs[off]); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	vol := make([]byte, 8192)
	write := func(off int64, b []byte) error { copy(vol[off:], b); return nil }
	n, err := ApplyUndo(bytes.NewReader(file), int64(len(vol)), write)
	if err != nil || n != 2 {
		t.Fatalf("ApplyUndo: %d records, %v; want 2", n, err)
	}
	if !bytes.Equal(vol[:512], recs[0]) || string(vol[4096:4099]) != "dir" {
		t.Fatal("the records were not written back")
	}
	for _, tc := range []struct {
		name string
		file []byte
		size int64
	}{
		{"cut short", file[:len(file)-20], 8192},
		{"no end record", file[:len(file)-16], 8192},
		{"altered", append(append([]byte(nil), file[:40]...), append([]byte{file[40] ^ 1}, file[41:]...)...), 8192},
		{"not an undo file", []byte("hello"), 8192},
		{"past the volume", file, 1024},
	} {
		wrote := false
		_, err := ApplyUndo(bytes.NewReader(tc.file), tc.size, func(int64, []byte) error { wrote = true; return nil })
		if !errors.Is(err, ErrBadUndo) || wrote {
			t.Errorf("%s: %v (wrote %v), want ErrBadUndo and nothing written", tc.name, err, wrote)
		}
	}
}

// A record larger than ApplyUndo's piece is written back in pieces, each
// at its offset, the bytes whole.
func TestUndoLargeRecordInPieces(t *testing.T) {
	var buf bytes.Buffer
	u := NewUndoWriter(&buf)
	rec := make([]byte, 2*undoChunk+100)
	for i := range rec {
		rec[i] = byte(i * 7)
	}
	if err := u.Record(10, rec); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	vol := make([]byte, len(rec)+10)
	var writes []int
	n, err := ApplyUndo(bytes.NewReader(buf.Bytes()), int64(len(vol)), func(off int64, b []byte) error {
		writes = append(writes, len(b))
		copy(vol[off:], b)
		return nil
	})
	if err != nil || n != 1 || !bytes.Equal(vol[10:], rec) || len(writes) != 3 || writes[0] != undoChunk {
		t.Fatalf("ApplyUndo: %d records, %v, writes %v", n, err, writes)
	}
}
