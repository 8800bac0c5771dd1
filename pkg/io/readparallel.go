package io

import (
	"fmt"
	goio "io"
)

// ReadAtConcurrent is ReadAt for read-ahead pipelines that keep several
// reads in flight. Once the device's I/O mode is settled (buffered, or a
// direct request has succeeded, so that an EINVAL fallback can no longer
// swap the descriptor), an aligned read needs no device state: it is
// issued without holding the device lock, so that requests overlap in the
// device's queue as the kernel's own read-ahead overlaps them. Anything
// else goes through ReadAt. Stats.MaxReadsInFlight records the deepest
// overlap reached.
func (d *Device) ReadAtConcurrent(p []byte, off int64) (int, error) {
	if err := d.check("read", off, int64(len(p))); err != nil {
		return 0, err
	}
	abs := d.start + off
	d.mu.Lock()
	a := int64(d.align)
	ok := !d.closed && (!d.direct || d.directOK) && abs%a == 0 && int64(len(p))%a == 0 && isAligned(p, d.bufAlign)
	be := d.be
	if ok {
		d.st.readsInFlight++
		d.st.MaxReadsInFlight = max(d.st.MaxReadsInFlight, d.st.readsInFlight)
	}
	d.mu.Unlock()
	if !ok {
		return d.ReadAt(p, off)
	}
	defer func() {
		d.mu.Lock()
		d.st.readsInFlight--
		d.mu.Unlock()
	}()
	for done := 0; done < len(p); {
		end := min(done+d.ioSize, len(p))
		n, err := be.ReadAt(p[done:end], abs+int64(done))
		d.mu.Lock()
		d.st.ReadRequests++
		d.st.ReadBytes += int64(n)
		d.mu.Unlock()
		if err == goio.EOF {
			err = goio.ErrUnexpectedEOF
		}
		if err == nil && n == 0 {
			err = goio.ErrNoProgress
		}
		if err != nil {
			return done, fmt.Errorf("io: %s: read of %d bytes at byte %d: %w", d.path, end-done, abs+int64(done), err)
		}
		done += n
	}
	return len(p), nil
}
