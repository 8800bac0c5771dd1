package resize

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// An undo file holds the bytes a resize that is not crash-safe is about
// to overwrite, so that the old volume can be put back after a cut: a
// header, records (byte offset on the volume, length, the bytes, their
// CRC32), and an end record with the count; a file cut short or altered
// is refused whole.
const undoMagic = "ftools resize undo 1\n"

// maxUndoRecord bounds one record's bytes, so a damaged file cannot make
// ApplyUndo allocate without bound.
const maxUndoRecord = 64 << 20

// ErrBadUndo says an undo file is incomplete or damaged.
var ErrBadUndo = errors.New("resize: the undo file is incomplete or damaged")

// UndoWriter writes an undo file.
type UndoWriter struct {
	w   *bufio.Writer
	dst io.Writer
	n   uint64
	err error
}

// NewUndoWriter starts an undo file on w.
func NewUndoWriter(w io.Writer) *UndoWriter {
	u := &UndoWriter{w: bufio.NewWriterSize(w, 1<<20), dst: w}
	_, u.err = u.w.WriteString(undoMagic)
	return u
}

// Record saves b, the bytes at volume offset off now, in records of at
// most maxUndoRecord bytes.
func (u *UndoWriter) Record(off int64, b []byte) error {
	for len(b) > 0 && u.err == nil {
		n := min(len(b), maxUndoRecord)
		var h [16]byte
		binary.LittleEndian.PutUint64(h[:], uint64(off))
		binary.LittleEndian.PutUint32(h[8:], uint32(n))
		binary.LittleEndian.PutUint32(h[12:], crc32.ChecksumIEEE(b[:n]))
		if _, u.err = u.w.Write(h[:]); u.err == nil {
			_, u.err = u.w.Write(b[:n])
		}
		u.n++
		off += int64(n)
		b = b[n:]
	}
	return u.err
}

// Close writes the end record and flushes; when the destination can Sync
// (a file), it is synced, so that the undo is durable before the writes
// it guards.
func (u *UndoWriter) Close() error {
	if u.err != nil {
		return u.err
	}
	var h [16]byte
	binary.LittleEndian.PutUint64(h[:], ^uint64(0))
	binary.LittleEndian.PutUint64(h[8:], u.n)
	if _, err := u.w.Write(h[:]); err != nil {
		return err
	}
	if err := u.w.Flush(); err != nil {
		return err
	}
	if s, ok := u.dst.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// ApplyUndo reads the undo file r whole, checking every record, and only
// then writes each record's bytes back with write; it returns the number
// of records applied.
func ApplyUndo(r io.Reader, size int64, write func(off int64, b []byte) error) (int, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(undoMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != undoMagic {
		return 0, fmt.Errorf("%w: it does not start as an undo file does", ErrBadUndo)
	}
	type rec struct {
		off int64
		b   []byte
	}
	var recs []rec
	for {
		var h [16]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return 0, fmt.Errorf("%w: it ends after %d records, without its end record", ErrBadUndo, len(recs))
		}
		off := binary.LittleEndian.Uint64(h[:])
		if off == ^uint64(0) {
			if n := binary.LittleEndian.Uint64(h[8:]); n != uint64(len(recs)) {
				return 0, fmt.Errorf("%w: its end record counts %d records, it holds %d", ErrBadUndo, n, len(recs))
			}
			break
		}
		n := binary.LittleEndian.Uint32(h[8:])
		if n > maxUndoRecord || int64(off) < 0 || int64(off)+int64(n) > size {
			return 0, fmt.Errorf("%w: record %d (%d bytes at byte %d) does not fit the %d-byte volume", ErrBadUndo, len(recs)+1, n, off, size)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil || crc32.ChecksumIEEE(b) != binary.LittleEndian.Uint32(h[12:]) {
			return 0, fmt.Errorf("%w: record %d (%d bytes at byte %d) is cut short or altered", ErrBadUndo, len(recs)+1, n, off)
		}
		recs = append(recs, rec{int64(off), b})
	}
	for i, r := range recs {
		if err := write(r.off, r.b); err != nil {
			return i, err
		}
	}
	return len(recs), nil
}
