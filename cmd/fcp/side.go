package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

// source is where files are read from: the host or a volume.
type source interface {
	stat(p string) (fs.FileInfo, error)
	readDir(p string) ([]fs.FileInfo, error) // sorted by name
	open(p string) (io.ReadCloser, error)
	join(dir, name string) string
	base(p string) string
}

// sink is where files are written: the host or a volume.
type sink interface {
	stat(p string) (fs.FileInfo, error) // fs.ErrNotExist when missing
	mkdir(p string, mtime time.Time) error
	mkdirAll(p string, mtime time.Time) error
	create(p string, size int64, mtime time.Time) (fileSink, error)
	finishDir(p string, mtime time.Time) error
	join(dir, name string) string
	base(p string) string
	// nameProblem says why a name read from an image cannot be used here
	// ("" if it can).
	nameProblem(name string) string
}

type fileSink interface {
	io.Writer
	Close() error
	Abort()
}

// hostSide reads and writes host files. Names are host paths.
type hostSide struct {
	preserve bool
	// top is DEST when this side is the destination ("" for a source):
	// paths below it are looked at without following links.
	top string
}

// errLink refuses to go through a symbolic link inside the destination.
var errLink = errors.New("is a symbolic link; fcp does not follow links inside the destination")

func (h hostSide) stat(p string) (fs.FileInfo, error) {
	if h.top == "" || filepath.Clean(p) == h.top {
		return os.Stat(p)
	}
	fi, err := os.Lstat(p)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: errLink}
	}
	return fi, err
}

func (hostSide) readDir(p string) ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		fi, err := os.Stat(filepath.Join(p, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, namedInfo{fi, e.Name()})
	}
	return out, nil
}

func (hostSide) open(p string) (io.ReadCloser, error) { return os.Open(p) }
func (hostSide) join(d, n string) string              { return filepath.Join(d, n) }
func (hostSide) base(p string) string                 { return filepath.Base(p) }

func (hostSide) mkdir(p string, _ time.Time) error {
	if fi, err := os.Lstat(p); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "mkdir", Path: p, Err: errLink}
		}
		if fi.IsDir() {
			return nil
		}
	}
	return os.Mkdir(p, 0o755)
}

func (h hostSide) mkdirAll(p string, t time.Time) error { return os.MkdirAll(p, 0o755) }

func (h hostSide) finishDir(p string, mtime time.Time) error {
	if !h.preserve {
		return nil
	}
	return os.Chtimes(p, mtime, mtime)
}

func (h hostSide) create(p string, _ int64, mtime time.Time) (fileSink, error) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "create", Path: p, Err: errLink}
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscallNoFollow, 0o644)
	if err != nil {
		return nil, err
	}
	return &hostFile{f: f, mtime: mtime, preserve: h.preserve}, nil
}

// nameProblem refuses names that would leave the destination folder or
// cannot be host file names.
func (hostSide) nameProblem(name string) string {
	if why := cmdutil.Unaddressable(name); why != "" {
		return why
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "contains a control character"
		}
	}
	return ""
}

type hostFile struct {
	f        *os.File
	mtime    time.Time
	preserve bool
}

func (h *hostFile) Write(p []byte) (int, error) { return h.f.Write(p) }

func (h *hostFile) Close() error {
	if err := h.f.Close(); err != nil {
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

// namedInfo keeps the name a directory listing gave.
type namedInfo struct {
	fs.FileInfo
	name string
}

func (n namedInfo) Name() string { return n.name }

// volSide reads and writes one volume. Names are volume paths ("." root).
type volSide struct {
	vol      *fat.Volume
	preserve bool
}

func (v volSide) stat(p string) (fs.FileInfo, error) { return v.vol.Stat(p) }

func (v volSide) readDir(p string) ([]fs.FileInfo, error) {
	ents, err := v.vol.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil // Volume.ReadDir sorts by name
}

func (v volSide) open(p string) (io.ReadCloser, error) {
	f, err := v.vol.Open(p)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (volSide) join(d, n string) string {
	switch {
	case d == "." || d == "":
		return n
	case strings.HasSuffix(d, "/"):
		return d + n
	}
	return d + "/" + n
}

func (volSide) base(p string) string { return path.Base(p) }

func (v volSide) mkdir(p string, mtime time.Time) error {
	if !v.preserve {
		mtime = v.vol.Now()
	}
	mtime = cmdutil.Clamp(mtime)
	err := v.vol.Mkdir(p, mtime)
	if errors.Is(err, fs.ErrExist) {
		if fi, serr := v.vol.Stat(p); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}

func (v volSide) mkdirAll(p string, _ time.Time) error { return v.vol.MkdirAll(p, v.vol.Now()) }
func (volSide) finishDir(string, time.Time) error      { return nil }

func (v volSide) create(p string, size int64, mtime time.Time) (fileSink, error) {
	if !v.preserve {
		mtime = v.vol.Now()
	}
	mtime = cmdutil.Clamp(mtime)
	return v.vol.Create(p, size, mtime)
}

func (volSide) nameProblem(name string) string {
	if err := fat.ValidateLongName(name); err != nil {
		return err.Error()
	}
	return ""
}
