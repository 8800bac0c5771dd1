package resize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestUndoRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	u := NewUndoWriter(&buf, testTarget())
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
	n, err := ApplyUndo(bytes.NewReader(file), int64(len(vol)), noCheck, write)
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
		_, err := ApplyUndo(bytes.NewReader(tc.file), tc.size, noCheck, func(int64, []byte) error { wrote = true; return nil })
		if !errors.Is(err, ErrBadUndo) || wrote {
			t.Errorf("%s: %v (wrote %v), want ErrBadUndo and nothing written", tc.name, err, wrote)
		}
	}
}

// A record larger than ApplyUndo's piece is written back in pieces, each
// at its offset, the bytes whole.
func TestUndoLargeRecordInPieces(t *testing.T) {
	var buf bytes.Buffer
	u := NewUndoWriter(&buf, testTarget())
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
	n, err := ApplyUndo(bytes.NewReader(buf.Bytes()), int64(len(vol)), noCheck, func(off int64, b []byte) error {
		writes = append(writes, len(b))
		copy(vol[off:], b)
		return nil
	})
	if err != nil || n != 1 || !bytes.Equal(vol[10:], rec) || len(writes) != 3 || writes[0] != undoChunk {
		t.Fatalf("ApplyUndo: %d records, %v, writes %v", n, err, writes)
	}
}

func noCheck(*UndoTarget) error { return nil }

func testTarget() *UndoTarget {
	old := bytes.Repeat([]byte{0xA0}, 512)
	nw := bytes.Repeat([]byte{0xA0}, 512)
	nw[32] = 0x55
	return &UndoTarget{Start: 1 << 20, Size: 64 << 20, DirtyOff: 37, DirtyMask: 1, OldBoot: old, NewBoot: nw}
}

// An undo file names the volume it belongs to; ApplyUndo hands that to
// check before it writes anything, and Check accepts only that volume,
// with its old boot sector (dirty or not), or its new one with force.
func TestUndoTargetChecked(t *testing.T) {
	var buf bytes.Buffer
	want := testTarget()
	u := NewUndoWriter(&buf, want)
	if err := u.Record(0, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	wrote := false
	var got *UndoTarget
	_, err := ApplyUndo(bytes.NewReader(buf.Bytes()), 1<<20, func(ut *UndoTarget) error { got = ut; return refuse },
		func(int64, []byte) error { wrote = true; return nil })
	if err != refuse || wrote || got == nil || got.Start != want.Start || got.Size != want.Size ||
		!bytes.Equal(got.OldBoot, want.OldBoot) || !bytes.Equal(got.NewBoot, want.NewBoot) {
		t.Fatalf("ApplyUndo: %v, wrote %v, target %+v", err, wrote, got)
	}
	dirty := append([]byte(nil), want.OldBoot...)
	dirty[37] |= 1
	other := append([]byte(nil), want.OldBoot...)
	other[39] ^= 0xFF // another volume id
	for _, tc := range []struct {
		name        string
		start, size int64
		boot        []byte
		force, ok   bool
	}{
		{"old", 1 << 20, 64 << 20, want.OldBoot, false, true},
		{"old, dirty", 1 << 20, 64 << 20, dirty, false, true},
		{"new", 1 << 20, 64 << 20, want.NewBoot, false, false},
		{"new, forced", 1 << 20, 64 << 20, want.NewBoot, true, true},
		{"another volume", 1 << 20, 64 << 20, other, true, false},
		{"another start", 0, 64 << 20, want.OldBoot, true, false},
		{"another size", 1 << 20, 300 << 20, want.OldBoot, true, false},
		{"short boot", 1 << 20, 64 << 20, want.OldBoot[:100], true, false},
	} {
		err := want.Check(tc.start, tc.size, tc.boot, tc.force)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrUndoTarget) {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	// A file from before the header is refused, naming why.
	v1 := append([]byte(undoMagicV1), make([]byte, 16)...)
	_, err = ApplyUndo(bytes.NewReader(v1), 1<<20, noCheck, func(int64, []byte) error { return nil })
	if !errors.Is(err, ErrBadUndo) || !strings.Contains(err.Error(), "older fresize") {
		t.Errorf("a version 1 file: %v", err)
	}
}
