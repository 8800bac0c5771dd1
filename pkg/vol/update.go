package vol

import (
	"io"
	"time"
)

// FileUpdater is an existing file open for writing in place (pkg/fat's
// and pkg/exfat's Updater, from OpenFile). Bytes written over the file go
// straight to its clusters: after a power cut each sector holds its old
// or its new bytes (no copy on write, as with the Linux driver); a write
// that covers part of a sector reads the rest of it first. Clusters the
// file grows by get their data first, then their chain, then the entry's
// new size; Truncate to a shorter size writes the entry before it frees
// clusters (and commits). On exFAT a write past the valid data length
// zeroes the gap first, and a file that grows past its contiguous run
// becomes chained. The entry (size, clusters, modification time) is
// recorded at Close or Sync, and written by the volume's next Commit (at
// Close itself under fio.SyncFile).
type FileUpdater interface {
	io.Writer
	io.WriterAt
	io.Seeker
	// Truncate changes the file's size; a longer file reads as zeros
	// past its old end.
	Truncate(size int64) error
	// Sync records the entry as it is now and commits the volume.
	Sync() error
	// Close records the entry; a second Close does nothing.
	Close() error
	// Size is the file's size as written so far.
	Size() int64
}

func (v FAT) OpenFile(name string, flag int) (FileUpdater, error) {
	u, err := v.Volume.OpenFile(name, flag)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return u, nil
}

func (v ExFAT) OpenFile(name string, flag int) (FileUpdater, error) {
	u, err := v.Volume.OpenFile(name, flag)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// CreateOptions are Create's arguments that may be left out: the zero
// value is no size hint (clusters are taken as the data comes) and the
// volume's clock for the modification time.
type CreateOptions struct {
	// SizeHint is the expected size: that many bytes are allocated at
	// once, and a size beyond the free space fails before a byte is
	// written.
	SizeHint int64
	// Mtime is the modification time to record (zero: v.Now()).
	Mtime time.Time
}

// CreateFile is v.Create with its optional arguments in o.
func CreateFile(v Volume, name string, o CreateOptions) (Writer, error) {
	return v.Create(name, o.SizeHint, o.Mtime)
}
