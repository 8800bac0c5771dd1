// Package readahead reads the data of a list of files from a device, in
// the order given, with several large aligned requests in flight ahead of
// its consumer. It knows nothing of file systems: pkg/fat and pkg/exfat
// tell it where each file's bytes lie (Source), and it turns those byte
// ranges into requests. Contiguous data is read in requests of the
// device's I/O size; consecutive small files that lie next to each other
// (as ftools and mtools write them) share requests.
package readahead

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	fio "github.com/ftools/ftools/pkg/io"
)

// Options size a ReadAhead.
type Options struct {
	// Workers is how many reads are in flight at once (default 3).
	Workers int
	// Buffers is how many request buffers of the device's I/O size exist
	// (default Workers+2): reads finished ahead of the consumer wait in
	// them, so memory stays at Buffers*IOSize whatever the files' size
	// (20 MiB by default: the commands keep to 64 MiB, and fcp copying a
	// folder of 20,000 files out peaked at 64-66 MiB with 2*Workers+2).
	Buffers int
	// MaxGap is the most bytes between two pieces of data that one request
	// reads through rather than splitting (default 64 KiB): the slack of a
	// small file's last cluster costs less to read than a second request.
	MaxGap int64
	// Bytes is the files' total size when the caller knows it (0 when
	// not). Small files (fewer than SmallFile bytes each on average) are
	// read with one worker, two buffers and requests of at most
	// SmallRequest bytes, unless Workers or Buffers is set: what limits
	// such a copy is the work of each file (a host file made and written
	// per file), not the reads, and each request holds hundreds of files.
	// Copying 60,000 one-byte files out of an exFAT image peaked at 71-73
	// MiB with the 20 MiB of buffers of the default, with no faster copy.
	Bytes int64
}

// SmallFile and SmallRequest: see Options.Bytes.
const (
	SmallFile    = 64 << 10
	SmallRequest = 2 << 20
)

// sized fills in o's defaults for n files read from a device of ioSize
// bytes a request, and returns the request size to use.
func (o Options) sized(n int, ioSize int) (Options, int) {
	if o.Workers <= 0 && o.Buffers <= 0 && o.Bytes > 0 && n > 0 && o.Bytes/int64(n) < SmallFile {
		o.Workers, o.Buffers = 1, 2
		ioSize = min(ioSize, SmallRequest)
	}
	if o.Workers <= 0 {
		o.Workers = 3
	}
	if o.Buffers <= 0 {
		o.Buffers = o.Workers + 2
	}
	if o.MaxGap <= 0 {
		o.MaxGap = 64 << 10
	}
	return o, ioSize
}

// Piece is a run of a file's bytes on the device: Len bytes at byte Off
// of the volume.
type Piece struct{ Off, Len int64 }

// Source is one file to read: its pieces in file order, then Zeros bytes
// that read as zeros without touching the device (exFAT's space past a
// file's valid data length). A Source with Err gives that error from
// File. Name is the file's path, for the error of a file whose pieces
// do not all lie on the device (an image cut short: its boot sector
// describes more than the file holds); such a file is not read at all,
// and File gives that error, wrapping io.ErrOutOfRange.
type Source struct {
	Pieces []Piece
	Zeros  int64
	Err    error
	Name   string
}

// ReadAhead reads the data of a list of files. Files are taken with
// File(i) for increasing i; files skipped over are dropped unread. Close
// stops the reads; it must be called.
//
// Where each file lies is asked for (NewFunc's resolve) a little ahead of
// the consumer: when it takes a file, for the files a few requests further
// on. So memory stays bounded however many files the list holds.
type ReadAhead struct {
	dev     *fio.Device
	n       int                // files in the list
	resolve func(i int) Source // where the i-th file lies
	ahead   int                // requests built ahead of the consumer
	b       builder
	files   []file // files resolved and not yet taken: files[k] is file first+k
	first   int
	next    int      // the next file to resolve
	logic   int64    // logical offset of the next file resolved
	cons    []*req   // requests built and not yet consumed, in order
	bufs    [][]byte // every request buffer, for the pool at Close

	pos int64 // logical position consumed (see file.start)
	at  int   // index of the file last returned by File

	mu     sync.Mutex
	queue  []*req        // requests built and not yet dispatched
	built  bool          // every file is resolved and its requests queued
	wake   chan struct{} // something was queued
	free   chan []byte
	work   chan *req
	stop   chan struct{}
	wg     sync.WaitGroup
	closed bool
}

