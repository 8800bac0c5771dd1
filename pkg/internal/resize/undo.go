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

// ApplyUndo reads the undo file r through, checking every record, and
// only then, reading it again from the start, writes each record's bytes
// back with write, a piece of at most undoChunk bytes at a time (memory
// stays bounded whatever the file's size); it returns the number of
// records applied.
func ApplyUndo(r io.ReadSeeker, size int64, write func(off int64, b []byte) error) (int, error) {
	n, err := undoRecords(r, size, func(int64, io.Reader, uint32) error { return nil })
	if err != nil {
		return 0, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("resize: reading the undo file again: %w", err)
	}
	buf := make([]byte, undoChunk)
	applied := 0
	_, err = undoRecords(r, size, func(off int64, rec io.Reader, n uint32) error {
		for n > 0 {
			b := buf[:min(n, undoChunk)]
			if _, err := io.ReadFull(rec, b); err != nil {
				return fmt.Errorf("%w: it changed while it was applied", ErrBadUndo)
			}
			if err := write(off, b); err != nil {
				return err
			}
			off += int64(len(b))
			n -= uint32(len(b))
		}
		applied++
		return nil
	})
	if err != nil {
		return applied, err
	}
	return n, nil
}

// undoChunk is how much of a record ApplyUndo holds at a time.
const undoChunk = 1 << 20

// undoRecords reads an undo file through, handing each record's offset,
// bytes (as a reader of n bytes, read whole or not) and length to fn, and
// checks each record's CRC once fn is done with it, and the end record's
// count; it returns the number of records.
func undoRecords(r io.Reader, size int64, fn func(off int64, rec io.Reader, n uint32) error) (int, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(undoMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != undoMagic {
		return 0, fmt.Errorf("%w: it does not start as an undo file does", ErrBadUndo)
	}
	count := 0
	for {
		var h [16]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return 0, fmt.Errorf("%w: it ends after %d records, without its end record", ErrBadUndo, count)
		}
		off := binary.LittleEndian.Uint64(h[:])
		if off == ^uint64(0) {
			if n := binary.LittleEndian.Uint64(h[8:]); n != uint64(count) {
				return 0, fmt.Errorf("%w: its end record counts %d records, it holds %d", ErrBadUndo, n, count)
			}
			return count, nil
		}
		n := binary.LittleEndian.Uint32(h[8:])
		if n > maxUndoRecord || int64(off) < 0 || int64(off)+int64(n) > size {
			return 0, fmt.Errorf("%w: record %d (%d bytes at byte %d) does not fit the %d-byte volume", ErrBadUndo, count+1, n, off, size)
		}
		sum := crc32.NewIEEE()
		lr := &io.LimitedReader{R: br, N: int64(n)}
		rec := io.TeeReader(lr, sum)
		if err := fn(int64(off), rec, n); err != nil {
			return 0, err
		}
		if _, err := io.Copy(io.Discard, rec); err != nil || lr.N != 0 || sum.Sum32() != binary.LittleEndian.Uint32(h[12:]) {
			return 0, fmt.Errorf("%w: record %d (%d bytes at byte %d) is cut short or altered", ErrBadUndo, count+1, n, off)
		}
		count++
	}
}
