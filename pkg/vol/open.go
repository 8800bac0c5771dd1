package vol

import (
	"io"
	"os"

	fio "github.com/ftools/ftools/pkg/io"
)

// OpenFile opens the image file or block device at path (as fio.Open
// does, with its options: o.Write to change it, o.Partition or o.Offset
// for a volume inside a disk image) and the volume on it. The volume owns
// the device: its Close closes the device too. The zero fio.Options open
// read-only, and a writable one flushes when closed (SyncClose).
func OpenFile(path string, o fio.Options) (Volume, error) {
	dev, err := fio.Open(path, o)
	if err != nil {
		return nil, err
	}
	return openOwned(dev)
}

// OpenReaderAt opens the volume held in the first size bytes of r, read
// only: every change (Create, Mkdir, Remove, SetLabel, ...) fails with a
// read-only error (IsReadOnly), and nothing is written to r. Close does
// not close r.
func OpenReaderAt(r io.ReaderAt, size int64) (Volume, error) {
	dev, err := fio.NewReaderDevice(r, size, fio.SourceOptions{})
	if err != nil {
		return nil, err
	}
	return openOwned(dev)
}

// OpenReadWriterAt opens the volume held in the first size bytes of rw,
// for reading and writing. Close writes every change, flushes (rw's
// Sync() error method, when it has one), and leaves rw open.
func OpenReadWriterAt(rw fio.ReadWriterAt, size int64) (Volume, error) {
	dev, err := fio.NewReadWriterDevice(rw, size, fio.SourceOptions{})
	if err != nil {
		return nil, err
	}
	return openOwned(dev)
}

// OpenOSFile opens the volume in f, a whole image file the caller opened
// (write: to change it; f must then be open for writing). Close writes
// every change and flushes (f.Sync) but leaves f open. Unlike OpenFile it
// takes no lock on the image and looks for no mount of it.
func OpenOSFile(f *os.File, write bool) (Volume, error) {
	dev, err := fio.NewFileDevice(f, write, fio.SourceOptions{})
	if err != nil {
		return nil, err
	}
	return openOwned(dev)
}

// OpenBytes opens the volume in b, an image in memory, for reading and
// writing: changes are written into b (which never grows) by Commit and
// Close.
func OpenBytes(b []byte) (Volume, error) {
	dev, err := fio.NewBytesDevice(b, fio.SourceOptions{})
	if err != nil {
		return nil, err
	}
	return openOwned(dev)
}

// openOwned opens the volume on dev, which it then owns (closes on
// Close, or now on error).
func openOwned(dev *fio.Device) (Volume, error) {
	v, err := openVolume(dev)
	if err != nil {
		dev.Close()
		return nil, err
	}
	return guard(v, dev)
}
