package cp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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

func (h hostSide) list(p string) ([]entry, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []entry
	for {
		ents, err := f.ReadDir(listPage)
		for _, e := range ents {
			full := filepath.Join(p, e.Name())
			lfi, err := e.Info()
			switch {
			case err != nil:
				se := entry{name: e.Name(), kind: kindSkip, fail: true}
				se.withWhy(errText(err))
				out = append(out, se)
			case lfi.Mode()&fs.ModeSymlink != 0:
				le := h.linkEntry(full, lfi)
				le.name = e.Name()
				out = append(out, le)
			default:
				out = append(out, h.classify(e.Name(), lfi, false))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sortEntries(out)
	return out, nil
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
		e := entry{name: lfi.Name(), kind: kindSkip}
		e.withWhy("is a symbolic link to a directory (" + h.hint().Follow + ")")
		return e
	}
	return h.classify(lfi.Name(), fi, true)
}

func danglingEntry(p string, lfi fs.FileInfo) entry {
	e := entry{name: lfi.Name(), kind: kindSkip, fail: true}
	e.withWhy("cannot be read: no such file or directory")
	if lfi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		e.withWhy(fmt.Sprintf("is a dangling symbolic link (its target %q does not exist)", target))
	}
	return e
}

func (h hostSide) classify(name string, fi fs.FileInfo, viaLink bool) entry {
	e := entry{name: name, size: fi.Size(), mtime: stampOf(fi.ModTime())}
	switch {
	case fi.IsDir():
		e.kind = kindDir
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			e.withID(fileID{uint64(st.Dev), st.Ino})
		}
	case fi.Mode().IsRegular():
		e.kind = kindFile
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && h.images[fileID{uint64(st.Dev), st.Ino}] {
			e.kind, e.note = kindSkip, true
			e.withWhy("it is the target image itself")
		}
	default:
		e.kind = kindSkip
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
