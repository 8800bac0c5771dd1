package cp

import (
	"fmt"
	"io"

	fio "github.com/ftools/ftools/pkg/io"
)

// A copy of many small files out of a volume spends most of its time
// creating them on the host (the host file system's work per file), one
// at a time. The writer pool does that on a few workers: the copy reads
// each small file from the volume in plan order, as before, and hands its
// data over; a worker creates the host file, writes and closes it.
// Directories are still made by the copy itself, in plan order, before
// anything goes in them. The outcome of each file (counted, or named as
// not copied, with the same messages) is taken in plan order, so that the
// report is what it was; a directory's time (-p) is set when its turn
// comes in that order, once every file handed over before it is written,
// without holding the copy up until then.
//
// Files are handed over in batches of up to writeBatch (a worker takes a
// batch at a time: one hand-over and one wake-up per batch, not per
// file), the batch being filled going out when full, or when the copy
// must wait for the pool. A file under fio.HostDropMin is written with
// the fewest system calls the host allows (hostSide.writeWhole: open,
// write, set its time on the open descriptor, close); larger ones pass
// fio.HostFile, which keeps them out of the page cache.
//
// What the pool holds is bounded: at most writeFiles files handed over
// and not yet written, and writeBytes of their data. A copy that stops at
// the first problem (-Q), converts text (-t) or writes standard output
// writes each file itself, as do files larger than writeWhole.

const (
	writeWorkers = 4
	writeFiles   = 64
	writeBatch   = writeFiles / writeWorkers
	writeBytes   = 4 << 20
	writeWhole   = 1 << 20
)

// hostWrite is one file handed to the pool: what it needs of its item,
// which the plan may let go once handed over (release). A directory's
// time to set, in its turn, is one too (dir).
type hostWrite struct {
	mtime stamp
	from  end
	to    end
	data  []byte
	dir   bool   // set the time of directory to (its files are written)
	err   error  // what failed, with what: the message's start
	what  string // the message's start when err is set
	mode  string // how it passed the page cache (fio.HostFile's Mode)
}

// hostBatch is files handed over together, written by one worker in
// order; done is closed when all are.
type hostBatch struct {
	jobs []*hostWrite
	done chan struct{}
}

// writePool writes host files on a few workers.
type writePool struct {
	batches chan *hostBatch
	pending []*hostBatch // handed over, outcomes not yet taken, in plan order
	open    *hostBatch   // being filled, not yet handed over (nil: none)
	files   int          // in pending and open
	bytes   int
}

func newWritePool() *writePool {
	wp := &writePool{batches: make(chan *hostBatch, writeWorkers)}
	for w := 0; w < writeWorkers; w++ {
		go func() {
			for b := range wp.batches {
				for _, j := range b.jobs {
					if !j.dir {
						j.write()
					}
				}
				close(b.done)
			}
		}()
	}
	return wp
}

// write creates the host file and writes it whole.
func (j *hostWrite) write() {
	if hs, ok := j.to.side.(hostSide); ok && len(j.data) < fio.HostDropMin {
		if err := hs.writeWhole(j.to.path, j.data, j.mtime.t()); err != nil {
			j.err, j.what = err, fmt.Sprintf("cannot copy %s to %s", quote(j.from.show), quote(j.to.show))
		}
		return
	}
	w, err := j.to.side.create(j.to.path, int64(len(j.data)), j.mtime.t())
	if err != nil {
		j.err, j.what = err, fmt.Sprintf("cannot copy %s to %s", quote(j.from.show), quote(j.to.show))
		return
	}
	if _, err := w.Write(j.data); err != nil {
		w.Abort()
		j.err, j.what = err, fmt.Sprintf("copying %s to %s", quote(j.from.show), quote(j.to.show))
		return
	}
	if err := w.Close(); err != nil {
		j.err, j.what = err, fmt.Sprintf("cannot copy %s to %s", quote(j.from.show), quote(j.to.show))
		return
	}
	if hf, ok := w.(*hostFile); ok {
		j.mode = hf.h.Mode()
	}
}

// pooled reports whether the copy hands item it to the pool.
func (x *runner) pooled(it *item, to end) bool {
	if prefetchOff || x.o.StopOnError || x.o.Text || it.stdout || it.stdin || it.stream || it.size > writeWhole {
		return false
	}
	_, host := to.side.(hostSide)
	return host
}

