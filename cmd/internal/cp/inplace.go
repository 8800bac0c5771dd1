package cp

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// placer is a volume file whose data the read-ahead can read straight
// into the host file's pages (vol.AheadFile's Into).
type placer interface {
	chunker
	Into(dst []byte) error
}

// dropBehind is how far the copy gets between giving back the pages of
// the map behind it (madvise), so that the process's resident size stays
// that of the reads in flight, not the file's.
const dropBehind = 16 << 20

// mapHost gives the host file its size (allocated at once where the file
// system can) and maps it for writing, so that the volume's O_DIRECT
// reads land in its page cache pages: no copy through the read-ahead's
// buffers and write(2), which on a two-core machine costs as much CPU as
// the disk takes time. nil without an error: the file cannot be mapped
// (not a regular file, opened write-only, a file system without mmap):
// write it the usual way.
func (h *hostFile) mapHost(size int64) ([]byte, error) {
	fd := int(h.f.Fd())
	var st unix.Stat_t
	if !h.rw || size <= 0 || int64(int(size)) != size || unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil
	}
	if err := unix.Fallocate(fd, 0, 0, size); err != nil {
		if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
			return nil, err
		}
		if err := h.f.Truncate(size); err != nil {
			return nil, err
		}
	}
	m, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return m, nil
}

// pumpInPlace copies a volume file into a host file through a map of the
// host file (mapHost): the read-ahead reads what it can straight into it,
// and what came through its buffers (the reads already made before the
// file was reached, an unaligned head or tail) is written with pwrite(2).
// ok false: the file could not be mapped, nothing was done.
func (x *runner) pumpInPlace(h *hostFile, src placer, size int64) (n int64, ok bool, err error) {
	m, err := h.mapHost(size)
	if m == nil {
		return 0, err != nil, err
	}
	defer func() {
		// No read may go on into the map once it is gone.
		if cerr := src.Into(nil); cerr != nil && err == nil {
			err = fmt.Errorf("reading: %w", cerr)
		}
		if uerr := unix.Munmap(m); uerr != nil && err == nil {
			err = uerr
		}
	}()
	if err := src.Into(m); err != nil {
		return 0, true, fmt.Errorf("reading: %w", err)
	}
	dropped := int64(0)
	for {
		if x.stopped() {
			return n, true, ErrInterrupted
		}
		b, err := src.Chunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, true, fmt.Errorf("reading: %w", err)
		}
		if len(b) == 0 {
			continue
		}
		if n >= int64(len(m)) || &b[0] != &m[n] {
			if _, err := h.f.WriteAt(b, n); err != nil {
				return n, true, err
			}
		}
		n += int64(len(b))
		if x.o.Progress != nil {
			x.o.Progress(int64(len(b)))
		}
		if d := n / dropBehind * dropBehind; d > dropped && d <= int64(len(m)) {
			// Pages behind the copy: dirty in the page cache, no longer
			// needed in this process's map.
			_ = unix.Madvise(m[dropped:d], unix.MADV_DONTNEED)
			dropped = d
		}
	}
	if n != size {
		// The file must end where its data did (the size check names the
		// difference).
		if err := h.f.Truncate(n); err != nil {
			return n, true, err
		}
	}
	return n, true, nil
}

// openHost opens a host file for writing, for reading too where it may,
// so that it can be mapped (mapHost).
func openHost(p string) (*os.File, bool, error) {
	const flags = os.O_CREATE | os.O_TRUNC | unix.O_NOFOLLOW
	f, err := os.OpenFile(p, os.O_RDWR|flags, 0o644)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, os.ErrPermission) {
		return nil, false, err
	}
	f, err = os.OpenFile(p, os.O_WRONLY|flags, 0o644)
	return f, false, err
}
