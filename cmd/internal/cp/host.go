package cp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// hostSide is the host's file system.
type hostSide struct {
	follow   bool // -L: follow symbolic links to directories
	preserve bool // set copies' modification times
	cache    bool // keep the files written in the page cache (fio.HostFile)
	// top is DEST when this side is the destination: paths below it are
	// looked at without following links, so nothing is written through a
	// link out of it. DEST itself may be a link, as with cp.
	top string
	// hints words the messages' advice (fcp's when nil).
	hints *Hints
	// images are the image files the copy writes into (device and
	// inode): one met in a source tree is the target itself, skipped.
	images map[fileID]bool
}

// hint is the advice h's messages give.
func (h hostSide) hint() Hints {
	if h.hints == nil {
		return Hints{}.withDefaults()
	}
	return *h.hints
}

func (hostSide) id() string { return "" }

// errLink refuses to go through a symbolic link inside the destination.
var errLink = errors.New("is a symbolic link; fcp does not write through links inside the destination")

func (h hostSide) stat(p string, top bool) (entry, error) {
	lfi, err := os.Lstat(p)
	if err != nil {
		return entry{}, err
	}
	if top || lfi.Mode()&fs.ModeSymlink == 0 {
		fi, err := os.Stat(p)
		if err != nil {
			return danglingEntry(p, lfi), nil
		}
		if top && fi.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0 {
			// Named on the command line (a FIFO, <(command), /dev/zero):
			// its contents are the file, as cp and mcopy read them.
			// Inside a tree such things are skipped (classify).
			return entry{name: filepath.Base(p), kind: kindFile, size: -1, mtime: stampOf(fi.ModTime()), stream: true}, nil
		}
		return h.classify(filepath.Base(p), fi, false), nil
	}
	return h.linkEntry(p, lfi), nil
}

// list lists the folder p, sorted by name as os.ReadDir sorts. Each
// member is looked at relative to the open folder (fstatat), into one
// stat buffer: a walk of a million files makes no path and no FileInfo
// per file, only for the links it follows.
func (h hostSide) list(p string) ([]entry, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	d := os.NewFile(uintptr(fd), p) // for its directory reads; fd stays usable
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]entry, 0, len(names))
	var st unix.Stat_t
	for _, name := range names {
		err := ignoringEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
		switch {
		case err != nil:
			err = &os.PathError{Op: "lstat", Path: filepath.Join(p, name), Err: err}
			out = append(out, skipEntry(name, true, errText(err)))
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			full := filepath.Join(p, name)
			lfi, err := os.Lstat(full)
			if err != nil {
				out = append(out, skipEntry(name, true, errText(err)))
				continue
			}
			le := h.linkEntry(full, lfi)
			le.name = name
			out = append(out, le)
		default:
			out = append(out, h.classifyStat(name, statOf(&st), false))
		}
	}
	return out, nil
}

// ignoringEINTR retries fn while a signal interrupts it.
func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

// linkEntry applies the link rules below an operand: a link to a file is
// copied as the file; a link to a directory is skipped unless -L; a
// dangling link is an error that does not stop the copy.
func (h hostSide) linkEntry(p string, lfi fs.FileInfo) entry {
	fi, err := os.Stat(p)
	if err != nil {
		return danglingEntry(p, lfi)
	}
	if fi.IsDir() && !h.follow {
		return skipEntry(lfi.Name(), false, "is a symbolic link to a directory ("+h.hint().Follow+")")
	}
	return h.classify(lfi.Name(), fi, true)
}

func danglingEntry(p string, lfi fs.FileInfo) entry {
	e := skipEntry(lfi.Name(), true, "cannot be read: no such file or directory")
	if lfi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		e.withWhy(fmt.Sprintf("is a dangling symbolic link (its target %q does not exist)", target))
	}
	return e
}

func (h hostSide) classify(name string, fi fs.FileInfo, viaLink bool) entry {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return h.classifyStat(name, hostStat{st.Mode, st.Size, fi.ModTime(), fileID{uint64(st.Dev), st.Ino}}, viaLink)
	}
	e := entry{name: name, size: fi.Size(), mtime: stampOf(fi.ModTime()), kind: kindSkip}
	switch {
	case fi.IsDir():
		e.kind = kindDir
	case fi.Mode().IsRegular():
		e.kind = kindFile
	}
	return h.kindRules(e, viaLink)
}

// hostStat is what classify needs of what stat(2) said of a file.
type hostStat struct {
	mode  uint32
	size  int64
	mtime time.Time
	id    fileID
}

func statOf(st *unix.Stat_t) hostStat {
	return hostStat{st.Mode, st.Size, time.Unix(st.Mtim.Unix()), fileID{uint64(st.Dev), st.Ino}}
}

