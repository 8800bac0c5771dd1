package io

import (
	"errors"
	"fmt"
)

// ErrDiscardUnsupported says a device or image file cannot discard: a
// block device without discard support (or without secure discard), a
// file system that cannot punch holes, or a system other than Linux.
// Nothing was done; the range keeps its bytes.
var ErrDiscardUnsupported = errors.New("io: discard not supported")

// errDiscardUnsupported is what a backend answers when it cannot discard;
// Device.Discard wraps ErrDiscardUnsupported for its callers.
var errDiscardUnsupported = ErrDiscardUnsupported

// Discard tells the device that the volume range [off, off+n) holds
// nothing worth keeping: one BLKDISCARD ioctl on a block device (on flash
// the blocks are erased and the controller may write into them at once),
// BLKSECDISCARD when secure, or one fallocate(PUNCH_HOLE|KEEP_SIZE) on an
// image file, which gives its blocks back to the file system that holds
// it. The range is narrowed to whole logical sectors. Afterwards it may
// read back as zeros or as its old bytes (a device need not promise
// either), so callers discard only what no structure will read.
//
// It returns the bytes handed to the device, or an error wrapping
// ErrDiscardUnsupported when the device or file cannot discard (secure
// discard of an image file included): then nothing was done. A discard
// owes no flush (Barrier and Close issue none for it): whether or not it
// reached stable storage, the range reads back one of the two ways.
func (d *Device) Discard(off, n int64, secure bool) (int64, error) {
	if !d.writable {
		return 0, fmt.Errorf("io: %s: discard %d bytes at offset %d: %w", d.path, n, off, ErrReadOnly)
	}
	if err := d.check("discard", off, n); err != nil {
		return 0, err
	}
	ss := int64(d.sectorSize)
	s, e := roundUp(d.start+off, ss), roundDown(d.start+off+n, ss)
	if s >= e {
		return 0, nil
	}
	if err := d.firstWrite(); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, ErrClosed
	}
	err := d.be.Discard(s, e-s, secure)
	switch {
	case err == nil:
		// No flush is owed for it: a discarded range may read back as
		// zeros or as its old bytes, before a flush and after one.
		d.st.DiscardRequests++
		d.st.DiscardBytes += e - s
		return e - s, nil
	case errors.Is(err, errDiscardUnsupported):
		what := "discard"
		if secure {
			what = "secure discard"
		}
		return 0, fmt.Errorf("io: %s: no %s: %w", d.path, what, ErrDiscardUnsupported)
	default:
		return 0, fmt.Errorf("io: %s: discard %d bytes at byte %d: %w", d.path, e-s, s, err)
	}
}

// DiscardResult is what DiscardAll did.
type DiscardResult struct {
	Bytes       int64 `json:"bytes"`       // bytes handed to the device (0 when unsupported)
	Secure      bool  `json:"secure"`      // BLKSECDISCARD was asked for
	Punched     bool  `json:"punched"`     // an image file: the range was punched out of it
	Unsupported bool  `json:"unsupported"` // the device or file cannot (securely) discard: nothing was done
}

// DiscardAll discards the whole volume window of d before a format
// writes it. What was written before it (the old signatures a format
// clears) is flushed first, whatever the policy: a discarded block may
// read back its old bytes, and the bytes it held before a write still in
// a cache may be those of a boot sector that claims a valid file system.
// No flush follows: the discard is complete when it returns, before the
// format issues its first write, so a cut leaves each block discarded or
// as written after it. A device or file that cannot discard is no error:
// the result says so.
func DiscardAll(d *Device, secure bool) (DiscardResult, error) {
	res := DiscardResult{Secure: secure, Punched: !d.blockDev}
	d.mu.Lock()
	unsynced := d.unsynced
	d.mu.Unlock()
	if unsynced {
		if err := d.Sync(); err != nil {
			return res, err
		}
	}
	n, err := d.Discard(0, d.size, secure)
	if errors.Is(err, ErrDiscardUnsupported) {
		res.Unsupported, res.Punched = true, false
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.Bytes = n
	return res, nil
}
