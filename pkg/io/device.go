package io

import (
	"errors"
	"fmt"
	goio "io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Sentinel errors, wrapped so that errors.Is finds them.
var (
	ErrOutOfRange  = errors.New("io: access outside the volume")
	ErrReadOnly    = errors.New("io: device opened read-only")
	ErrClosed      = errors.New("io: device closed")
	ErrMounted     = errors.New("io: device is mounted")
	ErrPartitioned = errors.New("io: whole disk holds a partition table")
	ErrNoPartition = errors.New("io: no such partition")
	ErrInUse       = errors.New("io: device in use by an open volume")
)

// maxPooled is how many IOSize buffers a Device keeps for reuse.
const maxPooled = 4

// Device is an image file, block device or memory buffer, seen as the
// volume window [Start, Start+Size). Its methods are safe for concurrent use,
// but concurrent writes to overlapping ranges leave either one's bytes.
type Device struct {
	path       string
	start      int64 // absolute offset of the volume
	size       int64 // bytes in the volume
	opened0    int64 // the window's size before Limit shrank it (0: never limited)
	rawSize    int64 // bytes in the whole file or device
	sectorSize int
	ioSize     int
	blockDev   bool
	writable   bool
	policy     SyncPolicy
	opened     time.Time
	lock       *imageLock // holds the image's flock until Close
	window     *window    // the bytes this Device writes, claimed on lock
	warnings   []string   // what Open lets pass but the user should hear

	beforeWrite atomic.Pointer[func() error] // BeforeFirstWrite's function, until it runs

	mu       sync.Mutex // guards everything below
	be       backend
	direct   bool
	directOK bool // a direct request succeeded; EINVAL is no longer a reason to fall back
	align    int  // offset/length alignment of requests (1 when buffered)
	bufAlign int  // address alignment of pooled buffers
	fallback string
	st       Stats
	unsynced bool // something was written since the last flush
	closed   bool
	holders  []string // what holds the device open (Hold)
	elapsed  time.Duration
	pool     [][]byte
}

func newDevice(be backend, path string, rawSize int64, sectorSize, align, ioSize int, direct, writable bool, policy SyncPolicy) *Device {
	d := &Device{
		path: path, size: rawSize, rawSize: rawSize, sectorSize: sectorSize,
		ioSize: ioSize, writable: writable, policy: policy, opened: time.Now(),
		be: be, direct: direct, align: 1, bufAlign: 1,
	}
	if direct {
		d.align = align
		d.bufAlign = max(align, 4096)
	}
	return d
}

// NewMemDevice returns a writable in-memory device of size bytes with
// sectorSize-byte logical sectors, for tests of other packages. It uses
// buffered semantics (Align 1) and counts requests like a real device.
// It panics if size is negative or sectorSize is not a power of two.
func NewMemDevice(size int64, sectorSize int) *Device {
	if size < 0 || sectorSize <= 0 || sectorSize&(sectorSize-1) != 0 {
		panic(fmt.Sprintf("io: NewMemDevice(%d, %d): bad size or sector size", size, sectorSize))
	}
	return newDevice(&memBackend{data: make([]byte, size)}, "memory", size, sectorSize, 1, DefaultIOSize, false, true, SyncNone)
}

// Warnings are what Open let pass but the user should hear of: a loop
// device attached, unmounted, to the image being written. The package
// never prints: commands do.
func (d *Device) Warnings() []string { return d.warnings }

// Path is the file or device path given to Open.
func (d *Device) Path() string { return d.path }

// Size is the number of bytes from the volume start to its end.
func (d *Device) Size() int64 { return d.size }

// Start is the absolute byte offset of the volume in the file or device.
func (d *Device) Start() int64 { return d.start }

// DiskSize is the size of the whole file or device the volume lies in.
func (d *Device) DiskSize() int64 { return d.rawSize }

// SectorSize is the logical sector size: BLKSSZGET on block devices, 512 for files.
func (d *Device) SectorSize() int { return d.sectorSize }

// Align is the alignment of offsets and lengths of direct requests (1 when buffered).
func (d *Device) Align() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.align
}

// alignments returns the request and buffer address alignments together:
// both change at once when the device falls back to buffered I/O.
func (d *Device) alignments() (int64, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int64(d.align), d.bufAlign
}

// IOSize is the largest request the Device issues.
func (d *Device) IOSize() int { return d.ioSize }

// IsBlockDevice reports whether the Device is a block device.
func (d *Device) IsBlockDevice() bool { return d.blockDev }

// Writable reports whether the Device was opened for writing.
func (d *Device) Writable() bool { return d.writable }

// Direct reports whether O_DIRECT is in use.
func (d *Device) Direct() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.direct
}

// Policy is the sync policy.
func (d *Device) Policy() SyncPolicy { return d.policy }

