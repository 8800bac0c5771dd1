package io

import (
	"fmt"
	goio "io"
	"sync"
)

// streamDepth is how many filled buffers may wait for the writer: with the
// one being filled, the caller reads its next chunk while the device writes
// the previous one.
//
// streamWriters is how many writes a stream keeps in flight at once. One,
// with one buffer waiting, is what costs least CPU per GiB (three buffers
// in turn stay warmer in the caches than five, and the runtime hands the
// processor between fewer threads): copying a 1 GiB file in, fcp took
// 1.33x the CPU time of dd oflag=direct bs=4M and 0.83x its time, against
// 1.68x and 0.83x with two writers and two waiting; with raw system calls
// for the writes and the source's reads (raw_linux.go), 1.06x and 0.78x
// (scripts/bench cpu).
const (
	streamDepth   = 1
	streamWriters = 1
)

// Stream writes bulk data (file contents) that mostly arrives in ascending,
// contiguous pieces. It combines contiguous pieces into aligned buffers of
// IOSize bytes and writes full buffers from a goroutine of its own, so that
// the caller's reading of its source overlaps the device's writing. A piece
// that does not continue the current buffer starts a new one; partial edge
// blocks are read first (read-modify-write), after every write in flight
// has landed, so no block is ever written from stale contents.
//
// Bytes written through a Stream reach the device only by Flush; other
// readers of the same range must call Flush first.
type Stream struct {
	d     *Device
	cur   []byte // buffer being filled; nil when none
	start int64  // absolute offset of cur[0] (aligned)
	n     int    // bytes of cur in use (from cur[0])

	jobs     chan streamJob
	wg       sync.WaitGroup // writes in flight
	writers  sync.WaitGroup // the writer goroutines
	mu       sync.Mutex
	err      error           // first write error
	inflight map[int64]int64 // absolute start -> end of queued or running writes
	quit     chan struct{}
	once     sync.Once
}

type streamJob struct {
	buf []byte
	abs int64
}

// NewStream returns a stream writing to d. Close it (or Flush it and stop
// using it) when done.
func (d *Device) NewStream() *Stream {
	s := &Stream{d: d, jobs: make(chan streamJob, streamDepth), quit: make(chan struct{})}
	s.writers.Add(streamWriters)
	for range streamWriters {
		go s.writer()
	}
	go func() { s.writers.Wait(); close(s.quit) }()
	return s
}

func (s *Stream) writer() {
	defer s.writers.Done()
	for j := range s.jobs {
		err := s.d.pwriteParallel(j.buf, j.abs)
		s.d.putBuf(j.buf[:cap(j.buf)])
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = err
		}
		delete(s.inflight, j.abs)
		s.mu.Unlock()
		s.wg.Done()
	}
}

