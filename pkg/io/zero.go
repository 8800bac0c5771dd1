package io

import (
	"errors"
	"fmt"
)

// Zero makes the volume range [off, off+n) read as zeros by the cheapest
// correct means. The aligned middle goes to one fallocate (ZERO_RANGE, else
// PUNCH_HOLE, both KEEP_SIZE) on regular files or one BLKZEROOUT on block
// devices; where those are refused it is written from a zeroed buffer in
// IOSize writes. The unaligned edges are written as zeros through a Batch,
// which reads and rewrites their partial blocks.
func (d *Device) Zero(off, n int64) error {
	if !d.writable {
		return fmt.Errorf("io: %s: zero %d bytes at offset %d: %w", d.path, n, off, ErrReadOnly)
	}
	if err := d.check("zero", off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	// BLKZEROOUT wants whole logical sectors; fallocate takes any range but
	// the middle must also suit the direct writes of the fallback.
	za := int64(d.Align())
	if d.blockDev {
		za = max(za, int64(d.sectorSize))
	}
	abs, end := d.start+off, d.start+off+n
	ms, me := roundUp(abs, za), roundDown(end, za)
	if ms >= me {
		return d.zeroEdge(abs, end)
	}
	if err := d.zeroEdge(abs, ms); err != nil {
		return err
	}
	if err := d.zeroMiddle(ms, me); err != nil {
		return err
	}
	return d.zeroEdge(me, end)
}

// zeroEdge writes zeros over the absolute range [s, e) through a batch.
func (d *Device) zeroEdge(s, e int64) error {
	if s >= e {
		return nil
	}
	b := d.NewBatch()
	zeros := make([]byte, min(e-s, int64(d.ioSize)))
	for p := s; p < e; {
		k := min(e-p, int64(len(zeros)))
		if err := b.Write(p-d.start, zeros[:k]); err != nil {
			return err
		}
		p += k
	}
	return b.Flush()
}

// zeroMiddle zeros the aligned absolute range [s, e).
func (d *Device) zeroMiddle(s, e int64) error {
	err := d.zeroCall(s, e-s)
	if err == nil || !errors.Is(err, errZeroUnsupported) {
		return err
	}
	buf := d.getBuf()
	defer d.putBuf(buf)
	clear(buf)
	for p := s; p < e; p += int64(len(buf)) {
		if err := d.pwrite(buf[:min(int64(len(buf)), e-p)], p); err != nil {
			return err
		}
	}
	return nil
}

// zeroCall issues one backend Zero and counts it when it did the work.
func (d *Device) zeroCall(abs, n int64) error {
	if err := d.firstWrite(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	err := d.be.Zero(abs, n)
	switch {
	case err == nil:
		d.st.ZeroRequests++
		d.st.ZeroBytes += n
		d.unsynced = true
		if d.policy == SyncAlways {
			// O_DSYNC covers writes, not fallocate or BLKZEROOUT.
			return d.syncLocked()
		}
		return nil
	case errors.Is(err, errZeroUnsupported):
		return err
	default:
		return fmt.Errorf("io: %s: zero %d bytes at byte %d: %w", d.path, n, abs, err)
	}
}
