package cp

import (
	"io"
	"os"
	"sync"
	"syscall"
)

// A copy of many small host files into a volume spends most of its time
// on the host's side of each file (open, read, close), one file at a
// time. The prefetch does that part on a few workers, ahead of the one
// writer: the files a batch copies from the host are opened and read in
// plan order, each whole into memory (a large one is only opened, and read
// by the writer as before), and handed over in plan order. The volume's
// writes are what they were: the same requests, the same bytes, the same
// order.
//
// What the workers hold is bounded: at most prefetchFiles files ahead of
// the writer, and prefetchBytes of their data.

const (
	prefetchWorkers = 4
	prefetchFiles   = 64
	prefetchBytes   = 4 << 20
	// prefetchWhole is the largest file read whole ahead; a larger one is
	// opened ahead and read by the writer in chunks (it streams).
	prefetchWhole = 1 << 20
)

// prefetchOff (FTOOLS_CP_WORKERS=1) makes the copy open and read its
// host files itself, one at a time, as it did before the prefetch: the
// tests compare the two.
var prefetchOff = os.Getenv("FTOOLS_CP_WORKERS") == "1"

// fetched is a host file opened (and read) ahead.
type fetched struct {
	k    int      // its place in the prefetch's list
	f    *os.File // a large file, opened: the writer reads it
	data []byte   // a small file's data, read whole
	err  error    // opening failed (f and data nil), or reading did (after data)
	// pooled: data is a buffer from getBuf, handed back when let go.
	pooled bool
	cost   int64 // bytes counted against prefetchBytes
}

// fetchGroup is a run of files, in plan order, that one worker opens and
// reads and hands over at once: a hand-over (channel operations, a
// goroutine woken on each side) per group, not per file.
type fetchGroup struct {
	files []fetched
	done  chan struct{}
}

// prefetchGroup is how many files a group holds at most (fewer when the
// bytes held would wait for the writer).
const prefetchGroup = 16

// prefetch reads the host files of one batch ahead of the writer.
type prefetch struct {
	paths []string // the files, in plan order
	sizes []int64
	queue chan *fetchGroup // in plan order, as handed to the workers
	cur   *fetchGroup      // the group the writer takes files from
	ci    int              // the next file of cur
	// groups counts the groups the writer took (tests).
	groups int

	held budget // bytes held
	wg   sync.WaitGroup
}

// newPrefetch starts reading paths (of sizes bytes, as planned) ahead.
func newPrefetch(paths []string, sizes []int64) *prefetch {
	pf := &prefetch{paths: paths, sizes: sizes, queue: make(chan *fetchGroup, prefetchFiles/prefetchGroup)}
	pf.held.init(prefetchBytes)
	jobs := make(chan *fetchGroup)
	pf.wg.Add(1 + prefetchWorkers)
	go func() {
		defer pf.wg.Done()
		defer close(jobs)
		defer close(pf.queue)
		for k := 0; k < len(paths); {
			g := &fetchGroup{files: make([]fetched, 0, min(prefetchGroup, len(paths)-k)), done: make(chan struct{})}
			for len(g.files) < cap(g.files) {
				cost := min(max(sizes[k], 0)+1, prefetchWhole+1)
				// A group's first file waits for room; a later one
				// that would wait ends the group instead (the writer
				// frees room only from groups handed over).
				if len(g.files) == 0 && !pf.held.take(cost) {
					return
				}
				if len(g.files) > 0 && !pf.held.tryTake(cost) {
					break
				}
				g.files = append(g.files, fetched{k: k, cost: cost})
				k++
			}
			pf.queue <- g // blocks while prefetchFiles are ahead
			jobs <- g
		}
	}()
	for w := 0; w < prefetchWorkers; w++ {
		go func() {
			defer pf.wg.Done()
			for g := range jobs {
				for i := range g.files {
					f := &g.files[i]
					f.fetch(paths[f.k], sizes[f.k])
				}
				close(g.done)
			}
		}()
	}
	return pf
}

// budget bounds what a goroutine working ahead of a consumer holds:
// take waits until n more may be held (one thing alone may be more than
// the limit), give hands n back. Once closed, take returns false at once.
type budget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	limit  int64
	used   int64
	closed bool
}

func (b *budget) init(limit int64) {
	b.limit = limit
	b.cond = sync.NewCond(&b.mu)
}

// take waits until n more may be held; false once closed.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.used > 0 && b.used+n > b.limit {
		b.cond.Wait()
	}
	b.used += n
	return !b.closed
}

