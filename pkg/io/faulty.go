package io

// NewFaultyMemDevice is NewMemDevice with a fault injector for tests of
// the writers' error paths: every write, zeroing call and discard asks fail first
// (with its absolute offset and length), and a non-nil error fails that
// request with nothing written.
func NewFaultyMemDevice(size int64, sectorSize int, fail func(off, n int64) error) *Device {
	b := &faultyBackend{memBackend: memBackend{data: make([]byte, size)}, fail: fail}
	return newDevice(b, "memory", size, sectorSize, 1, DefaultIOSize, false, true, SyncNone)
}

// faultyBackend is a memBackend whose changes fail when fail says so.
type faultyBackend struct {
	memBackend
	fail func(off, n int64) error
}

func (f *faultyBackend) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fail(off, int64(len(p))); err != nil {
		return 0, err
	}
	return f.memBackend.WriteAt(p, off)
}

func (f *faultyBackend) Zero(off, n int64) error {
	if err := f.fail(off, n); err != nil {
		return err
	}
	return f.memBackend.Zero(off, n)
}

func (f *faultyBackend) Discard(off, n int64, secure bool) error {
	if err := f.fail(off, n); err != nil {
		return err
	}
	return f.memBackend.Discard(off, n, secure)
}