// file is one file: its device bytes are [start, start+size) of the
// logical stream that concatenates every file's data; zeros follow them.
type file struct {
	start, size, zeros int64
	err                error
}

// req is one device read; it covers a contiguous piece of the logical
// stream, made of pieces that lie at bufOff in its buffer.
type req struct {
	off    int64 // volume offset of the read (aligned)
	n      int   // bytes to read
	lstart int64 // logical offset of the first piece
	lend   int64
	pieces []piece
	done   chan struct{}
	buf    []byte
	err    error
}

type piece struct {
	bufOff int
	n      int
}

// New starts reading the files' data from dev.
func New(dev *fio.Device, files []Source, o Options) *ReadAhead {
	return NewFunc(dev, len(files), func(i int) Source { return files[i] }, o)
}

// NewFunc starts reading the data of n files from dev; resolve tells where
// the i-th lies. It is called on the consumer's goroutine (from NewFunc,
// File and Chunk), in order, a few requests ahead of the consumer, so the
// caller may look the files up as the read-ahead reaches them.
func NewFunc(dev *fio.Device, n int, resolve func(i int) Source, o Options) *ReadAhead {
	o, ioSize := o.sized(n, dev.IOSize())
	ra := &ReadAhead{dev: dev, n: n, resolve: resolve, ahead: o.Buffers + o.Workers + 2, at: -1,
		stop: make(chan struct{}), work: make(chan *req), free: make(chan []byte, o.Buffers), wake: make(chan struct{}, 1)}
	ra.b = builder{ra: ra, ioSize: int64(ioSize), align: int64(dev.Align()), start: dev.Start(), size: dev.Size(), maxGap: o.MaxGap}
	ra.resolveTo(-1)
	for range o.Buffers {
		b := getBuffer(dev, ioSize)
		ra.bufs = append(ra.bufs, b)
		ra.free <- b
	}
	ra.wg.Add(1 + o.Workers)
	go ra.dispatch()
	for range o.Workers {
		go ra.worker()
	}
	return ra
}

// resolveTo works out where files lie, at least up to file i and then
// until ahead requests wait for the consumer, and queues their requests.
func (ra *ReadAhead) resolveTo(i int) {
	for ra.next < ra.n && (ra.next <= i || len(ra.cons) < ra.ahead) {
		s := ra.resolve(ra.next)
		if s.Err == nil {
			s.Err = ra.outside(s)
		}
		f := file{start: ra.logic, err: s.Err}
		if s.Err == nil {
			for _, p := range s.Pieces {
				ra.b.piece(p.Off, p.Len, ra.logic)
				ra.logic += p.Len
				f.size += p.Len
			}
			f.zeros = s.Zeros
		}
		ra.files = append(ra.files, f)
		ra.next++
	}
	if ra.next == ra.n && !ra.built {
		ra.b.finish()
		ra.mu.Lock()
		ra.built = true
		ra.mu.Unlock()
		ra.signal()
	}
}

// outside reports the first of a file's pieces that does not lie wholly
// on the device: reading it would fail, or (clipped to the device, as the
// last request is) hand out bytes that are not the file's.
func (ra *ReadAhead) outside(s Source) error {
	size := ra.b.size
	for _, p := range s.Pieces {
		if p.Off < 0 || p.Len < 0 || p.Off > size || p.Len > size-p.Off {
			err := fmt.Errorf("%w: its data at bytes %d to %d of %s runs past the end of the volume's device at byte %d (is the image cut short?)",
				fio.ErrOutOfRange, ra.b.start+p.Off, ra.b.start+p.Off+p.Len-1, ra.dev.Path(), ra.b.start+size)
			return &fs.PathError{Op: "read", Path: s.Name, Err: err}
		}
	}
	return nil
}

// queued takes a finished request: the consumer waits for it, the
// dispatcher reads it.
func (ra *ReadAhead) queued(r *req) {
	ra.cons = append(ra.cons, r)
	ra.mu.Lock()
	ra.queue = append(ra.queue, r)
	ra.mu.Unlock()
	ra.signal()
}

