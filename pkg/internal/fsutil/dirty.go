package fsutil

// FirstWriter runs a function just before a device's next write
// (pkg/io's Device.BeforeFirstWrite; nil cancels it).
type FirstWriter interface {
	BeforeFirstWrite(f func() error)
}

// DirtyFlag is the life of a volume's dirty flag over one session (FAT's
// dirty bit, exFAT's VolumeDirty), the same for both codecs: a change arms
// it (Arm) and it goes onto the device just before the session's first
// write (Mark), so that a crash in the middle is visible to fsck while a
// change refused before anything was written leaves the volume byte for
// byte as it was; Close takes it off after everything else is durable.
type DirtyFlag struct {
	Armed bool // to be set before the next write (Arm)
	Set   bool // this session set it and clears it on Close
	Was   bool // the volume was dirty before it was opened
}

// Arm arranges for mark(true) to run before the device's next write,
// unless the flag is armed, set, was set already, or the volume has none
// (none: FAT12).
func (f *DirtyFlag) Arm(dev FirstWriter, none bool, mark func(flush bool) error) {
	if !f.Armable(none) {
		return
	}
	f.Armed = true
	dev.BeforeFirstWrite(func() error { return mark(true) })
}

// Armable reports whether Arm would arm the flag: a change that begins
// builds its mark function (a method value, an allocation) only then.
func (f *DirtyFlag) Armable(none bool) bool { return !(f.Armed || f.Set || f.Was || none) }

// Mark puts the armed flag on the device with write, if it is not there
// yet: the device runs it before the first write of the session (Arm), and
// the data paths call it before they queue data. A failed write is undone
// (undo rolls back the codec's copy) and the flag armed again. With flush
// (before metadata) the flag is made durable first; data needs no flush
// of its own, since the commit flushes the data before any metadata that
// refers to it.
func (f *DirtyFlag) Mark(dev FirstWriter, flush bool, write func() error, undo func(), barrier func() error, mark func(flush bool) error) error {
	if !f.Armed {
		return nil
	}
	f.Armed = false
	dev.BeforeFirstWrite(nil)
	if err := write(); err != nil {
		undo()
		f.Armed = true
		dev.BeforeFirstWrite(func() error { return mark(true) })
		return err
	}
	f.Set = true
	if flush {
		return barrier()
	}
	return nil
}

// Adopt takes a flag found set when the volume was opened as this
// session's own, to clear on Close: for the writer that set it itself
// (a format that leaves the new volume dirty until it is filled).
func (f *DirtyFlag) Adopt() {
	if f.Was {
		f.Was, f.Set = false, true
	}
}

// Close is a volume's Close after its Commit (whose error is err): the
// data stream closes (closeData), an armed flag that never went out is
// dropped, and a flag this session set comes off with clear after a
// barrier, once everything else is durable: after a clean commit, and
// also after one that failed before any metadata went out
// (metaWritten false; a host file system that filled up under the data),
// the volume then being as it was. It returns the first error.
func (f *DirtyFlag) Close(err error, dev FirstWriter, closeData func() error, metaWritten bool, barrier, clear func() error) error {
	if cerr := closeData(); err == nil {
		err = cerr
	}
	if f.Armed {
		// Nothing was written: there is no flag to set or clear.
		f.Armed = false
		dev.BeforeFirstWrite(nil)
	}
	if f.Set && (err == nil || !metaWritten) {
		if berr := barrier(); err == nil {
			err = berr
		}
		if cerr := clear(); err == nil {
			err = cerr
		}
		f.Set = false
	}
	return err
}
