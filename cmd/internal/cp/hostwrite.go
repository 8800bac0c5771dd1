package cp

import (
	"fmt"
	"io"
)

// A copy of many small files out of a volume spends most of its time
// creating them on the host (the host file system's work per file), one
// at a time. The writer pool does that on a few workers: the copy reads
// each small file from the volume in plan order, as before, and hands its
// data over; a worker creates the host file, writes and closes it.
// Directories are still made by the copy itself, in plan order, before
// anything goes in them; a directory's time is set (-p) once every file
// handed over before it is written. The outcome of each file (counted,
// or named as not copied, with the same messages) is taken in plan
// order, so that the report is what it was.
//
// What the pool holds is bounded: at most writeFiles files handed over
// and not yet written, and writeBytes of their data. A copy that stops at
// the first problem (-Q), converts text (-t) or writes standard output
// writes each file itself, as do files larger than writeWhole.

const (
	writeWorkers = 4
	writeFiles   = 64
	writeBytes   = 4 << 20
	writeWhole   = 1 << 20
)

// hostWrite is one file handed to the pool: what it needs of its item,
// which the plan may let go once handed over (release).
type hostWrite struct {
	mtime  stamp
	from   end
	to     end
	data   []byte
	err    error  // what failed, with what: the message's start
	what   string // the message's start when err is set
	copied bool
	done   chan struct{}
}

// writePool writes host files on a few workers.
type writePool struct {
	jobs    chan *hostWrite
	pending []*hostWrite // handed over, outcome not yet taken, in plan order
	bytes   int
	closed  bool
}

func newWritePool() *writePool {
	wp := &writePool{jobs: make(chan *hostWrite, writeFiles)}
	for w := 0; w < writeWorkers; w++ {
		go func() {
			for j := range wp.jobs {
				j.write()
				close(j.done)
			}
		}()
	}
	return wp
}

// write creates the host file and writes it whole.
func (j *hostWrite) write() {
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
	j.copied = true
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
	for len(x.wp.pending) >= writeFiles || (x.wp.bytes+len(data) > writeBytes && len(x.wp.pending) > 0) {
		x.reap(true)
	}
	j := &hostWrite{mtime: it.mtime, from: from, to: to, data: data, done: make(chan struct{})}
	x.wp.pending = append(x.wp.pending, j)
	x.wp.bytes += len(data)
	x.wp.jobs <- j
	x.reap(false)
	return nil
}

// reap takes the outcomes of the files written, in plan order: the first
// one, waiting for it when wait is set, and every one after it already
// written.
func (x *runner) reap(wait bool) {
	wp := x.wp
	for len(wp.pending) > 0 {
		j := wp.pending[0]
		if !wait {
			select {
			case <-j.done:
			default:
				return
			}
		}
		<-j.done
		wait = false
		wp.pending = wp.pending[1:]
		wp.bytes -= len(j.data)
		putBuf(j.data)
		if j.err != nil {
			why := errText(j.err)
			x.p.problemLine(true, j.from.show, why, j.what+": "+why)
			continue
		}
		x.res.Files++
		x.res.Bytes += int64(len(j.data))
	}
}

// settle waits for every file handed over and takes their outcomes.
func (x *runner) settle() {
	if x.wp == nil {
		return
	}
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
	close(x.wp.jobs)
	x.wp = nil
}