func (ra *ReadAhead) signal() {
	select {
	case ra.wake <- struct{}{}:
	default:
	}
}

// builder turns files' pieces into requests.
type builder struct {
	ra                  *ReadAhead
	ioSize, align       int64
	start, size, maxGap int64
	cur                 *req
}

// piece appends n bytes of data at volume offset off (logical offset
// logical), extending the current request where they follow it closely
// enough and fit, else starting new ones of at most ioSize bytes each.
func (b *builder) piece(off, n, logical int64) {
	for n > 0 {
		if r := b.cur; r != nil {
			end := r.off + int64(r.n)
			last := r.pieces[len(r.pieces)-1]
			dataEnd := r.off + int64(last.bufOff+last.n)
			if off >= dataEnd && off-dataEnd <= b.maxGap && b.alignUp(off+1)-r.off <= b.ioSize {
				take := min(n, r.off+b.ioSize-off)
				newEnd := min(b.alignUp(off+take), b.size)
				if newEnd > end {
					r.n = int(newEnd - r.off)
				}
				r.pieces = append(r.pieces, piece{bufOff: int(off - r.off), n: int(take)})
				r.lend += take
				off, n, logical = off+take, n-take, logical+take
				continue
			}
			b.finish()
		}
		rs := b.alignDown(off)
		take := min(n, rs+b.ioSize-off)
		re := min(b.alignUp(off+take), b.size)
		b.cur = &req{off: rs, n: int(re - rs), lstart: logical, lend: logical + take, done: make(chan struct{}),
			pieces: []piece{{bufOff: int(off - rs), n: int(take)}}}
		off, n, logical = off+take, n-take, logical+take
	}
}

func (b *builder) finish() {
	if b.cur != nil {
		b.ra.queued(b.cur)
		b.cur = nil
	}
}

// alignDown and alignUp round volume offsets to the device's alignment,
// which counts from the start of the file or device.
func (b *builder) alignDown(off int64) int64 {
	abs := b.start + off
	return abs - abs%b.align - b.start
}

func (b *builder) alignUp(off int64) int64 {
	abs := b.start + off
	if r := abs % b.align; r != 0 {
		abs += b.align - r
	}
	return abs - b.start
}

// dispatch hands requests to the workers in order, each with a buffer,
// as buffers come free.
func (ra *ReadAhead) dispatch() {
	defer ra.wg.Done()
	defer close(ra.work)
	for {
		r, ok := ra.nextQueued()
		if !ok {
			return
		}
		select {
		case r.buf = <-ra.free:
		case <-ra.stop:
			return
		}
		select {
		case ra.work <- r:
		case <-ra.stop:
			ra.free <- r.buf
			r.buf = nil
			return
		}
	}
}

// nextQueued waits for the next request to read; false when there is
// none left or the read-ahead stopped.
func (ra *ReadAhead) nextQueued() (*req, bool) {
	for {
		ra.mu.Lock()
		if len(ra.queue) > 0 {
			r := ra.queue[0]
			ra.queue[0] = nil
			ra.queue = ra.queue[1:]
			ra.mu.Unlock()
			return r, true
		}
		built := ra.built
		ra.mu.Unlock()
		if built {
			return nil, false
		}
		select {
		case <-ra.wake:
		case <-ra.stop:
			return nil, false
		}
	}
}

func (ra *ReadAhead) worker() {
	defer ra.wg.Done()
	for r := range ra.work {
		_, r.err = ra.dev.ReadAtConcurrent(r.buf[:r.n], r.off)
		close(r.done)
	}
}

// ErrClosed is returned by reads after Close.
var ErrClosed = errors.New("read-ahead closed")

// File returns a reader of the i-th file's data. Files before it that were
// not read to the end are dropped; i must be greater than the last i.
func (ra *ReadAhead) File(i int) (*File, error) {
	if ra.closed {
		return nil, ErrClosed
	}
	if i <= ra.at || i >= ra.n {
		return nil, errors.New("read-ahead: files taken out of order")
	}
	ra.at = i
	ra.resolveTo(i)
	f := ra.files[i-ra.first]
	// Files before i are done with.
	ra.files = ra.files[i-ra.first:]
	ra.first = i
	if f.err != nil {
		return nil, f.err
	}
	// The request being built may hold the file's data: send it now.
	if c := ra.b.cur; c != nil && c.lstart < f.start+f.size {
		ra.b.finish()
	}
	if err := ra.skipTo(f.start); err != nil {
		return nil, err
	}
	return &File{ra: ra, end: f.start + f.size, zeros: f.zeros}, nil
}

