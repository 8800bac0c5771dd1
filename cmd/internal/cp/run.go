package cp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// ErrInterrupted ends a copy that was asked to stop (Options.Stop).
var ErrInterrupted = errors.New("interrupted")

// runner carries a plan out.
type runner struct {
	p    *Plan
	o    Options
	res  *Result
	buf  []byte                    // chunks of host sources
	tbuf []byte                    // text conversion
	ra   map[string]*vol.ReadAhead // by volume side
	pf   *prefetch                 // host files into a volume (prefetch.go)
	wp   *writePool                // host files out of a volume (hostwrite.go)
	// failed holds the directories not made, each with the one whose
	// failure left it out (itself, or a directory that holds it): nothing
	// goes in them, and everything planned there is named.
	failed map[int]string
	// emptied names the volume file the file being copied replaces when
	// it was emptied to make room (emptyReplaced): a failure says so.
	emptied string
}

// Run carries the plan out and returns what it did. Volumes are left for
// the caller to commit: after a stop (ErrInterrupted), every file copied
// before it is complete and the file being copied was dropped.
func (p *Plan) Run() *Result {
	x := &runner{p: p, o: p.o, res: &p.res, failed: map[int]string{}}
	err := x.runBatch()
	for err == nil && p.next() {
		err = x.runBatch()
	}
	switch {
	case err != nil:
		p.res.Stopped = err
	case p.halted:
		p.res.Stopped = ErrStopped
	}
	return &p.res
}

// runBatch carries out the items planned since it last ran (all of
// them, for a plan made whole).
func (x *runner) runBatch() error {
	from, to := x.p.ran, x.p.items.len()
	x.ra = map[string]*vol.ReadAhead{}
	x.startReadAhead(from, to)
	err := x.run(from, to)
	x.closePool()
	for _, ra := range x.ra {
		ra.Close()
	}
	if x.pf != nil {
		x.pf.close()
		x.pf = nil
	}
	x.p.ran = to
	x.p.retire()
	return err
}

// startReadAhead starts reading, for each source volume, the files items
// from to to copy from it, in plan order. The read-ahead asks for their
// paths as it reaches them.
func (x *runner) startReadAhead(from, to int) {
	items := map[string][]int32{}
	bytes := map[string]int64{} // the files' total size, by volume
	vols := map[string]vol.Volume{}
	var hostPaths []string
	var hostSizes []int64
	for i := from; i < to; i++ {
		it := x.p.items.at(i)
		if it.kind != itemFile {
			continue
		}
		vs, ok := x.p.sideAt(it.src).(volSide)
		if !ok {
			if _, in := x.p.sideAt(it.dst).(volSide); in && !it.stdin && !it.stream && !prefetchOff {
				it.ahead = int32(len(hostPaths))
				hostPaths = append(hostPaths, x.p.pathAt(it.src))
				hostSizes = append(hostSizes, it.size)
			}
			continue
		}
		id := vs.id()
		it.ahead = int32(len(items[id]))
		items[id] = append(items[id], int32(i))
		bytes[id] += max(it.size, 0)
		vols[id] = vs.vol
	}
	for id, list := range items {
		name := func(k int) string { return x.p.pathAt(x.p.items.at(int(list[k])).src) }
		o := x.o.ReadAhead
		o.Bytes = bytes[id] // small files take fewer, smaller buffers
		x.ra[id] = vols[id].ReadAheadFunc(len(list), name, o)
	}
	if len(hostPaths) > 1 {
		x.pf = newPrefetch(hostPaths, hostSizes)
	}
}

func (x *runner) stopped() bool {
	select {
	case <-x.o.Stop:
		return true
	default:
		return false
	}
}

