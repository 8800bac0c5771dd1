// Package vol reads and writes FAT12, FAT16, FAT32 and exFAT file systems
// in image files, on block devices and in memory, without mounting them.
//
// A Volume is one open file system: an io/fs.FS (with fs.ReadDirFS and
// fs.StatFS) for reading, and methods beside it that change it. Open reads
// the boot sector of a device from package
// github.com/ftools/ftools/pkg/io (fio) and returns a Volume for whichever
// file system is there:
//
//	dev, err := fio.Open("disk.img", fio.Options{Write: true, Sync: fio.SyncClose})
//	v, err := vol.Open(dev)
//
// fio.Open opens an image file or block device, a window of it at a byte
// offset, or one partition of its MBR or GPT table (Options.Partition);
// fio.NewMemDevice makes a device in memory. Formatting is pkg/fat's and
// pkg/exfat's Format, each with its file system's parameters.
//
// Reading goes through io/fs: fs.ReadFile, fs.WalkDir, fs.Glob and the like
// take a Volume as they are. Paths are slash-separated, rooted or not, "."
// is the root, and names match without regard to case, as the file system
// compares them.
//
// Writing: Create returns a Writer for a new file, or for one that
// replaces an existing file of that name once it is complete; Close
// records the file, Abort drops it (and does nothing after Close, so
// deferring it right after Create drops a file that fails half way).
// Mkdir, MkdirAll, Remove, RemoveAll, Rename, SetAttr and SetLabel change
// the tree. OpenFile opens an existing file to write it in place
// (FileUpdater: WriteAt, Seek, Truncate, append); CreateFile is Create
// without a size hint or a time.
//
// Changes take effect on Commit or Close. Both write what changed in the
// crash-safe order of the file system's package (data, then the
// allocation table, then directory entries, with a flush between where
// the device's sync policy asks for one), so that a crash or power cut
// leaves the old state, the new one, or lost clusters a check frees, never
// an entry over unwritten data. A file's data may go out before, into
// clusters nothing names yet (the volume marked dirty first): a program
// that stops before Commit leaves every file and folder as it was.
// Close also clears the dirty bit the session set; it does not close the
// device, whose own Close flushes under every sync policy but fio.SyncNone
// (the zero Options' policy: ask for fio.SyncClose, the commands'
// default).
//
// Errors: a missing or existing name is an *fs.PathError wrapping
// fs.ErrNotExist or fs.ErrExist; IsFull tells a full volume or directory
// (NoSpace says how much was needed); damage is an error naming the
// structure and where it lies. Use a Volume from one goroutine at a time.
//
// What one file system has and the other has not stays on its own
// package's Volume, reached with AsFAT and AsExFAT: FAT's FSINFO,
// allocation policies and code page; checking and repairing (fat.Check
// and fat.Repair, exfat.Check and exfat.Repair).
package vol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/readahead"
	fio "github.com/ftools/ftools/pkg/io"
)

// Attr holds the attribute bits FAT and exFAT share, with the values both
// store them with.
type Attr uint16

const (
	AttrReadOnly  Attr = 0x01
	AttrHidden    Attr = 0x02
	AttrSystem    Attr = 0x04
	AttrDirectory Attr = 0x10
	AttrArchive   Attr = 0x20
)

// String lists the set bits as letters in the order R H S D A, as pkg/fat
// and pkg/exfat write them; "" when none is set.
func (a Attr) String() string {
	var s string
	for _, l := range []struct {
		bit Attr
		ch  string
	}{{AttrReadOnly, "R"}, {AttrHidden, "H"}, {AttrSystem, "S"}, {AttrDirectory, "D"}, {AttrArchive, "A"}} {
		if a&l.bit != 0 {
			s += l.ch
		}
	}
	return s
}

// Entry is a file or directory as the commands show it.
type Entry struct {
	Name         string
	ShortName    string // FAT's 8.3 name as listings show it; "" on exFAT, which has none
	Attr         Attr
	FirstCluster uint32 // 0: no clusters (an empty file, or FAT's root)
	Root         bool   // the root directory, which has no entry
}

// Writer is a file being written (pkg/fat's and pkg/exfat's Writer).
type Writer interface {
	io.Writer
	// Close records the file's entry; the volume's next commit writes it.
	Close() error
	// Abort drops the file; a file it was to replace stays as it was.
	Abort()
}

// FallocateOptions tune Fallocate (as pkg/fat's and pkg/exfat's).
type FallocateOptions struct {
	KeepSize bool // allocate past the end without changing the size (FAT only)
	NoZero   bool // leave the new clusters' old contents in place
}

// Run is a run of consecutive clusters.
type Run struct {
	Start uint32
	Len   uint32
}

// FallocateResult is what Fallocate did.
type FallocateResult struct {
	Runs    []Run // clusters newly given to the file, in order
	Size    int64 // the file's size afterwards
	Created bool  // the file did not exist before
}

// ReadAheadOptions size a ReadAhead.
type ReadAheadOptions = readahead.Options

