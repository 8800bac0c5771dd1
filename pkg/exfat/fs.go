package exfat

import (
	"io"
	"io/fs"
	"path"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Volume implements fs.FS, fs.StatFS and fs.ReadDirFS, so fs.WalkDir works
// on it. Names are slash-separated paths from the root ("." is the root);
// they match as exFAT compares them, through the volume's up-case table.
var (
	_ fs.FS        = (*Volume)(nil)
	_ fs.StatFS    = (*Volume)(nil)
	_ fs.ReadDirFS = (*Volume)(nil)
)

// Open opens a file or directory for reading. name is a volume path:
// rooted or not, "\\" read as "/" (see FS for the strict io/fs form).
func (v *Volume) Open(name string) (fs.File, error) {
	return v.open(name, cleanPath(name))
}

// open opens the file at the clean path clean (name is what the caller
// gave, for errors).
func (v *Volume) open(name, clean string) (fs.File, error) {
	v.settleFor(clean)
	parent, r, walk, err := v.lookupPath("open", clean)
	if err == nil {
		err = dirOnly("open", name, r)
	}
	if err != nil {
		return nil, err
	}
	f := &File{v: v, rec: r, name: clean, rootName: "/"}
	if name == clean && name == "." {
		f.rootName = "."
	}
	if r == nil || r.IsDir() {
		if f.dir, err = v.dirOf(parent, r); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		if r != nil && f.dir.walk == walk {
			return nil, &fs.PathError{Op: "open", Path: "/" + f.name, Err: errDirLoop}
		}
		return f, nil
	}
	if err = v.checkLengths(r); err == nil {
		f.exts, err = v.recordExtents(r)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f, nil
}

// Stat describes a file or directory.
func (v *Volume) Stat(name string) (fs.FileInfo, error) {
	fi, err := v.stat(cleanPath(name), "/")
	if err == nil {
		r, _ := fi.Sys().(*Record)
		err = dirOnly("stat", name, r)
	}
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// stat describes the file at the clean path clean; rootName is the root's
// name ("/" for volume paths, "." for io/fs ones).
func (v *Volume) stat(clean, rootName string) (fs.FileInfo, error) {
	v.settleFor(clean)
	_, r, _, err := v.lookupPath("stat", clean)
	if err != nil {
		return nil, err
	}
	if err := v.checkLengths(r); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: "/" + clean, Err: err}
	}
	return info(r, rootName), nil
}

// FS returns the volume as a strict io/fs file system: names must be
// valid io/fs paths (fs.ValidPath), unrooted and without "." or ".."
// elements, and are looked up as written. It passes testing/fstest.TestFS.
func (v *Volume) FS() fs.FS { return strictFS{v} }

type strictFS struct{ v *Volume }

var (
	_ fs.StatFS    = strictFS{}
	_ fs.ReadDirFS = strictFS{}
)

func invalid(op, name string) error { return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid} }

func (s strictFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, invalid("open", name)
	}
	return s.v.open(name, name)
}

func (s strictFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, invalid("stat", name)
	}
	return s.v.stat(name, ".")
}

func (s strictFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, invalid("readdir", name)
	}
	return s.v.readDir(name, name)
}

// ReadDir lists a directory in name order.
func (v *Volume) ReadDir(name string) ([]fs.DirEntry, error) {
	return v.readDir(name, cleanPath(name))
}

func (v *Volume) readDir(name, clean string) ([]fs.DirEntry, error) {
	f, err := v.open(name, clean)
	if err != nil {
		return nil, err
	}
	return fsutil.SortedDir(name, f.(*File), ErrNotDir)
}

// File is an open file or directory of a volume.
type File struct {
	v        *Volume
	rec      *Record // nil for the root
	name     string
	rootName string // the root's FileInfo name
	exts     []Extent
	off      int64
	dir      *dir
	dirAt    int
	// hiddenSaid: ReadDir gave the error of a directory that lists fewer
	// members than it holds.
	hiddenSaid bool
}

func (f *File) isDir() bool { return f.rec == nil || f.rec.IsDir() }

// Stat describes the file.
func (f *File) Stat() (fs.FileInfo, error) {
	return info(f.rec, f.rootName), nil
}

// Close releases the file.
func (f *File) Close() error { return nil }

// Extents returns the file's clusters as runs (nil for an empty file or a
// directory).
func (f *File) Extents() []Extent { return f.exts }

// Read reads file data with as few requests as the clusters allow: one per
// contiguous run of clusters, however large p is.
func (f *File) Read(p []byte) (int, error) {
	if f.isDir() {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrIsDir}
	}
	return fsutil.ReadOn(p, &f.off, f.rec.Size(), f.ReadAt)
}

// Seek sets the offset of the next Read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	var size int64
	if !f.isDir() {
		size = f.rec.Size()
	}
	return fsutil.Seek(&f.off, offset, whence, size, f.name)
}