func (x *runner) run(from, to int) error {
	if x.o.DirsFirst {
		if err := x.mkdirs(from, to); err != nil {
			return err
		}
	}
	for i := from; i < to; i++ {
		if x.stopped() {
			return ErrInterrupted
		}
		it := x.p.items.at(i)
		problems := len(x.res.Failed) + len(x.res.Skipped)
		if x.o.DirsFirst && it.kind == itemMkdir {
			// Made (or named as not made) by mkdirs.
		} else if d, ok := x.failed[int(it.parent)]; ok && it.parent >= 0 {
			x.failed[i] = d
			if it.kind == itemFile || it.kind == itemMkdir {
				from := x.p.end(it.src)
				x.p.problemLine(true, from.show, "directory "+quote(d)+" was not created",
					fmt.Sprintf("cannot copy %s: directory %s was not created", quote(from.show), quote(d)))
			}
		} else if err := x.step(i, it); err != nil {
			return err
		}
		x.p.release(i)
		if x.o.StopOnError && len(x.res.Failed)+len(x.res.Skipped) > problems {
			return ErrStopped
		}
	}
	return nil
}

// mkdirs makes the directories of items from to to, in plan order (a
// parent before what it holds), before any file of them is written
// (Options.DirsFirst); one not made is named as run names it.
func (x *runner) mkdirs(from, to int) error {
	for i := from; i < to; i++ {
		if x.stopped() {
			return ErrInterrupted
		}
		it := x.p.items.at(i)
		if it.kind != itemMkdir {
			continue
		}
		problems := len(x.res.Failed) + len(x.res.Skipped)
		if d, ok := x.failed[int(it.parent)]; ok && it.parent >= 0 {
			x.failed[i] = d
			from := x.p.end(it.src)
			x.p.problemLine(true, from.show, "directory "+quote(d)+" was not created",
				fmt.Sprintf("cannot copy %s: directory %s was not created", quote(from.show), quote(d)))
		} else {
			x.mkdir(i, it)
		}
		if x.o.StopOnError && len(x.res.Failed)+len(x.res.Skipped) > problems {
			return ErrStopped
		}
	}
	return nil
}

// step carries out one item; an error returned stops the whole copy.
func (x *runner) step(i int, it *item) error {
	switch it.kind {
	case itemMkdir:
		x.mkdir(i, it)
	case itemFile:
		return x.copyFile(it)
	case itemDirDone:
		// Its time is set once the files in it are written.
		x.dirDone(x.p.end(it.dst), it.mtime)
	}
	return nil
}

// mkdir makes a directory; when it cannot, everything planned inside it
// is named as not copied (run).
func (x *runner) mkdir(i int, it *item) {
	from, to := x.p.ends2(it)
	if it.exists {
		return
	}
	if err := to.side.mkdir(to.path, it.mtime.t(), int(it.size)); err != nil {
		x.failed[i] = to.show
		x.p.problemLine(true, from.show, "cannot create "+quote(to.show)+": "+errText(err),
			fmt.Sprintf("cannot create directory %s: %s", quote(to.show), errText(err)))
		return
	}
	x.res.Dirs++
	if x.o.Verbose != nil {
		x.o.Verbose(from.show, to.show)
	}
}

func problemOf(path string, err error) cmdutil.Problem {
	return cmdutil.Problem{Path: path, Reason: errText(err)}
}

// chunker gives a file's data in chunks (vol.ReadAhead's files are).
type chunker interface {
	Chunk() ([]byte, error)
}

