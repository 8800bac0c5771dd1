package fsutil

import "io"

// Updater is pkg/fat's and pkg/exfat's Updater: an existing file open
// for writing in place, as its codec's OpenFile returns it. Its steps are
// FileUpdate's; what each file system does for them (and what a power cut
// leaves) is its codec's, said in its package's Updater doc.
type Updater struct{ f *FileUpdate }

// NewUpdater is the Updater over f, which a codec's OpenFile set up.
func NewUpdater(f *FileUpdate) *Updater { return &Updater{f: f} }

// Name is the file's volume path.
func (u *Updater) Name() string { return u.f.Path }

// Size is the file's size as written so far.
func (u *Updater) Size() int64 { return u.f.Size }

// Write writes p at the current offset (at the end under O_APPEND) and
// moves the offset past it.
func (u *Updater) Write(p []byte) (int, error) { return u.f.Write(p) }

// WriteAt writes p at byte off of the file, making it longer if it ends
// past the end (a gap reads as zeros). It is refused under O_APPEND, as
// os.File refuses it.
func (u *Updater) WriteAt(p []byte, off int64) (int, error) { return u.f.WriteAt(p, off) }

// Seek sets the offset of the next Write (io.Seeker); an offset past the
// end is allowed, and a Write there leaves zeros in between.
func (u *Updater) Seek(offset int64, whence int) (int64, error) { return u.f.Seek(offset, whence) }

// Truncate changes the file's size to n. A longer file gets zeros (and
// the clusters to hold them) up to its new size; a shorter one keeps the
// clusters its size needs: those it had on disk are freed after its entry
// says the new size (this commits the volume), those the Updater added
// are freed at once.
func (u *Updater) Truncate(n int64) error { return u.f.Truncate(n) }

// Sync records the file's entry as it is now and commits the volume.
func (u *Updater) Sync() error { return u.f.Sync() }

// Close records the file's entry (size, clusters, modification time) for
// the volume's next commit; under the file sync policy the volume commits
// and flushes here. A second Close does nothing.
func (u *Updater) Close() error { return u.f.Close() }

var (
	_ io.WriterAt    = (*Updater)(nil)
	_ io.WriteSeeker = (*Updater)(nil)
	_ io.Closer      = (*Updater)(nil)
)
