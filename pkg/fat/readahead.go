package fat

import (
	"errors"
	"io"
	"io/fs"
	"sync"
)

// ReadAheadOptions size a ReadAhead.
type ReadAheadOptions struct {
	// Workers is how many reads are in flight at once (default 3).
	Workers int
	// Buffers is how many request buffers of the device's I/O size exist
	// (default 2*Workers+2): reads finished ahead of the consumer wait in
	// them, so memory stays at Buffers*IOSize whatever the files' size.
	Buffers int
	// MaxGap is the most bytes between two pieces of data that one request
	// reads through rather than splitting (default 64 KiB): the slack of a
	// small file's last cluster costs less to read than a second request.
	MaxGap int64
}

// ReadAhead reads the data of a list of files, in the order given, with
// several large aligned requests in flight ahead of its consumer, so that
// reading the volume overlaps whatever the consumer does with the data
// (writing it to the host, or to another volume). Contiguous data is read
// in requests of the device's I/O size; consecutive small files that lie
// next to each other (as ftools and mtools write them) share requests.
//
// Where each file's data lies is worked out a little ahead of the
// consumer (when it takes a file, for the files a few requests further
// on), from the FAT as it is then; so memory stays bounded however many
// files the list holds. The consumer must not change the listed files on
// the volume until it has read them. Files are taken with File(i) for
// increasing i; files skipped over are dropped unread. Close stops the
// reads; it must be called.
type ReadAhead struct {
	v     *Volume
	n     int              // files in the list
	name  func(int) string // the i-th file's volume path
	ahead int              // requests built ahead of the consumer
	b     raBuilder
	files []raFile // files resolved and not yet taken: files[k] is file first+k
	first int
	next  int      // the next file to resolve
	logic int64    // logical offset of the next file resolved
	cons  []*raReq // requests built and not yet consumed, in order
	flush error    // flushing queued data before the first read

	pos int64 // logical position consumed (see raFile.start)
	at  int   // index of the file last returned by File

	mu     sync.Mutex
	queue  []*raReq      // requests built and not yet dispatched
	built  bool          // every file is resolved and its requests queued
	wake   chan struct{} // something was queued
	free   chan []byte
	work   chan *raReq
	stop   chan struct{}
	wg     sync.WaitGroup
	closed bool
}

// raFile is one file: its bytes are [start, start+size) of the logical
// stream that concatenates every file's data.
type raFile struct {
	start, size int64
	err         error
}

// raReq is one device read; it covers a contiguous piece of the logical
// stream, made of pieces that lie at bufOff in its buffer.
type raReq struct {
	off    int64 // volume offset of the read (aligned)
	n      int   // bytes to read
	lstart int64 // logical offset of the first piece
	lend   int64
	pieces []raPiece
	done   chan struct{}
	buf    []byte
	err    error
}

type raPiece struct {
	bufOff int
	n      int
}

// ReadAhead starts reading the named files (volume paths). A name that
// does not open (missing, a directory, a damaged chain) gives its error
// from File.
func (v *Volume) ReadAhead(names []string, o ReadAheadOptions) *ReadAhead {
	return v.ReadAheadFunc(len(names), func(i int) string { return names[i] }, o)
}

// ReadAheadFunc is ReadAhead for n files whose names name gives, asked
// for (on the caller's goroutine, from File) as the read-ahead reaches
// them, so that a list of a million files need not be held as strings.
func (v *Volume) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	if o.Workers <= 0 {
		o.Workers = 3
	}
	if o.Buffers <= 0 {
		o.Buffers = 2*o.Workers + 2
	}
	if o.MaxGap <= 0 {
		o.MaxGap = 64 << 10
	}
	ra := &ReadAhead{v: v, n: n, name: name, ahead: o.Buffers + o.Workers + 2, at: -1,
		stop: make(chan struct{}), work: make(chan *raReq), free: make(chan []byte, o.Buffers), wake: make(chan struct{}, 1)}
	// Queued data (written earlier in this session) must be on the device
	// before it is read back.
	ra.flush = v.flushData()
	ra.b = raBuilder{ra: ra, ioSize: int64(v.dev.IOSize()), align: int64(v.dev.Align()), start: v.dev.Start(), size: v.dev.Size(), maxGap: o.MaxGap}
	ra.resolve(-1)
	for range o.Buffers {
		ra.free <- v.dev.AlignedBuffer(v.dev.IOSize())
	}
	ra.wg.Add(1 + o.Workers)
	go ra.dispatch()
	for range o.Workers {
		go ra.worker()
	}
	return ra
}

// resolve works out where files lie, at least up to file i and then
// until ahead requests wait for the consumer, and queues their requests.
func (ra *ReadAhead) resolve(i int) {
	v := ra.v
	for ra.next < ra.n && (ra.next <= i || len(ra.cons) < ra.ahead) {
		v.settle()
		f := raFile{start: ra.logic}
		exts, size, err := v.dataExtents(ra.name(ra.next))
		if err == nil {
			err = ra.flush
		}
		if err != nil {
			f.err = err
		} else {
			f.size = size
			ra.b.add(exts, size, ra.logic)
			ra.logic += size
		}
		ra.files = append(ra.files, f)
		ra.next++
	}
	if ra.next == ra.n {
		ra.b.finish()
		ra.mu.Lock()
		ra.built = true
		ra.mu.Unlock()
		ra.signal()
	}
}