// Stats returns the counters so far.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.st
	s.Elapsed = d.elapsed
	if !d.closed {
		s.Elapsed = time.Since(d.opened)
	}
	s.Direct, s.Align, s.Fallback, s.Policy = d.direct, d.align, d.fallback, d.policy
	return s
}

// check validates a request of n bytes at volume offset off.
func (d *Device) check(op string, off, n int64) error {
	if off < 0 || n < 0 || off > d.size || n > d.size-off {
		return fmt.Errorf("io: %s: %s of %d bytes at offset %d (0x%x): volume is %d bytes: %w",
			d.path, op, n, off, off, d.size, ErrOutOfRange)
	}
	return nil
}

// ReadAt reads len(p) bytes at volume offset off. Any alignment is fine;
// reads past Size are errors, never short reads.
func (d *Device) ReadAt(p []byte, off int64) (int, error) {
	if err := d.check("read", off, int64(len(p))); err != nil {
		return 0, err
	}
	abs := d.start + off
	a, bufAlign := d.alignments()
	if a == 1 || (abs%a == 0 && int64(len(p))%a == 0 && isAligned(p, bufAlign)) {
		for done := 0; done < len(p); done += d.ioSize {
			end := min(done+d.ioSize, len(p))
			if err := d.pread(p[done:end], abs+int64(done)); err != nil {
				return done, err
			}
		}
		return len(p), nil
	}
	// Bounce through aligned buffers covering the aligned span.
	buf := d.getBuf()
	defer d.putBuf(buf)
	s, e := roundDown(abs, a), min(roundUp(abs+int64(len(p)), a), d.rawSize)
	for cs := s; cs < e; cs += int64(d.ioSize) {
		ce := min(cs+int64(d.ioSize), e)
		if err := d.pread(buf[:ce-cs], cs); err != nil {
			return 0, err
		}
		lo, hi := max(cs, abs), min(ce, abs+int64(len(p)))
		copy(p[lo-abs:hi-abs], buf[lo-cs:hi-cs])
	}
	return len(p), nil
}

// WriteAt writes p at volume offset off at once, through a one-off Batch.
func (d *Device) WriteAt(p []byte, off int64) (int, error) {
	b := d.NewBatch()
	if err := b.Write(off, p); err != nil {
		return 0, err
	}
	if err := b.Flush(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// op is one kind of backend request.
type op int

const (
	opRead op = iota
	opWrite
)

// pread fills buf from absolute offset abs; pwrite writes buf there. Each
// backend call is counted. A direct request whose length is not a multiple
// of the alignment (the tail of an odd-sized file) is split so that only
// the tail goes through the buffered path.
func (d *Device) pread(buf []byte, abs int64) error  { return d.rw(opRead, buf, abs) }
func (d *Device) pwrite(buf []byte, abs int64) error { return d.rw(opWrite, buf, abs) }

func (d *Device) rw(o op, buf []byte, abs int64) error {
	if o == opWrite {
		if err := d.firstWrite(); err != nil {
			return err
		}
	}
	a := int64(d.Align())
	if n := int64(len(buf)); a > 1 && n > a && n%a != 0 {
		if err := d.rw(o, buf[:roundDown(n, a)], abs); err != nil {
			return err
		}
		buf, abs = buf[roundDown(n, a):], abs+roundDown(n, a)
	}
	for len(buf) > 0 {
		n, err := d.call(o, buf, abs)
		if err != nil {
			name := "read"
			if o == opWrite {
				name = "write"
			}
			if err == goio.EOF {
				err = goio.ErrUnexpectedEOF
			}
			return fmt.Errorf("io: %s: %s of %d bytes at byte %d: %w", d.path, name, len(buf), abs, err)
		}
		buf, abs = buf[n:], abs+int64(n)
	}
	return nil
}

// call issues one request, counts it, and falls back to buffered I/O when
// the first direct request answers EINVAL.
func (d *Device) call(o op, buf []byte, abs int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, ErrClosed
	}
	for {
		var n int
		var err error
		if o == opRead {
			n, err = d.be.ReadAt(buf, abs)
			d.st.ReadRequests++
			d.st.ReadBytes += int64(n)
		} else {
			n, err = d.be.WriteAt(buf, abs)
			d.st.WriteRequests++
			d.st.WriteBytes += int64(n)
			d.unsynced = d.unsynced || n > 0
		}
		if err == syscall.EINVAL && d.direct && !d.directOK {
			if dd, ok := d.be.(directDropper); ok {
				if derr := dd.dropDirect(); derr != nil {
					return 0, derr
				}
				d.direct, d.align, d.bufAlign = false, 1, 1
				d.fallback = "O_DIRECT request refused (EINVAL), using buffered I/O"
				continue
			}
		}
		if err == nil && n == 0 && len(buf) > 0 {
			err = goio.ErrNoProgress
		}
		if err == nil && d.direct {
			d.directOK = true
		}
		return n, err
	}
}

// Sync issues fdatasync now (counted as a flush), whatever the policy.
// On a read-only device it does nothing.
func (d *Device) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if !d.writable {
		return nil
	}
	return d.syncLocked()
}

