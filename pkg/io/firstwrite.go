package io

// BeforeFirstWrite arranges for f to run once, just before the next
// request that changes the device: a write (WriteAt, a Batch's Flush, a
// Stream's buffer handed to its writer) or a zeroing call. f's own writes
// do not run it again, and it is dropped once it has run, whatever it
// returns (an error fails the request that ran it; the caller arms it
// again if it wants). nil disarms it.
//
// File systems use it to set their dirty flag at the first real change
// rather than when a writer opens the volume: a command that refuses
// leaves the device as it found it, without a single write.
//
// f runs on the goroutine that issues the request. A Stream runs it when
// it hands its first buffer on, before its writer goroutine sees it, so
// that f never races with the caller's own state.
func (d *Device) BeforeFirstWrite(f func() error) {
	if f == nil {
		d.beforeWrite.Store(nil)
		return
	}
	d.beforeWrite.Store(&f)
}

// firstWrite runs the function BeforeFirstWrite armed, if any.
func (d *Device) firstWrite() error {
	if d.beforeWrite.Load() == nil {
		return nil
	}
	if f := d.beforeWrite.Swap(nil); f != nil {
		return (*f)()
	}
	return nil
}