// copyFile copies one file; an error returned stops the whole copy. A file
// that does not fit (a full volume or directory) is named and the copy goes
// on: a later, smaller file or shorter name may still fit, as in mcopy.
func (x *runner) copyFile(it *item) error {
	// The source's end is made where a message or the pool needs it:
	// a copy of many files into a volume names none of them.
	to := x.p.end(it.dst)
	from := func() end { return x.p.end(it.src) }
	src, done, err := x.openSource(it)
	if err != nil {
		x.p.problemLine(true, from().show, "cannot be read: "+errText(err), fmt.Sprintf("cannot open %s for reading: %s", quote(from().show), errText(err)))
		return nil
	}
	defer done()
	to, ok := x.settleLateClash(it, from, to) // it may rename it
	if !ok {
		return nil
	}
	x.emptied = ""
	if it.tight {
		if err := x.emptyReplaced(to); err != nil {
			if errors.Is(err, errCommit) {
				return err
			}
			x.fileError(it, fmt.Sprintf("cannot copy %s to %s", quote(from().show), quote(to.show)), err)
			return nil
		}
	}
	if x.pooled(it, to) {
		if x.o.Verbose != nil {
			x.o.Verbose(from().show, to.show)
		}
		return x.handOver(it, src, from(), to)
	}
	var w fileSink = stdoutSink{x.o.Stdout}
	if !it.stdout {
		hint := max(it.size, 0)
		if w, err = to.side.create(to.path, hint, it.mtime.t()); err != nil {
			x.fileError(it, fmt.Sprintf("cannot copy %s to %s", quote(from().show), quote(to.show)), err)
			return nil
		}
	}
	if x.o.Verbose != nil {
		x.o.Verbose(from().show, to.show)
	}
	n, err := x.pump(w, src, x.textMode(it))
	if err == nil && !it.stdin && !it.stream && !x.o.Text && n != it.size {
		err = fmt.Errorf("it changed size while being copied (%d bytes, now %d)", it.size, n)
	}
	if err != nil {
		w.Abort()
		if errors.Is(err, ErrInterrupted) {
			if x.emptied != "" {
				x.fileError(it, fmt.Sprintf("copying %s to %s", quote(from().show), quote(to.show)), err)
			}
			return err
		}
		x.fileError(it, fmt.Sprintf("copying %s to %s", quote(from().show), quote(to.show)), err)
		return nil
	}
	if err := w.Close(); err != nil {
		x.fileError(it, fmt.Sprintf("cannot copy %s to %s", quote(from().show), quote(to.show)), err)
		return nil
	}
	if hf, ok := w.(*hostFile); ok {
		x.res.PageCache.Add(hf.h.Mode())
	}
	x.res.Files++
	x.res.Bytes += n
	return nil
}

// errCommit wraps a commit that failed while making room: the copy stops.
var errCommit = errors.New("cannot commit the volume")

// emptyReplaced makes room for a file that fits only in the clusters of
// the volume file it replaces: it says so (a power cut from here until the
// new file is committed may leave neither version), then empties the old
// file and commits, which frees its clusters for the new data.
func (x *runner) emptyReplaced(to end) error {
	vs := to.side.(volSide)
	x.o.Warn(line(fmt.Sprintf("%s only fits in the clusters of the file it replaces: that file is emptied first, so a power cut during the copy may leave neither version", quote(to.show))))
	if err := vs.vol.Empty(to.path); err != nil {
		return err
	}
	x.emptied = to.show
	if err := vs.vol.Commit(); err != nil {
		return fmt.Errorf("%w: %w", errCommit, err)
	}
	return nil
}

// fileError names a file that was not copied, with the reason.
func (x *runner) fileError(it *item, what string, err error) {
	from := x.p.end(it.src)
	why := errText(err)
	if x.emptied != "" {
		why += " (" + quote(x.emptied) + " was emptied to make room for it)"
	}
	x.p.problemLine(true, from.show, why, what+": "+why)
}

// openSource returns the chunks of an item's source and what to call when
// done with them.
func (x *runner) openSource(it *item) (chunker, func(), error) {
	if it.stdin {
		return newAsyncChunker(x.o.Stdin, x.o.IOSize, x.o.Stop), func() {}, nil
	}
	if it.stream {
		// Opened and read by the chunker's goroutine: opening a FIFO
		// blocks until a writer comes, and a stop must not wait for it.
		lf := &lazyFile{path: x.p.pathAt(it.src)}
		return newAsyncChunker(lf, x.o.IOSize, x.o.Stop), lf.close, nil
	}
	if vs, ok := x.p.sideAt(it.src).(volSide); ok {
		f, err := x.ra[vs.id()].File(int(it.ahead))
		return f, func() {}, err
	}
	if x.pf != nil {
		return x.fetchedSource(x.pf, int(it.ahead))
	}
	f, err := os.Open(x.p.pathAt(it.src))
	if err != nil {
		return nil, nil, err
	}
	h := fio.NewHostFile(f, it.size, x.o.Cache)
	return &readChunker{r: h, x: x}, func() { h.Close(); x.res.PageCache.Add(h.Mode()) }, nil
}