// queued takes a finished request: the consumer waits for it, the
// dispatcher reads it.
func (ra *ReadAhead) queued(r *raReq) {
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

// dataExtents resolves a file's data: its clusters as runs, and its size.
func (v *Volume) dataExtents(name string) ([]Extent, int64, error) {
	file, err := v.openPath(name)
	if err != nil {
		return nil, 0, err
	}
	if file.isDir() {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: ErrIsDir}
	}
	return file.exts, int64(file.rec.Entry.Size), nil
}

// raBuilder turns files' extents into requests.
type raBuilder struct {
	ra                  *ReadAhead
	ioSize, align       int64
	start, size, maxGap int64
	cur                 *raReq
}

// add appends a file's data, which begins at logical offset logical.
func (b *raBuilder) add(exts []Extent, size, logical int64) {
	cs := b.ra.v.layout.ClusterSize
	left := size
	for _, e := range exts {
		if left == 0 {
			break
		}
		n := min(int64(e.Len)*cs, left)
		b.piece(b.ra.v.layout.ClusterOffset(e.Start), n, logical)
		logical += n
		left -= n
	}
}

// piece appends n bytes of data at volume offset off (logical offset
// logical), extending the current request where they follow it closely
// enough and fit, else starting new ones of at most ioSize bytes each.
func (b *raBuilder) piece(off, n, logical int64) {
	for n > 0 {
		if r := b.cur; r != nil {
			end := r.off + int64(r.n)
			dataEnd := r.off + int64(r.pieces[len(r.pieces)-1].bufOff+r.pieces[len(r.pieces)-1].n)
			if off >= dataEnd && off-dataEnd <= b.maxGap && b.alignUp(off+1)-r.off <= b.ioSize {
				take := min(n, r.off+b.ioSize-off)
				newEnd := min(b.alignUp(off+take), b.size)
				if newEnd > end {
					r.n = int(newEnd - r.off)
				}
				r.pieces = append(r.pieces, raPiece{bufOff: int(off - r.off), n: int(take)})
				r.lend += take
				off, n, logical = off+take, n-take, logical+take
				continue
			}
			b.finish()
		}
		rs := b.alignDown(off)
		take := min(n, rs+b.ioSize-off)
		re := min(b.alignUp(off+take), b.size)
		b.cur = &raReq{off: rs, n: int(re - rs), lstart: logical, lend: logical + take, done: make(chan struct{}),
			pieces: []raPiece{{bufOff: int(off - rs), n: int(take)}}}
		off, n, logical = off+take, n-take, logical+take
	}
}

func (b *raBuilder) finish() {
	if b.cur != nil {
		b.ra.queued(b.cur)
		b.cur = nil
	}
}

// alignDown and alignUp round volume offsets to the device's alignment,
// which counts from the start of the file or device.
func (b *raBuilder) alignDown(off int64) int64 {
	abs := b.start + off
	return abs - abs%b.align - b.start
}

func (b *raBuilder) alignUp(off int64) int64 {
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
func (ra *ReadAhead) nextQueued() (*raReq, bool) {
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
		_, r.err = ra.v.dev.ReadAtConcurrent(r.buf[:r.n], r.off)
		close(r.done)
	}
}

// ErrReadAheadClosed is returned by reads after Close.
var ErrReadAheadClosed = errors.New("fat: read-ahead closed")

// File returns a reader of the i-th file's data. Files before it that were
// not read to the end are dropped; i must be greater than the last i.
func (ra *ReadAhead) File(i int) (*AheadFile, error) {
	if ra.closed {
		return nil, ErrReadAheadClosed
	}
	if i <= ra.at || i >= ra.n {
		return nil, errors.New("fat: read-ahead files taken out of order")
	}
	ra.at = i
	ra.resolve(i)
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
	return &AheadFile{ra: ra, end: f.start + f.size}, nil
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
func (ra *ReadAhead) release(r *raReq) error {
	select {
	case <-r.done:
	case <-ra.stop:
		return ErrReadAheadClosed
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
			ra.resolve(ra.at)
			if c := ra.b.cur; c != nil && len(ra.cons) == 0 {
				ra.b.finish()
			}
			continue
		}
		select {
		case <-r.done:
		case <-ra.stop:
			return nil, ErrReadAheadClosed
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
}

// AheadFile reads one file's data from a ReadAhead.
type AheadFile struct {
	ra  *ReadAhead
	end int64
}

// Chunk returns the file's next bytes, as large as the requests allow,
// without copying them: the slice is valid until the next call on the
// ReadAhead. It returns io.EOF at the end of the file.
func (f *AheadFile) Chunk() ([]byte, error) {
	if f.ra.closed {
		return nil, ErrReadAheadClosed
	}
	if f.ra.pos >= f.end {
		return nil, io.EOF
	}
	return f.ra.chunk(f.end)
}

// Read copies the file's next bytes into p.
func (f *AheadFile) Read(p []byte) (int, error) {
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
		if k < len(b) {
			// Give back what did not fit.
			f.ra.pos -= int64(len(b) - k)
			return n, nil
		}
	}
	return n, nil
}
