package resize

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// An undo file holds the bytes a resize that is not crash-safe is about
// to overwrite, so that the old volume can be put back after a cut: a
// header (the magic, then the volume it belongs to: UndoTarget, with its
// CRC32), records (byte offset on the volume, length, the bytes, their
// CRC32), and an end record with the count; a file cut short or altered
// is refused whole. Version 1 files had no UndoTarget: they are refused,
// as nothing says which volume they belong to.
const (
	undoMagic   = "ftools resize undo 2\n"
	undoMagicV1 = "ftools resize undo 1\n"
)

// UndoTarget is the volume an undo file belongs to: where it starts and
// how large its window was on the device, and its boot sector before the
// resize and the one the resize writes last, both with the dirty bit
// (DirtyMask in the byte at DirtyOff) clear.
type UndoTarget struct {
	Start, Size      int64
	DirtyOff         uint32
	DirtyMask        byte
	OldBoot, NewBoot []byte
}

// maxUndoBoot bounds a boot sector in an undo file's header.
const maxUndoBoot = 4096

func (t *UndoTarget) encode() []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(t.Start))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Size))
	b = binary.LittleEndian.AppendUint32(b, t.DirtyOff)
	b = append(b, t.DirtyMask)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.OldBoot)))
	b = append(b, t.OldBoot...)
	b = append(b, t.NewBoot...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func readUndoTarget(r io.Reader) (*UndoTarget, error) {
	bad := fmt.Errorf("%w: its header (the volume it belongs to) is cut short or altered", ErrBadUndo)
	var h [25]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, bad
	}
	t := &UndoTarget{
		Start: int64(binary.LittleEndian.Uint64(h[:])), Size: int64(binary.LittleEndian.Uint64(h[8:])),
		DirtyOff: binary.LittleEndian.Uint32(h[16:]), DirtyMask: h[20],
	}
	n := binary.LittleEndian.Uint32(h[21:])
	if n == 0 || n > maxUndoBoot || t.DirtyOff >= n {
		return nil, bad
	}
	rest := make([]byte, 2*n+4)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, bad
	}
	sum := crc32.NewIEEE()
	sum.Write(h[:])
	sum.Write(rest[:2*n])
	if sum.Sum32() != binary.LittleEndian.Uint32(rest[2*n:]) {
		return nil, bad
	}
	t.OldBoot, t.NewBoot = rest[:n], rest[n:2*n]
	return t, nil
}

// ErrUndoTarget says the target is not the volume an undo file belongs
// to, in the state it can put back.
var ErrUndoTarget = errors.New("resize: the undo file does not belong to this volume as it stands")

// Check compares the target volume (where it starts, its window's size,
// and its boot sector, boot) with the one the undo file belongs to: it
// accepts the old boot sector (the resize was cut before it wrote the
// new one), dirty or not, and refuses anything else naming what
// differs; the new boot sector, which says the resize finished (and the
// volume may have been written since, which the undo would lose), only
// with force.
func (t *UndoTarget) Check(start, size int64, boot []byte, force bool) error {
	if start != t.Start {
		return fmt.Errorf("%w: it belongs to a volume at byte %d of its device, the target starts at byte %d; nothing was written", ErrUndoTarget, t.Start, start)
	}
	if size != t.Size {
		return fmt.Errorf("%w: it belongs to a %d-byte volume window, the target's is %d bytes; nothing was written", ErrUndoTarget, t.Size, size)
	}
	if len(boot) < len(t.OldBoot) {
		return fmt.Errorf("%w: the target's boot sector could not be read whole; nothing was written", ErrUndoTarget)
	}
	b := append([]byte(nil), boot[:len(t.OldBoot)]...)
	b[t.DirtyOff] &^= t.DirtyMask
	switch {
	case bytes.Equal(b, t.OldBoot):
		return nil
	case bytes.Equal(b, t.NewBoot):
		if force {
			return nil
		}
		return fmt.Errorf("%w: the target's boot sector is the new one the resize writes last: the resize finished, and the volume may have been written since, which putting the old one back would lose; nothing was written (--force puts it back all the same)", ErrUndoTarget)
	}
	for i := range b {
		if b[i] != t.OldBoot[i] {
			return fmt.Errorf("%w: the target's boot sector differs from the volume's before the resize at byte %d (%#02x, was %#02x) and is not the one the resize writes either: it is another volume; nothing was written", ErrUndoTarget, i, b[i], t.OldBoot[i])
		}
	}
	return fmt.Errorf("%w: nothing was written", ErrUndoTarget)
}

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

// NewUndoWriter starts an undo file on w for the volume t (its boot
// sectors at most maxUndoBoot bytes, of one length).
func NewUndoWriter(w io.Writer, t *UndoTarget) *UndoWriter {
	u := &UndoWriter{w: bufio.NewWriterSize(w, 1<<20), dst: w}
	if len(t.OldBoot) == 0 || len(t.OldBoot) > maxUndoBoot || len(t.NewBoot) != len(t.OldBoot) || int(t.DirtyOff) >= len(t.OldBoot) {
		u.err = errors.New("resize: the undo file's boot sectors are not one sector each")
		return u
	}
	if _, u.err = u.w.WriteString(undoMagic); u.err == nil {
		_, u.err = u.w.Write(t.encode())
	}
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
// records applied. check is handed the volume the file belongs to before
// anything is written: an error from it refuses the file.
func ApplyUndo(r io.ReadSeeker, size int64, check func(*UndoTarget) error, write func(off int64, b []byte) error) (int, error) {
	n, err := undoRecords(r, size, func(int64, io.Reader, uint32) error { return nil })
	if err != nil {
		return 0, err
	}
	if _, err := r.Seek(int64(len(undoMagic)), io.SeekStart); err != nil {
		return 0, fmt.Errorf("resize: reading the undo file again: %w", err)
	}
	t, err := readUndoTarget(r)
	if err != nil {
		return 0, err
	}
	if err := check(t); err != nil {
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
		if string(magic) == undoMagicV1 {
			return 0, fmt.Errorf("%w: it was written by an older fresize and does not record which volume it belongs to, so it cannot be checked against the target; nothing was written", ErrBadUndo)
		}
		return 0, fmt.Errorf("%w: it does not start as an undo file does", ErrBadUndo)
	}
	if _, err := readUndoTarget(br); err != nil {
		return 0, err
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