// handOver reads a file from the volume and hands it to the pool. A file
// that cannot be read is named; an error returned stops the whole copy.
func (x *runner) handOver(it *item, src chunker, from, to end) error {
	if x.wp == nil {
		x.wp = newWritePool()
	}
	data := getBuf(int(max(it.size, 0)))[:0]
	var n int64
	for {
		if x.stopped() {
			return ErrInterrupted
		}
		b, err := src.Chunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			x.fileError(it, fmt.Sprintf("copying %s to %s", quote(from.show), quote(to.show)), fmt.Errorf("reading: %w", err))
			putBuf(data)
			return nil
		}
		data = append(data, b...)
		n += int64(len(b))
		if x.o.Progress != nil {
			x.o.Progress(int64(len(b)))
		}
	}
	if n != it.size {
		err := fmt.Errorf("it changed size while being copied (%d bytes, now %d)", it.size, n)
		x.fileError(it, fmt.Sprintf("copying %s to %s", quote(from.show), quote(to.show)), err)
		putBuf(data)
		return nil
	}
	x.queue(&hostWrite{mtime: it.mtime, from: from, to: to, data: data})
	return nil
}

// queue adds j to the batch being filled, after waiting, if the pool
// holds its most, for the outcomes of the first files handed over; a
// full batch goes to the workers.
func (x *runner) queue(j *hostWrite) {
	wp := x.wp
	for wp.files >= writeFiles || (wp.bytes+len(j.data) > writeBytes && wp.files > 0) {
		if len(wp.pending) == 0 {
			x.flush()
		}
		x.reap(true)
	}
	if wp.open == nil {
		wp.open = &hostBatch{done: make(chan struct{})}
	}
	wp.open.jobs = append(wp.open.jobs, j)
	wp.files++
	wp.bytes += len(j.data)
	if len(wp.open.jobs) >= writeBatch {
		x.flush()
	}
	x.reap(false)
}

// flush hands the batch being filled to the workers.
func (x *runner) flush() {
	if b := x.wp.open; b != nil {
		x.wp.open = nil
		x.wp.pending = append(x.wp.pending, b)
		x.wp.batches <- b
	}
}

// dirDone sets a directory's time (-p) once the files handed over before
// it are written: now when the pool holds none, else in its turn.
func (x *runner) dirDone(dst end, mtime stamp) {
	if x.wp == nil || x.wp.files == 0 {
		x.finishDir(dst, mtime)
		return
	}
	x.queue(&hostWrite{dir: true, to: dst, mtime: mtime})
}

// finishDir sets a directory's time (-p).
func (x *runner) finishDir(dst end, mtime stamp) {
	if ferr := dst.side.finishDir(dst.path, mtime.t()); ferr != nil {
		x.p.problem(true, dst.show, "cannot set its time: "+errText(ferr))
	}
}

// reap takes the outcomes of the files written, in plan order: those of
// the first batch, waiting for it when wait is set, and of every one
// after it already written.
func (x *runner) reap(wait bool) {
	wp := x.wp
	for len(wp.pending) > 0 {
		b := wp.pending[0]
		if !wait {
			select {
			case <-b.done:
			default:
				return
			}
		}
		<-b.done
		wait = false
		wp.pending = wp.pending[1:]
		for _, j := range b.jobs {
			x.outcome(j)
		}
	}
}

// outcome takes one file's outcome (or sets a directory's time).
func (x *runner) outcome(j *hostWrite) {
	wp := x.wp
	wp.files--
	if j.dir {
		x.finishDir(j.to, j.mtime)
		return
	}
	wp.bytes -= len(j.data)
	putBuf(j.data)
	x.res.PageCache.Add(j.mode)
	if j.err != nil {
		why := errText(j.err)
		x.p.problemLine(true, j.from.show, why, j.what+": "+why)
		return
	}
	x.res.Files++
	x.res.Bytes += int64(len(j.data))
}

// settle waits for every file handed over and takes their outcomes.
func (x *runner) settle() {
	if x.wp == nil {
		return
	}
	x.flush()
	for len(x.wp.pending) > 0 {
		x.reap(true)
	}
}

// closePool settles the pool and stops its workers.
func (x *runner) closePool() {
	if x.wp == nil {
		return
	}
	x.settle()
	close(x.wp.batches)
	x.wp = nil
}