// ReadAt reads len(p) bytes from offset off of the file. Bytes past the
// valid data length read as zeros, as the specification asks (7.6.5):
// they were allocated but never written.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.isDir() {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrIsDir}
	}
	v := f.v
	if err := v.flushData(); err != nil {
		return 0, err
	}
	size := f.rec.Size()
	valid := min(int64(f.rec.Set.Stream.ValidDataLength), size)
	done := 0
	for done < len(p) && off < size {
		want := int64(len(p) - done)
		if off >= valid {
			n := min(want, size-off)
			clear(p[done : done+int(n)])
			done += int(n)
			off += n
			continue
		}
		dev, run, err := f.locate(off)
		if err != nil {
			return done, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		n := min(run, valid-off, want)
		if _, err := v.dev.ReadAt(p[done:done+int(n)], dev); err != nil {
			return done, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		done += int(n)
		off += n
	}
	if done < len(p) {
		return done, io.EOF
	}
	return done, nil
}

// locate maps byte off of the file to the volume and says how many bytes
// follow it contiguously.
func (f *File) locate(off int64) (dev, run int64, err error) {
	l := f.v.layout
	ci := off / l.ClusterSize
	for _, e := range f.exts {
		if ci < int64(e.Len) {
			dev = l.ClusterOffset(e.Start+Cluster(ci)) + off%l.ClusterSize
			return dev, (int64(e.Len)-ci)*l.ClusterSize - off%l.ClusterSize, nil
		}
		ci -= int64(e.Len)
	}
	return 0, 0, io.ErrUnexpectedEOF
}

// ReadDir lists the directory's members in the order they are stored.
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: ErrNotDir}
	}
	hidden := func() error {
		if h := f.dir.hidden; h != nil {
			return &fs.PathError{Op: "readdir", Path: path.Join("/", f.name), Err: h}
		}
		return nil
	}
	recs, more := fsutil.Page(f.dir.recs, &f.dirAt, n, func(r *Record) bool { return r != nil })
	if !more {
		if err := hidden(); err != nil && !f.hiddenSaid {
			f.hiddenSaid = true
			return nil, err
		}
		return nil, fsutil.DirEnd(n)
	}
	out := make([]fs.DirEntry, len(recs))
	for i, r := range recs {
		e := dirEntry{fi: info(r, "")}
		if err := f.v.checkLengths(r); err != nil {
			e.err = &fs.PathError{Op: "stat", Path: path.Join("/", f.name, r.Name), Err: err}
		}
		out[i] = e
	}
	if n <= 0 { // the rest was listed
		if err := hidden(); err != nil {
			f.hiddenSaid = true
			return out, err
		}
	}
	return out, nil
}

// dirEntry is a member ReadDir lists. Info fails for a file whose size
// cannot be right (checkLengths): its name and kind are all that is known.
type dirEntry struct {
	fi  fs.FileInfo
	err error
}

func (e dirEntry) Name() string      { return e.fi.Name() }
func (e dirEntry) IsDir() bool       { return e.fi.IsDir() }
func (e dirEntry) Type() fs.FileMode { return e.fi.Mode().Type() }
func (e dirEntry) String() string    { return fs.FormatDirEntry(e) }
func (e dirEntry) Info() (fs.FileInfo, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.fi, nil
}

// checkSize reports a file whose DataLength exceeds the cluster heap: no
// size can be given for it, and no byte of it read.
func (v *Volume) checkSize(r *Record) error {
	if r == nil || r.IsDir() {
		return nil
	}
	if _, ok := v.layout.lengthClusters(r.Set.Stream.DataLength); !ok {
		_, err := v.recordExtents(r)
		return err
	}
	return nil
}

// checkLengths is checkSize, and also reports a ValidDataLength past the
// DataLength: which of the file's bytes were written is then not known,
// so none is read (Stat, ReadDir and Open refuse the file, by name).
func (v *Volume) checkLengths(r *Record) error {
	if err := v.checkSize(r); err != nil || r == nil || r.IsDir() {
		return err
	}
	if s := &r.Set.Stream; s.ValidDataLength > s.DataLength {
		return corruptf("stream extension", "ValidDataLength", fieldAt(r.streamAt(), offValidLength), s.ValidDataLength, "exceeds the DataLength %d", s.DataLength)
	}
	return nil
}

// info describes r (nil: the root, named root) for io/fs; its Sys is r.
func info(r *Record, root string) fs.FileInfo {
	if r == nil {
		return fsutil.RootInfo(root, r)
	}
	file := &r.Set.File
	return fsutil.NewFileInfo(r.Name, r.IsDir(), r.Size(), file.Attr&AttrReadOnly != 0, file.Modify.Time(), r)
}