// classifyStat is classify from what stat(2) said of the file.
func (h hostSide) classifyStat(name string, st hostStat, viaLink bool) entry {
	e := entry{name: name, size: st.size, mtime: stampOf(st.mtime), kind: kindSkip}
	id := st.id
	switch st.mode & unix.S_IFMT {
	case unix.S_IFDIR:
		e.kind = kindDir
		e.withID(id)
	case unix.S_IFREG:
		e.kind = kindFile
		if h.images[id] {
			e.kind, e.note = kindSkip, true
			e.withWhy("it is the target image itself")
		}
	}
	return h.kindRules(e, viaLink)
}

// kindRules words why e, of a kind fcp does not copy, is skipped.
func (h hostSide) kindRules(e entry, viaLink bool) entry {
	if e.kind == kindSkip && e.reason() == "" {
		e.withWhy("is not a regular file or directory (" + h.hint().Special + ")")
		if viaLink {
			e.withWhy("is a symbolic link to something that is not a regular file or directory")
		}
	}
	return e
}

func (hostSide) join(d, n string) string { return filepath.Join(d, n) }
func (hostSide) base(p string) string    { return filepath.Base(p) }

func (h hostSide) lookup(p string) (existing, error) {
	var fi fs.FileInfo
	var err error
	if c := filepath.Clean(p); h.top == "" || c == h.top || strings.HasPrefix(h.top, c+string(filepath.Separator)) {
		// DEST and the folders on its way were named by the user: their
		// links are followed, as cp follows them.
		fi, err = os.Stat(p)
	} else if fi, err = os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return existing{}, errLink
	}
	if errors.Is(err, fs.ErrNotExist) {
		return existing{}, nil
	}
	if err != nil {
		return existing{}, err
	}
	return existing{exists: true, dir: fi.IsDir(), name: fi.Name()}, nil
}

func (hostSide) mkdir(p string, _ time.Time, _ int) error {
	if fi, err := os.Lstat(p); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return errLink
		}
		if fi.IsDir() {
			return nil
		}
	}
	return os.Mkdir(p, 0o755)
}

func (h hostSide) finishDir(p string, mtime time.Time) error {
	if !h.preserve {
		return nil
	}
	return os.Chtimes(p, mtime, mtime)
}

func (h hostSide) create(p string, size int64, mtime time.Time) (fileSink, error) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errLink
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	return &hostFile{f: f, h: fio.NewHostFile(f, size, h.cache), mtime: mtime, preserve: h.preserve}, nil
}

// writeWhole creates the host file p (replacing what it held) with data
// and, with -p, mtime: what create, Write and Close do, in the fewest
// system calls (open, write, the time set on the open descriptor, close),
// for the files too small for fio.HostFile to keep out of the page cache
// (hostwrite.go writes many of them). The link refused is found by
// O_NOFOLLOW's ELOOP, not looked for first.
func (h hostSide) writeWhole(p string, data []byte, mtime time.Time) error {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		return err
	})
	if err != nil {
		if err == unix.ELOOP {
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return errLink
			}
		}
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err == nil && n == 0 {
			err = unix.EIO
		}
		if err != nil {
			unix.Close(fd)
			os.Remove(p)
			return &fs.PathError{Op: "write", Path: p, Err: err}
		}
		data = data[n:]
	}
	var terr error
	if h.preserve {
		ts := unix.NsecToTimespec(mtime.UnixNano())
		terr = ignoringEINTR(func() error { return futimens(fd, &[2]unix.Timespec{ts, ts}) })
		if terr != nil {
			terr = &fs.PathError{Op: "chtimes", Path: p, Err: terr}
		}
	}
	if err := unix.Close(fd); err != nil {
		os.Remove(p)
		return &fs.PathError{Op: "close", Path: p, Err: err}
	}
	return terr
}

// futimens sets the times of an open file (utimensat with no path).
func futimens(fd int, ts *[2]unix.Timespec) error {
	if _, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(ts)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

func (hostSide) storeName(name string) nameFix { return hostName(name) }

// fold keys host names case-insensitively too: a case-insensitive host
// file system would take "A" and "a" (from a damaged image) for one file.
func (hostSide) fold(name string) string { return vol.FoldName(name) }

type hostFile struct {
	f        *os.File
	h        *fio.HostFile // f, written through the page cache without keeping it
	mtime    time.Time
	preserve bool
}

func (h *hostFile) Write(p []byte) (int, error) { return h.h.Write(p) }

func (h *hostFile) Close() error {
	if err := h.h.Close(); err != nil {
		os.Remove(h.f.Name())
		return err
	}
	if h.preserve {
		return os.Chtimes(h.f.Name(), h.mtime, h.mtime)
	}
	return nil
}

func (h *hostFile) Abort() {
	h.f.Close()
	os.Remove(h.f.Name())
}