// ReadAhead reads a list of files' data ahead of its consumer (see
// pkg/fat's ReadAhead); both formats share its engine.
type ReadAhead = readahead.ReadAhead

// Volume is an open FAT12/16/32 or exFAT volume. Paths are volume paths,
// rooted or not, "." for the root; names match as the volume compares
// them (without case).
type Volume interface {
	// Type is "FAT12", "FAT16", "FAT32" or "exFAT".
	Type() string

	// Reading.
	Open(name string) (fs.File, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Entry describes a FileInfo this volume returned.
	Entry(fi fs.FileInfo) Entry
	// Runs counts the contiguous runs of clusters of the file or
	// directory a FileInfo of this volume describes (0 for none).
	Runs(fi fs.FileInfo) (int, error)
	// FileClusters counts the clusters the file or directory a FileInfo
	// of this volume describes holds (its whole chain, 0 for none).
	FileClusters(fi fs.FileInfo) (int64, error)
	// FoldName is the key under which names clash on the volume.
	FoldName(name string) string
	ReadAhead(names []string, o ReadAheadOptions) *ReadAhead
	// ReadAheadFunc is ReadAhead for n files whose names name gives,
	// asked for as the read-ahead reaches them.
	ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead

	// Changing: nothing reaches the device before Commit or Close, then
	// in the crash-safe order of the format's package doc.
	Create(name string, sizeHint int64, mtime time.Time) (Writer, error)
	// OpenFile opens an existing file for writing in place (flag:
	// os.O_WRONLY or os.O_RDWR, with O_APPEND, O_CREATE, O_EXCL, O_TRUNC).
	OpenFile(name string, flag int) (FileUpdater, error)
	Mkdir(name string, mtime time.Time) error
	MkdirAll(name string, mtime time.Time) error
	Remove(name string) error
	// Empty drops a file's data, leaving it 0 bytes long under its name;
	// its clusters are free after the next Commit. Creating a file that
	// fits only in the clusters of the one it replaces takes Empty,
	// Commit, then Create (see pkg/fat's Empty for the crash states).
	Empty(name string) error
	RemoveAll(name string) error
	// CheckTree walks the tree at name (the whole volume for the root)
	// and returns the first damage that would make a change of all of it
	// go wrong part way (a loop, a broken chain, shared clusters), naming
	// where. Writers of a whole tree call it first: a refusal then
	// changes nothing.
	CheckTree(name string) error
	Rename(oldName, newName string) error
	SetAttr(name string, set, clear Attr) error
	Fallocate(name string, length int64, o FallocateOptions) (*FallocateResult, error)
	SetLabel(label string) error
	SetSerial(serial uint32) error
	Commit() error
	Close() error

	// Facts.
	Label() (string, error)
	RootLabel() (string, bool, error)
	Serial() uint32
	ClusterSize() int64
	// ClusterOffset is the byte offset of cluster c from the volume's start.
	ClusterOffset(c uint32) int64
	Clusters() uint32
	FreeClusters() uint32
	// MaxFileSize is the largest file the format can hold (FAT: 4 GiB - 1;
	// exFAT: far more than any volume, which limits it first).
	MaxFileSize() int64
	Device() *fio.Device
	Warnings() []string
	WasDirty() bool
	Now() time.Time
	SetClock(now func() time.Time)
}

// Open opens the FAT or exFAT volume on dev, as its boot sector says.
func Open(dev *fio.Device) (Volume, error) {
	ex, err := IsExFAT(dev)
	if err != nil {
		return nil, err
	}
	if ex {
		v, err := exfat.Open(dev)
		if err != nil {
			return nil, err
		}
		return ExFAT{v}, nil
	}
	v, err := fat.Open(dev)
	if err != nil {
		return nil, err
	}
	return FAT{v}, nil
}

// IsExFAT reports whether dev starts with an exFAT boot sector.
func IsExFAT(dev *fio.Device) (bool, error) {
	if dev.Size() < 512 {
		return false, nil // too small for either; fat.Open says so
	}
	b := make([]byte, 512)
	if _, err := dev.ReadAt(b, 0); err != nil {
		return false, fmt.Errorf("reading the boot sector: %w", err)
	}
	return exfat.IsExFAT(b), nil
}

// AsFAT returns the *fat.Volume behind v, or nil when v is not FAT.
func AsFAT(v Volume) *fat.Volume {
	if f, ok := v.(FAT); ok {
		return f.Volume
	}
	return nil
}

// AsExFAT returns the *exfat.Volume behind v, or nil when v is not exFAT.
func AsExFAT(v Volume) *exfat.Volume {
	if x, ok := v.(ExFAT); ok {
		return x.Volume
	}
	return nil
}

// NoSpace returns the *NoSpaceError err wraps (how much was needed and
// how much was free; both packages return the one type), or nil.
func NoSpace(err error) error {
	var ns *fserr.NoSpaceError
	if errors.As(err, &ns) {
		return ns
	}
	return nil
}

// IsFull reports whether err means the volume or a directory is full: a
// copy that meets it stops, since every later file would fail the same way.
func IsFull(err error) bool { return fserr.IsFull(err) }
