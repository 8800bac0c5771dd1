package fsutil

import (
	"fmt"
	goio "io"

	fio "github.com/ftools/ftools/pkg/io"
)

// DataStream is a volume's file data and new directory clusters on their
// way to the device, the same for both codecs: a pkg/io Stream opened on
// the first write, whose large merged writes go out before any metadata
// that refers to them (the commit flushes it first). Every write first
// puts the volume's dirty flag on the device (mark, see DirtyFlag.Mark),
// without a flush of its own.
type DataStream struct {
	s *fio.Stream
}

// open is the stream, opened on dev if this is the session's first data.
func (d *DataStream) open(dev *fio.Device) *fio.Stream {
	if d.s == nil {
		d.s = dev.NewStream()
	}
	return d.s
}

// Write queues p at device offset off.
func (d *DataStream) Write(dev *fio.Device, mark func(flush bool) error, off int64, p []byte) error {
	if err := mark(false); err != nil {
		return err
	}
	return d.open(dev).Write(off, p)
}

// ReadFrom reads at most n bytes of r straight into the stream's buffers
// at device offset off (see pkg/io's Stream.ReadFrom).
func (d *DataStream) ReadFrom(dev *fio.Device, mark func(flush bool) error, off int64, r goio.Reader, n int64) (int64, error) {
	if err := mark(false); err != nil {
		return 0, err
	}
	return d.open(dev).ReadFrom(off, r, n)
}

// Flush writes the queued data and waits for it, so that it can be read
// back or referred to; fsName ("fat", "exfat") starts its error.
func (d *DataStream) Flush(fsName string) error {
	if d.s == nil {
		return nil
	}
	if err := d.s.Flush(); err != nil {
		return fmt.Errorf("%s: writing data: %w", fsName, err)
	}
	return nil
}

// Close closes the stream, if the session opened one.
func (d *DataStream) Close() error {
	if d.s == nil {
		return nil
	}
	return d.s.Close()
}

// FileDone ends one file written under the sync policy "file": the
// volume commits (commit) and the device flushes what it holds
// (pkg/io's Device.FileDone). Under other policies it does nothing: the
// file waits for the volume's next Commit.
func FileDone(dev *fio.Device, commit func() error) error {
	if dev.Policy() != fio.SyncFile {
		return nil
	}
	if err := commit(); err != nil {
		return err
	}
	return dev.FileDone()
}