// settleLateClash handles a new volume file whose name turns out taken
// when it is written: the short name a file got earlier in this copy can
// equal a later source's long name ("FILE~1.TXT"). The secondary policy
// applies (autorename unless -D S or -D O); false: skip the file. source
// makes the item's source end (when a clash needs it), to is its
// destination; the destination returned is to or the name it was renamed
// to.
func (x *runner) settleLateClash(it *item, source func() end, to end) (end, bool) {
	vs, ok := to.side.(volSide)
	if !ok || it.exists || it.stdout {
		return to, true
	}
	if !vol.MayBeShortName(vs.vol, vs.base(to.path)) {
		// No short name can be this name (and the plan knows the long
		// names): the lookup, a path walk per file, is not needed.
		return to, true
	}
	ex, err := vs.lookup(to.path)
	if err != nil || !ex.exists {
		return to, true
	}
	from := source()
	why := fmt.Sprintf("%s is the short name of %s, copied in this run", quote(to.show), quoteName(ex.name))
	switch x.p.effective(false) {
	case Skip:
		x.p.problem(false, from.show, why)
		return to, false
	case Overwrite:
		if ex.dir {
			x.p.problemLine(true, from.show, why, mismatch(true, false, from, to))
			return to, false
		}
		return to, true
	}
	dir := parentOf(to)
	name := x.p.freeName(dir, &dirNames{fold: vs.fold}, vs.base(to.path))
	to = dir.child(name)
	it.dst = x.p.whole(to)
	x.p.renamed(from.show, to.show, why)
	return to, true
}

// textMode is the line-end conversion for an item (nil: none).
func (x *runner) textMode(it *item) func(b []byte, last bool) []byte {
	if !x.o.Text {
		return nil
	}
	from, to := x.p.ends2(it)
	_, fromVol := from.side.(volSide)
	_, toVol := to.side.(volSide)
	switch {
	case it.stdin || it.stream || (!fromVol && toVol):
		return func(b []byte, _ bool) []byte { x.tbuf = toDOS(x.tbuf[:0], b); return x.tbuf }
	case fromVol && !toVol:
		var f fromDOS
		return func(b []byte, last bool) []byte {
			x.tbuf = f.convert(x.tbuf[:0], b)
			if last {
				x.tbuf = f.end(x.tbuf)
			}
			return x.tbuf
		}
	}
	return nil
}

// pump moves a file's data from src to w, in chunks, checking between
// chunks whether the copy must stop. It returns the source bytes moved.
func (x *runner) pump(w io.Writer, src chunker, conv func([]byte, bool) []byte) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok && conv == nil {
		if rc, ok := src.(*readChunker); ok {
			// A host file into a volume: read straight into the volume's
			// write buffers (dd's one copy, not two).
			sr := &stopReader{x: x, r: rc.r}
			n, err := rf.ReadFrom(sr)
			if sr.err != nil {
				return n, sr.err
			}
			return n, err
		}
	}
	var n int64
	for {
		if x.stopped() {
			return n, ErrInterrupted
		}
		b, err := src.Chunk()
		if err == io.EOF {
			if conv != nil {
				if tail := conv(nil, true); len(tail) > 0 {
					if _, err := w.Write(tail); err != nil {
						return n, err
					}
				}
			}
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("reading: %w", err)
		}
		out := b
		if conv != nil {
			out = conv(b, false)
		}
		if _, err := w.Write(out); err != nil {
			return n, err
		}
		n += int64(len(b))
		if x.o.Progress != nil {
			x.o.Progress(int64(len(b)))
		}
	}
}