func (s *Stream) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Write queues p at volume offset off; it copies p.
func (s *Stream) Write(off int64, p []byte) error {
	d := s.d
	if !d.writable {
		return fmt.Errorf("io: %s: write of %d bytes at offset %d: %w", d.path, len(p), off, ErrReadOnly)
	}
	if err := d.check("write", off, int64(len(p))); err != nil {
		return err
	}
	if err := s.failed(); err != nil {
		return err
	}
	abs := d.start + off
	for len(p) > 0 {
		if s.cur != nil && abs != s.start+int64(s.n) {
			if err := s.submit(); err != nil {
				return err
			}
		}
		if s.cur == nil {
			if err := s.begin(abs); err != nil {
				return err
			}
		}
		k := copy(s.cur[s.n:], p)
		s.n += k
		p, abs = p[k:], abs+int64(k)
		if s.n == len(s.cur) {
			if err := s.submit(); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadFrom reads up to max bytes from r straight into the stream's
// buffers, as the next bytes at volume offset off: the data is not copied
// once more on its way to the device (Write copies it). It returns fewer
// than max only when r ends (goio.EOF is not an error) or fails.
func (s *Stream) ReadFrom(off int64, r goio.Reader, max int64) (int64, error) {
	d := s.d
	if !d.writable {
		return 0, fmt.Errorf("io: %s: write of %d bytes at offset %d: %w", d.path, max, off, ErrReadOnly)
	}
	if err := d.check("write", off, max); err != nil {
		return 0, err
	}
	if err := s.failed(); err != nil {
		return 0, err
	}
	abs := d.start + off
	var total int64
	for total < max {
		if s.cur != nil && abs != s.start+int64(s.n) {
			if err := s.submit(); err != nil {
				return total, err
			}
		}
		if s.cur == nil {
			if err := s.begin(abs); err != nil {
				return total, err
			}
		}
		room := int(min(int64(len(s.cur)-s.n), max-total))
		k, err := r.Read(s.cur[s.n : s.n+room])
		s.n += k
		total += int64(k)
		abs += int64(k)
		if s.n == len(s.cur) {
			if serr := s.submit(); serr != nil {
				return total, serr
			}
		}
		if err == goio.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// begin starts a buffer for data at abs. An unaligned start needs the head
// of its block from the device.
func (s *Stream) begin(abs int64) error {
	d := s.d
	a := int64(d.Align())
	start := roundDown(abs, a)
	buf := d.getBuf()
	if abs > start {
		// The head block, capped at the end of the device as submit caps
		// the tail block.
		err := s.drain()
		if err == nil {
			err = d.pread(buf[:min(a, d.rawSize-start)], start)
		}
		if err != nil {
			// No buffer is kept: its head would be stale, and a later
			// write would put it over the neighbour's bytes.
			d.putBuf(buf)
			return err
		}
	}
	s.cur, s.start, s.n = buf, start, int(abs-start)
	return nil
}

// submit hands the current buffer to the writer, completing a partial last
// block from the device first.
func (s *Stream) submit() error {
	if s.cur == nil {
		return nil
	}
	d := s.d
	a := int64(d.Align())
	end := s.start + int64(s.n)
	if tail := end % a; tail != 0 {
		blockEnd := min(end-tail+a, d.rawSize)
		if blockEnd > end {
			if err := s.drain(); err != nil {
				return err
			}
			tmp := d.getBuf()
			err := d.pread(tmp[:blockEnd-(end-tail)], end-tail)
			copy(s.cur[s.n:], tmp[tail:blockEnd-(end-tail)])
			d.putBuf(tmp)
			if err != nil {
				return err
			}
			s.n += int(blockEnd - end)
		}
	}
	if err := d.firstWrite(); err != nil {
		return err
	}
	buf := s.cur[:s.n]
	s.cur, s.n = nil, 0
	// Writes run concurrently, so a write over bytes still in flight waits
	// for them: the later bytes must land last.
	if s.overlapsInflight(s.start, s.start+int64(len(buf))) {
		if err := s.drain(); err != nil {
			d.putBuf(buf[:cap(buf)])
			return err
		}
	}
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = map[int64]int64{}
	}
	s.inflight[s.start] = s.start + int64(len(buf))
	s.mu.Unlock()
	s.wg.Add(1)
	s.jobs <- streamJob{buf: buf, abs: s.start}
	return nil
}

// overlapsInflight reports whether [start, end) meets a queued or running
// write.
func (s *Stream) overlapsInflight(start, end int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for a, b := range s.inflight {
		if start < b && a < end {
			return true
		}
	}
	return false
}

// drain waits until every submitted write has landed.
func (s *Stream) drain() error {
	s.wg.Wait()
	return s.failed()
}

// Flush writes everything queued and waits for it.
func (s *Stream) Flush() error {
	if err := s.submit(); err != nil {
		return err
	}
	return s.drain()
}

// Pending reports whether bytes are queued or in flight.
func (s *Stream) Pending() bool {
	return s.cur != nil
}

// Close flushes the stream and stops its writer.
func (s *Stream) Close() error {
	err := s.Flush()
	s.once.Do(func() {
		close(s.jobs)
		<-s.quit
	})
	return err
}

// AlignedBuffer returns a buffer of n bytes whose address suits the
// device's direct I/O, so that reads into it need no bounce buffer.
func (d *Device) AlignedBuffer(n int) []byte {
	d.mu.Lock()
	a := d.bufAlign
	d.mu.Unlock()
	return alignedBuf(n, max(a, 4096))
}