// syncLocked issues one fdatasync; d.mu is held.
func (d *Device) syncLocked() error {
	d.st.Flushes++
	if err := d.be.Sync(); err != nil {
		return fmt.Errorf("io: %s: fdatasync: %w", d.path, err)
	}
	d.unsynced = false
	return nil
}

// Barrier makes everything written so far reach stable storage before
// anything written after it, as far as the policy promises durability:
// under SyncClose and SyncFile it flushes (when something was written
// since the last flush); under SyncNone it does nothing (the order of the
// requests is kept, which is enough after a process crash but not after a
// power cut); under SyncAlways it does nothing either, since every write
// is durable when it returns and zeroing calls flush themselves.
func (d *Device) Barrier() error {
	if d.policy != SyncClose && d.policy != SyncFile {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if !d.writable || !d.unsynced {
		return nil
	}
	return d.syncLocked()
}

// FileDone marks the end of one file: it syncs when the policy is SyncFile.
func (d *Device) FileDone() error {
	if d.policy == SyncFile {
		return d.Sync()
	}
	return nil
}

// Close syncs unless the policy is SyncNone (under SyncAlways too: the
// device's cache may still hold what zeroing calls and the file system's
// own bookkeeping did), then closes. A writable device that something
// holds (Hold: an open volume, whose changes wait in memory) is not
// closed: Close returns an error wrapping ErrInUse and naming the holder,
// and the device stays usable, so that the volume's Close can still write
// its changes and clear its dirty bit.
func (d *Device) Close() error {
	if err := d.inUse(); err != nil {
		return err
	}
	var serr error
	if d.policy != SyncNone {
		serr = d.Sync()
		if errors.Is(serr, ErrClosed) {
			return serr
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	d.closed = true
	d.elapsed = time.Since(d.opened)
	d.pool = nil
	err := errors.Join(serr, d.be.Close())
	if d.lock != nil {
		d.lock.unclaim(d.window)
		d.lock.Close() // releases the flock
	}
	return err
}

// getBuf returns an aligned buffer of IOSize bytes from the pool.
func (d *Device) getBuf() []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.pool) > 0 {
		b := d.pool[len(d.pool)-1]
		d.pool = d.pool[:len(d.pool)-1]
		if isAligned(b, d.bufAlign) {
			return b
		}
	}
	return ioBuf(d.ioSize, d.bufAlign)
}

func (d *Device) putBuf(b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed && len(d.pool) < maxPooled {
		d.pool = append(d.pool, b)
	}
}

// pwriteParallel is pwrite for a stream's full buffers: once direct I/O is
// known to work, an aligned direct write needs no device state, so it is
// issued without holding the device lock and several can be in flight
// (the device sees a queue, as the kernel's own write-back gives it).
// Anything else goes through pwrite.
func (d *Device) pwriteParallel(buf []byte, abs int64) error {
	d.mu.Lock()
	a := int64(d.align)
	ok := !d.closed && d.direct && d.directOK && abs%a == 0 && int64(len(buf))%a == 0 && isAligned(buf, d.bufAlign)
	be := d.be
	d.mu.Unlock()
	if !ok {
		return d.pwrite(buf, abs)
	}
	write := be.WriteAt
	if rw, ok := be.(rawWriter); ok {
		write = rw.writeRaw // raw_linux.go
	}
	for len(buf) > 0 {
		n, err := write(buf, abs)
		d.mu.Lock()
		d.st.WriteRequests++
		d.st.WriteBytes += int64(n)
		d.unsynced = d.unsynced || n > 0
		d.mu.Unlock()
		if err == nil && n == 0 {
			err = goio.ErrNoProgress
		}
		if err != nil {
			return fmt.Errorf("io: %s: write of %d bytes at byte %d: %w", d.path, len(buf), abs, err)
		}
		buf, abs = buf[n:], abs+int64(n)
	}
	return nil
}

// Hold marks the device as used by owner (such as "the FAT32 volume")
// until release is called (once; later calls do nothing): meanwhile Close
// refuses to close a writable device (ErrInUse). Hold fails with
// ErrClosed on a closed device.
func (d *Device) Hold(owner string) (release func(), err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("io: %s: %w", d.path, ErrClosed)
	}
	d.holders = append(d.holders, owner)
	done := false
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if done {
			return
		}
		done = true
		for i, h := range d.holders {
			if h == owner {
				d.holders = append(d.holders[:i], d.holders[i+1:]...)
				break
			}
		}
	}, nil
}

// inUse is Close's refusal while a writable device is held.
func (d *Device) inUse() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.writable || len(d.holders) == 0 || d.closed {
		return nil
	}
	return fmt.Errorf("io: %s: not closed: %s is still open on it (close it first): %w", d.path, d.holders[0], ErrInUse)
}

// Closed reports whether Close has closed the device.
func (d *Device) Closed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}