// skipTo consumes the logical stream up to pos, giving back the buffers of
// the requests it passes.
func (ra *ReadAhead) skipTo(pos int64) error {
	for len(ra.cons) > 0 && ra.cons[0].lend <= pos {
		if err := ra.release(ra.cons[0]); err != nil {
			return err
		}
		ra.consumed()
	}
	ra.pos = pos
	return nil
}

// consumed drops the first request from the consumer's list.
func (ra *ReadAhead) consumed() {
	ra.cons[0] = nil
	ra.cons = ra.cons[1:]
}

// release waits for a request's read (its buffer is being filled) and
// returns the buffer to the pool.
func (ra *ReadAhead) release(r *req) error {
	select {
	case <-r.done:
	case <-ra.stop:
		return ErrClosed
	}
	if r.buf != nil {
		ra.free <- r.buf
		r.buf = nil
	}
	return nil
}

// chunk returns the next bytes of the logical stream up to end: a slice of
// a request's buffer, valid until the next call.
func (ra *ReadAhead) chunk(end int64) ([]byte, error) {
	for ra.pos < end {
		if len(ra.cons) == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		r := ra.cons[0]
		if ra.pos >= r.lend {
			if err := ra.release(r); err != nil {
				return nil, err
			}
			ra.consumed()
			// Keep the requests ahead of the consumer coming.
			ra.resolveTo(ra.at)
			if c := ra.b.cur; c != nil && len(ra.cons) == 0 {
				ra.b.finish()
			}
			continue
		}
		select {
		case <-r.done:
		case <-ra.stop:
			return nil, ErrClosed
		}
		if r.err != nil {
			return nil, r.err
		}
		l := r.lstart
		for _, p := range r.pieces {
			if ra.pos < l+int64(p.n) {
				from := p.bufOff + int(ra.pos-l)
				n := min(int64(p.bufOff+p.n-from), end-ra.pos)
				ra.pos += n
				return r.buf[from : from+int(n)], nil
			}
			l += int64(p.n)
		}
	}
	return nil, io.EOF
}

// Close stops the reads and waits for those in flight.
func (ra *ReadAhead) Close() {
	if ra.closed {
		return
	}
	ra.closed = true
	close(ra.stop)
	ra.wg.Wait()
	putBuffers(ra.bufs)
	ra.bufs = nil
}

// zeroChunk is what a file's zeros are handed out in.
var zeroChunk = make([]byte, 1<<20)

// File reads one file's data from a ReadAhead.
type File struct {
	ra       *ReadAhead
	end      int64
	zeros    int64 // zeros left to give after the data
	lastZero bool  // the last chunk was zeros, not device data
}

// Chunk returns the file's next bytes, as large as the requests allow,
// without copying them: the slice is valid until the next call on the
// ReadAhead, and must not be written to. It returns io.EOF at the end of
// the file.
func (f *File) Chunk() ([]byte, error) {
	if f.ra.closed {
		return nil, ErrClosed
	}
	f.lastZero = false
	if f.ra.pos < f.end {
		return f.ra.chunk(f.end)
	}
	if f.zeros > 0 {
		n := min(f.zeros, int64(len(zeroChunk)))
		f.zeros -= n
		f.lastZero = true
		return zeroChunk[:n], nil
	}
	return nil, io.EOF
}

// Read copies the file's next bytes into p.
func (f *File) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		b, err := f.Chunk()
		if err != nil {
			if n > 0 && err == io.EOF {
				return n, nil
			}
			return n, err
		}
		k := copy(p[n:], b)
		n += k
		if rest := int64(len(b) - k); rest > 0 {
			// Give back what did not fit.
			if f.lastZero {
				f.zeros += rest
			} else {
				f.ra.pos -= rest
			}
			return n, nil
		}
	}
	return n, nil
}