// stopReader reads a host source for io.ReaderFrom, checking between
// reads whether the copy must stop and telling the progress callback.
// err keeps what the source or a stop said, so that it is told apart from
// the destination's errors.
type stopReader struct {
	x   *runner
	r   io.Reader
	err error
}

func (s *stopReader) Read(p []byte) (int, error) {
	if s.x.stopped() {
		s.err = ErrInterrupted
		return 0, s.err
	}
	// A regular host file (the plan copies no other kind): fio.HostFile
	// reads it with a raw system call, as the stream writes.
	n, err := s.r.Read(p)
	if n > 0 && s.x.o.Progress != nil {
		s.x.o.Progress(int64(n))
	}
	if err != nil && err != io.EOF {
		s.err = fmt.Errorf("reading: %w", err)
		return n, s.err
	}
	return n, err
}

// readChunker reads a host file in chunks of the runner's buffer (made
// when first needed: a copy into a volume reads straight into the
// volume's buffers instead, see pump).
type readChunker struct {
	r   io.Reader
	x   *runner
	buf []byte
	eof bool
}

func (c *readChunker) Chunk() ([]byte, error) {
	if c.eof {
		return nil, io.EOF
	}
	if c.buf == nil {
		if c.x.buf == nil {
			c.x.buf = make([]byte, c.x.o.IOSize)
		}
		c.buf = c.x.buf
	}
	n, err := io.ReadFull(c.r, c.buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		c.eof, err = true, nil
		if n == 0 {
			return nil, io.EOF
		}
	}
	return c.buf[:n], err
}

// asyncChunker reads from a goroutine of its own, so that a read that
// blocks (a pipe or terminal on standard input) never keeps the copy from
// seeing a stop request: the goroutine is left behind when the copy stops.
type asyncChunker struct {
	ch   chan chunkResult
	stop <-chan struct{}
	done bool
}

type chunkResult struct {
	b   []byte
	err error
}

func newAsyncChunker(r io.Reader, size int, stop <-chan struct{}) *asyncChunker {
	c := &asyncChunker{ch: make(chan chunkResult), stop: stop}
	go func() {
		// Two buffers: one filled while the copy writes the other (the
		// channel is unbuffered, so a buffer is refilled only after the
		// copy asked for the next chunk, done with it).
		bufs := [2][]byte{make([]byte, size), make([]byte, size)}
		for i := 0; ; i++ {
			b := bufs[i%2]
			n, err := r.Read(b)
			if n > 0 {
				select {
				case c.ch <- chunkResult{b: b[:n]}:
				case <-stop:
					return
				}
			}
			if err != nil {
				select {
				case c.ch <- chunkResult{err: err}:
				case <-stop:
				}
				return
			}
		}
	}()
	return c
}

func (c *asyncChunker) Chunk() ([]byte, error) {
	if c.done {
		return nil, io.EOF
	}
	select {
	case r := <-c.ch:
		if r.err != nil {
			c.done = true
			if r.err == io.EOF {
				return nil, io.EOF
			}
			return nil, r.err
		}
		return r.b, nil
	case <-c.stop:
		return nil, ErrInterrupted
	}
}

// lazyFile opens a host file at its first read.
type lazyFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func (l *lazyFile) Read(p []byte) (int, error) {
	l.mu.Lock()
	f := l.f
	l.mu.Unlock()
	if f == nil {
		var err error
		if f, err = os.Open(l.path); err != nil {
			return 0, err
		}
		l.mu.Lock()
		l.f = f
		l.mu.Unlock()
	}
	return f.Read(p)
}

// close closes the file if it was opened (a read still blocked in it
// returns).
func (l *lazyFile) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
	}
}

// stdoutSink writes a file to standard output.
type stdoutSink struct{ w io.Writer }

func (s stdoutSink) Write(p []byte) (int, error) { return s.w.Write(p) }
func (stdoutSink) Close() error                  { return nil }
func (stdoutSink) Abort()                        {}
