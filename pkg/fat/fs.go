package fat

import (
	"io"
	"io/fs"
	"sort"
	"strconv"
	"syscall"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Errors for operations on the wrong kind of entry; they are the system's
// errno values so that messages read as cp's do and errors.Is works.
var (
	ErrNotDir   error = syscall.ENOTDIR
	ErrIsDir    error = syscall.EISDIR
	ErrNotEmpty error = syscall.ENOTEMPTY
)

// Volume implements fs.FS, fs.StatFS and fs.ReadDirFS, so fs.WalkDir works
// on it (and testing/fstest.TestFS passes). Names are as io/fs has them
// (fs.ValidPath: slash-separated from the root, "." for the root, no
// leading slash, no empty, "." or ".." element, and no backslash), with
// one addition: a trailing slash says the name must be a directory, as
// for open(2). Other names fail with fs.ErrInvalid. They match
// case-insensitively, by long or short name, as FAT requires. The
// writers (Create, Mkdir, Remove, ...) take the toolkit's looser volume
// paths ("/a/b", "::/a").

var (
	_ fs.FS        = (*Volume)(nil)
	_ fs.StatFS    = (*Volume)(nil)
	_ fs.ReadDirFS = (*Volume)(nil)
)

// Open opens a file or directory for reading.
func (v *Volume) Open(name string) (fs.File, error) {
	if err := checkFSName("open", name); err != nil {
		return nil, err
	}
	v.settleFor(name)
	return v.openPath(name)
}

// openPath is Open for a volume path in the toolkit's looser form ("/a",
// "::/a", "a/b/").
func (v *Volume) openPath(name string) (*File, error) {
	_, r, walk, err := v.lookupPath("open", name)
	if err != nil {
		return nil, err
	}
	f := &File{v: v, rec: r, name: cleanPath(name)}
	if f.isDir() {
		if f.dir, err = v.dirOf(r); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		if r != nil && f.dir.walk == walk {
			return nil, &fs.PathError{Op: "open", Path: "/" + f.name, Err: errDirLoop}
		}
		return f, nil
	}
	if r.Entry.Cluster != 0 {
		exts, err := ChainExtents(v.table, r.Entry.Cluster)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		f.exts = exts
		f.starts = make([]int64, len(exts))
		have := int64(0)
		for i, e := range exts {
			f.starts[i] = have * v.layout.ClusterSize
			have += int64(e.Len)
		}
		need := v.clustersFor(int64(r.Entry.Size))
		if have < need {
			return nil, &fs.PathError{Op: "open", Path: name, Err: &FormatError{Structure: "file", Field: "cluster chain", Offset: v.layout.ClusterOffset(r.Entry.Cluster),
				Value: have, Msg: "is shorter than the file's size " + strconv.FormatUint(uint64(r.Entry.Size), 10), Err: ErrCorrupt}}
		}
	} else if r.Entry.Size != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: &FormatError{Structure: "directory entry", Field: "first cluster", Offset: -1, Value: 0,
			Msg: "is 0 for a file of " + strconv.FormatUint(uint64(r.Entry.Size), 10) + " bytes", Err: ErrCorrupt}}
	}
	return f, nil
}

// Stat describes a file or directory.
func (v *Volume) Stat(name string) (fs.FileInfo, error) {
	if err := checkFSName("stat", name); err != nil {
		return nil, err
	}
	v.settleFor(name)
	return v.statPath(name)
}

// statPath is Stat for a volume path in the toolkit's looser form.
func (v *Volume) statPath(name string) (fs.FileInfo, error) {
	_, r, err := v.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return info(r), nil
}

// ReadDir lists a directory in name order.
func (v *Volume) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := checkFSName("readdir", name); err != nil {
		return nil, err
	}
	v.settleFor(name)
	return v.readDirPath(name)
}

// readDirPath is ReadDir for a volume path in the toolkit's looser form.
func (v *Volume) readDirPath(name string) ([]fs.DirEntry, error) {
	df, err := v.openPath(name)
	if err != nil {
		return nil, err
	}
	return fsutil.SortedDir(name, df, ErrNotDir)
}

// File is an open file or directory of a volume.
type File struct {
	v      *Volume
	rec    *Record // nil for the root
	name   string
	exts   []Extent // the file's clusters, as runs
	starts []int64  // the file offset at which each run begins
	off    int64
	dir    *dir
	dirAt  int
}

func (f *File) isDir() bool { return f.rec == nil || f.rec.Entry.IsDir() }

// Stat describes the file.
func (f *File) Stat() (fs.FileInfo, error) {
	return info(f.rec), nil
}

// Close releases the file.
func (f *File) Close() error { return nil }

// Read reads file data with as few requests as the clusters allow: one per
// contiguous run of clusters, however large p is.
func (f *File) Read(p []byte) (int, error) {
	if f.isDir() {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrIsDir}
	}
	return fsutil.ReadOn(p, &f.off, int64(f.rec.Entry.Size), f.ReadAt)
}

// Seek sets the offset of the next Read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	var size int64
	if !f.isDir() {
		size = int64(f.rec.Entry.Size)
	}
	return fsutil.Seek(&f.off, offset, whence, size, f.name)
}

// ReadAt reads len(p) bytes from offset off of the file: one request per
// contiguous run of clusters the range covers. Finding the run that holds
// off is a binary search over the runs, so reading a file costs time in
// proportion to the bytes read, whatever the size of p.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.isDir() {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrIsDir}
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	v := f.v
	if err := v.flushData(); err != nil {
		return 0, err
	}
	size := int64(f.rec.Entry.Size)
	cs := v.layout.ClusterSize
	done := 0
	i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > off }) - 1
	for done < len(p) && off < size && i >= 0 && i < len(f.exts) {
		e := f.exts[i]
		within := off - f.starts[i]
		n := min(int64(e.Len)*cs-within, size-off, int64(len(p)-done))
		if _, err := v.dev.ReadAt(p[done:done+int(n)], v.layout.ClusterOffset(e.Start)+within); err != nil {
			return done, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		done += int(n)
		off += n
		i++
	}
	if done < len(p) {
		return done, io.EOF
	}
	return done, nil
}

// ReadDir lists the directory's members (without "." and "..") in the
// order they are stored.
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: ErrNotDir}
	}
	recs, more := fsutil.Page(f.dir.recs, &f.dirAt, n, isMember)
	if !more {
		return nil, fsutil.DirEnd(n)
	}
	out := make([]fs.DirEntry, len(recs))
	for i, r := range recs {
		out[i] = fs.FileInfoToDirEntry(info(r))
	}
	return out, nil
}

// info describes r (nil: the root, named "/") for io/fs; its Sys is r.
func info(r *Record) fs.FileInfo {
	if r == nil {
		return fsutil.RootInfo("/", r)
	}
	e := &r.Entry
	return fsutil.NewFileInfo(r.Name, e.IsDir(), int64(e.Size), e.Attr&AttrReadOnly != 0, e.ModTimeValue(), r)
}