// tryTake is take that does not wait: false when n more may not be held
// now (or once closed).
func (b *budget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (b.used > 0 && b.used+n > b.limit) {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close makes take return false, now and from then on.
func (b *budget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// fetch opens the file and, when small, reads it whole: into a buffer one
// byte longer than planned, so that a file grown since it was listed is
// seen (it is then handed over open, from its start, as a large one is).
// One read does it: one that returns the size planned, short of the byte
// more asked, met the file's end.
func (f *fetched) fetch(path string, size int64) {
	fd, err := openRead(path)
	if err != nil {
		f.err = err
		return
	}
	if size > prefetchWhole {
		f.f = os.NewFile(uintptr(fd), path)
		return
	}
	// A small file stays a bare descriptor unless it is handed over open:
	// os.NewFile costs a system call (fcntl) and a cleanup per file.
	buf := getBuf(int(size) + 1)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			f.data, f.err = buf[:n], &os.PathError{Op: "read", Path: path, Err: err}
			f.pooled = true
			syscall.Close(fd)
			return
		}
		if m == 0 {
			break
		}
		short := m < len(buf)-n
		n += m
		if short && n == int(size) {
			// Short of what was asked, at the size planned: the file's
			// end (a regular file's read stops short only there), with
			// no read more to see it.
			break
		}
	}
	if n == len(buf) {
		if _, err := syscall.Seek(fd, 0, io.SeekStart); err == nil {
			putBuf(buf)
			f.f = os.NewFile(uintptr(fd), path)
			return
		}
	}
	syscall.Close(fd)
	f.data, f.pooled = buf[:n], true
}

// The buffers files are read into are reused, by size class (powers of
// two from 512 bytes to prefetchWhole+1 rounded up): a million files
// would otherwise leave a million buffers for the collector, whose slack
// grows with what is allocated between its runs.
var bufPools [13]sync.Pool

func bufClass(n int) int {
	c := 0
	for 512<<c < n {
		c++
	}
	return c
}

// getBuf returns a buffer of n bytes (at most prefetchWhole+1).
func getBuf(n int) []byte {
	c := bufClass(n)
	if b, ok := bufPools[c].Get().(*[]byte); ok {
		return (*b)[:n]
	}
	return make([]byte, n, 512<<c)
}

// putBuf hands a buffer from getBuf back.
func putBuf(b []byte) {
	b = b[:cap(b)]
	if c := bufClass(len(b)); c < len(bufPools) && 512<<c == len(b) {
		bufPools[c].Put(&b)
	}
}

// openRead opens a host file for reading, without the poller os.Open
// asks of each file (regular files never block).
func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// get returns the k-th file of the list (k only grows from call to call:
// the files skipped are let go).
func (pf *prefetch) get(k int) *fetched {
	for {
		if pf.cur == nil || pf.ci == len(pf.cur.files) {
			g, ok := <-pf.queue
			if !ok {
				pf.cur = nil
				return nil
			}
			<-g.done
			pf.cur, pf.ci = g, 0
			pf.groups++
		}
		f := &pf.cur.files[pf.ci]
		pf.ci++
		if f.k == k {
			return f
		}
		pf.release(f)
	}
}

// release lets go of what a file fetched holds.
func (pf *prefetch) release(f *fetched) {
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	if f.pooled {
		putBuf(f.data)
		f.pooled = false
	}
	f.data = nil
	pf.held.give(f.cost)
	f.cost = 0
}

// close stops the prefetch and lets go of what it read.
func (pf *prefetch) close() {
	pf.held.close()
	if g := pf.cur; g != nil {
		for i := pf.ci; i < len(g.files); i++ {
			pf.release(&g.files[i])
		}
		pf.cur = nil
	}
	go func() {
		// Drain, so that the feeder blocked on a full queue ends.
		for g := range pf.queue {
			<-g.done
			for i := range g.files {
				pf.release(&g.files[i])
			}
		}
	}()
	pf.wg.Wait()
}

// fetchedSource is what the writer reads of a file fetched, and what to call when
// done with it.
func (x *runner) fetchedSource(pf *prefetch, k int) (chunker, func(), error) {
	f := pf.get(k)
	if f == nil {
		return nil, nil, ErrInterrupted
	}
	done := func() { pf.release(f) }
	switch {
	case f.f != nil:
		return &readChunker{r: f.f, x: x}, done, nil
	case f.data == nil && f.err != nil:
		pf.release(f)
		return nil, nil, f.err
	}
	return &readChunker{r: &heldFile{data: f.data, err: f.err}, x: x}, done, nil
}

// heldFile reads a file's data read ahead, then the error that ended the
// read (io.EOF when none).
type heldFile struct {
	data []byte
	err  error
}

func (h *heldFile) Read(p []byte) (int, error) {
	if len(h.data) == 0 {
		if h.err != nil {
			return 0, h.err
		}
		return 0, io.EOF
	}
	n := copy(p, h.data)
	h.data = h.data[n:]
	return n, nil
}
