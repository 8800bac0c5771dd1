package io

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ftools/ftools/pkg/io/writelog"
)

// EnvWriteLog names the environment variable that makes Open record every
// write, zeroing call and flush of every writable device into a write log
// (package writelog), so that tests can replay what a command's run could
// have left on a device at a power cut. Unset, nothing is recorded.
const EnvWriteLog = "FTOOLS_WRITE_LOG"

// processLogs are the logs EnvWriteLog named, each opened once.
var processLogs struct {
	mu   sync.Mutex
	logs map[string]*writelog.Logger
}

// recordFromEnv starts recording a writable device into the log that
// EnvWriteLog names, if it is set.
func (d *Device) recordFromEnv() error {
	path := os.Getenv(EnvWriteLog)
	if path == "" || !d.writable {
		return nil
	}
	processLogs.mu.Lock()
	l := processLogs.logs[path]
	if l == nil {
		var err error
		if l, err = writelog.Create(path); err != nil {
			processLogs.mu.Unlock()
			return fmt.Errorf("io: %s: %w", EnvWriteLog, err)
		}
		if processLogs.logs == nil {
			processLogs.logs = map[string]*writelog.Logger{}
		}
		processLogs.logs[path] = l
	}
	processLogs.mu.Unlock()
	return d.Record(l)
}

// Record logs every later write, zeroing call, discard and flush of d into l, with
// absolute offsets, under d's path made absolute. It is meant for tests.
func (d *Device) Record(l *writelog.Logger) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	path := d.path
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	id, err := l.Open(path, d.rawSize, d.policy == SyncAlways)
	if err != nil {
		return err
	}
	d.be = &recorder{inner: d.be, log: l, dev: id}
	return nil
}

// recorder is a backend that logs what its inner backend completed.
type recorder struct {
	inner backend
	log   *writelog.Logger
	dev   uint64
}

func (r *recorder) ReadAt(p []byte, off int64) (int, error) { return r.inner.ReadAt(p, off) }

func (r *recorder) WriteAt(p []byte, off int64) (int, error) {
	n, err := r.inner.WriteAt(p, off)
	if n > 0 {
		if lerr := r.log.Write(r.dev, off, p[:n]); err == nil {
			err = lerr
		}
	}
	return n, err
}

func (r *recorder) Sync() error {
	if err := r.inner.Sync(); err != nil {
		return err
	}
	return r.log.Flush(r.dev)
}

func (r *recorder) Zero(off, n int64) error {
	if err := r.inner.Zero(off, n); err != nil {
		return err
	}
	return r.log.Zero(r.dev, off, n)
}

func (r *recorder) Discard(off, n int64, secure bool) error {
	if err := r.inner.Discard(off, n, secure); err != nil {
		return err
	}
	return r.log.Discard(r.dev, off, n)
}

func (r *recorder) Close() error {
	err := r.inner.Close()
	if lerr := r.log.Close(r.dev); err == nil {
		err = lerr
	}
	return err
}

// dropDirect passes the request on; a backend that cannot drop O_DIRECT
// was never direct, so there is nothing to do.
func (r *recorder) dropDirect() error {
	if dd, ok := r.inner.(directDropper); ok {
		return dd.dropDirect()
	}
	return nil
}
