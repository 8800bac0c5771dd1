// Package vol reads and writes FAT12, FAT16, FAT32 and exFAT file systems
// in image files, on block devices and in memory, without mounting them.
//
// A Volume is one open file system: an io/fs.FS (with fs.ReadDirFS and
// fs.StatFS) for reading, and methods beside it that change it. OpenFile
// opens the volume in an image file or on a block device, whichever file
// system it holds, with the options of package
// github.com/ftools/ftools/pkg/io (fio): Write to change it, Partition
// for one partition of a disk image's MBR or GPT table, Offset for a
// volume at a byte offset.
//
//	v, err := vol.OpenFile("disk.img", fio.Options{Write: true})
//	...
//	err = v.Close()
//
// OpenBytes opens an image held in a byte slice; OpenReaderAt (read-only:
// every change fails, see IsReadOnly), OpenReadWriterAt and OpenOSFile
// open a volume on storage the caller brings. The volumes these return own
// their device and close it with themselves, leaving the caller's storage
// open. Open takes a device the caller opened (fio.Open, fio.NewMemDevice)
// and leaves it open.
//
// Reading goes through io/fs: fs.ReadFile, fs.WalkDir, fs.Glob and the like
// take a Volume as they are. Names match without regard to case, as the
// file system compares them; see Paths for the names each method takes.
//
// Writing: Create returns a Writer for a new file, or for one that
// replaces an existing file of that name once it is complete; Close
// records the file, Abort drops it (and does nothing after Close, so
// deferring it right after Create drops a file that fails half way).
// Mkdir, MkdirAll, Remove, RemoveAll, Rename, SetAttr and SetLabel change
// the tree; CopyFS copies a host tree (any fs.FS) in; CreateFile is
// Create without a size hint or a time. Volume.OpenFile opens an
// existing file to write it in place (FileUpdater: WriteAt, Seek,
// Truncate, append).
//
// Changes take effect on Commit or Close. Both write what changed in the
// crash-safe order of the file system's package (data, then the
// allocation table, then directory entries, with a flush between where
// the device's sync policy asks for one), so that a crash or power cut
// leaves the old state, the new one, or lost clusters a check frees, never
// an entry over unwritten data. A file's data may go out before, into
// clusters nothing names yet (the volume marked dirty first): a program
// that stops before Commit leaves every file and folder as it was.
// Close also clears the dirty bit the session set, and closes the device
// the volume owns; a device's Close flushes under every sync policy but
// fio.SyncNone (the zero fio.Options flush at Close).
//
// Errors: a missing or existing name is an *fs.PathError wrapping
// fs.ErrNotExist or fs.ErrExist; IsFull tells a full volume or directory
// (NoSpace says how much was needed); damage is an error naming the
// structure and where it lies.
//
// Formatting, checking, repairing and each file system's own features are
// described under "The rest of the surface" below.
//
// # Lifetimes
//
// Close writes every change and clears the dirty bit. A Writer still open
// then is dropped, as its Abort drops it (a file it was to replace stays
// as it was), and Close returns an error naming the file (ErrWriterOpen):
// half a file is never recorded. A file open for writing in place
// (OpenFile) is closed instead, its entry recorded, since its bytes are
// already in place; Close names it the same way. After Close every call that can fail
// returns ErrClosed (reads of files opened before included; the facts
// that cannot fail, such as Type or FreeClusters, answer from what the
// volume last knew). While a volume is open, its device refuses to close
// when writable (fio.ErrInUse): close the volume first. A read-only device
// closed under a volume makes its next call fail (fio.ErrClosed).
//
// # Goroutines
//
// A Volume from Open or the other Open functions may be used from many
// goroutines at once: each call into it, into a file it opened or into a
// Writer it created holds one lock of the volume for its duration. So
// reads from many goroutines are safe (one at a time: the file systems'
// reads share caches of directories and FAT windows), writers are
// serialized (one Write, Close or change at a time; several Writers may be
// open, each used by one goroutine), and a reader sees a file as it was
// or, once its Writer has closed, as it is now, never half written: a
// FileInfo or listing is a copy taken when asked, and a read of a file
// replaced, removed, renamed or written in place (Volume.OpenFile) since it
// was opened fails with ErrChanged
// (open it again) rather than read clusters that may by then hold other
// data (the volume checks its open files after each change: close them
// when done). A ReadAhead resolves each file under the lock and reads the
// device outside it; the files it lists must not change until it has read
// them. Writer.ReadFrom holds the lock for its whole copy: its source must
// not read the same volume (a file of it is copied through a buffer
// instead). The *fat.Volume and *exfat.Volume behind AsFAT and AsExFAT,
// and the FAT and ExFAT adapters on their own, have no lock: one goroutine
// at a time.
//
// # Paths
//
// One rule, on both file systems alike:
//
//   - The io/fs methods (Open, Stat, ReadDir, and so fs.ReadFile,
//     fs.WalkDir, fs.Glob...) take the names io/fs allows (fs.ValidPath):
//     unrooted, slash-separated, without "." or ".." elements or
//     backslashes, "." for the root; a trailing slash may follow, and
//     says the name must be a directory (as for open(2): "file/" is an
//     error, ErrNotDir). Any other name ("/a",
//     "a/../b", "a/./b", `a\b`, "::/a", "") is refused with fs.ErrInvalid
//     in an *fs.PathError, as io/fs asks, and testing/fstest.TestFS checks.
//   - The methods that change the volume (Create, Mkdir, MkdirAll, Remove,
//     RemoveAll, Empty, Rename, SetAttr, Fallocate, CheckTree, and
//     CopyFS's folder) take volume paths, the toolkit's looser form: rooted or not, "\" read as "/",
//     a leading "::" dropped, cleaned lexically ("a/../a/b" is "a/b",
//     "/" and "." the root), with the same trailing-slash rule.
//
// Names match as the volume compares them: without case.
//
// # The rest of the surface
//
// Format makes a new file system of either kind on a device, with its
// own parameters (FATParams or ExFATParams), Trim discards a volume's
// free clusters, and Sort orders its directory entries as fatsort does.
// Check checks a volume as fsck.fat -n and fsck.exfat -n
// do and Repair repairs what it found, with one Report for both;
// Describe gives a volume's layout in one Description; Room and
// EntrySlots say what a set of new names takes, for a planner that
// refuses before it writes. FAT-only features (FSINFO, allocation
// policies other than contiguous, the boot sector's label) are the
// optional interface FATFeatures; the code page of FAT's short names and
// labels is SetCodePage, one setting for the process. The rest of each
// file system's own surface stays on its package's Volume, reached with
// AsFAT and AsExFAT. A device opened with FTOOLS_WRITE_LOG set records
// its writes (see package fio), for power-cut replay tests.
//
// # Cancelling
//
// The long operations take a context.Context in their options, nil
// meaning context.Background: CheckOptions.Context, RepairOptions.Context,
// FormatOptions.Context, TrimOptions.Context and SortOptions.Context; a copy into a Writer
// reads its source through ContextReader. Each looks at the context only
// at points where a power cut could stop it too, and leaves what the cut
// would, never more: cancelled, it returns an error wrapping the
// context's (errors.Is(err, context.Canceled)).
//
//   - Check stops at its next step or directory; it writes nothing.
//   - Repair stops before its first write (nothing written) or between
//     two steps of its crash-safe order, each written whole: a new Check
//     then reports what is left, no problem the first one did not, and
//     Repair takes it up again (see Repair).
//   - Format stops before its first write (nothing written), or once the
//     old signatures are cleared (made durable first) or the range
//     discarded: the device then claims no file system, neither the old
//     one nor a half-made new one (unless KeepSignatures kept the old
//     one's). Its file system's own format, once begun, runs to its end
//     (see Format).
//   - Trim stops during its check (nothing discarded) or between two
//     discards: any subset of them leaves the volume as it was.
//   - Sort stops during its check (nothing written) or between two
//     directories, each in its old order or its new.
//   - CopyFSContext stops between two entries of its tree or two reads
//     of a file: it drops the file it was writing and keeps the ones
//     before (the next Commit or Close records them).
//   - A copy through ContextReader stops between two reads of its
//     source; Abort the Writer, and no entry names what was written
//     (the data lies in clusters a Commit or Close leaves free).
package vol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsattr"
	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/readahead"
	fio "github.com/ftools/ftools/pkg/io"
)

// Attr holds the attribute bits FAT and exFAT share, with the values both
// store them with (pkg/internal/fsattr's, which both codecs use: a test
// keeps the two the same).
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
func (a Attr) String() string { return fsattr.Attr(a).String() }

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
	// After a Write (or ReadFrom) that failed, Close records nothing: it
	// drops the file as Abort does and returns that error.
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

// ReadAhead reads the data of a list of files, in the order given, with
// several large aligned requests in flight ahead of its consumer, so that
// reading the volume overlaps whatever the consumer does with the data.
// Contiguous data is read in requests of the device's I/O size;
// consecutive small files that lie next to each other share requests.
// Where each file lies is worked out a little ahead of the consumer, so
// memory stays bounded however many files the list holds; the consumer
// must not change the listed files until it has read them. Files are
// taken with File(i) for increasing i (files skipped over are dropped
// unread); Close stops the reads and must be called. On exFAT, bytes past
// a file's valid data length come as zeros, without a read.
type ReadAhead = readahead.ReadAhead

// Volume is an open FAT12/16/32 or exFAT volume. Open, Stat and ReadDir
// take io/fs names, the methods that change the volume volume paths
// (see Paths in the package doc: the same rule on both); names match as
// the volume compares them (without case).
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
	// in the crash-safe order of the format's package doc. A zero mtime
	// given to Create, Mkdir, MkdirSized or MkdirAll is the volume's Now
	// on every volume (the codecs apply the rule, so OpenAs's unguarded
	// volumes and pkg/fat and pkg/exfat used alone keep it too).
	Create(name string, sizeHint int64, mtime time.Time) (Writer, error)
	// OpenFile opens an existing file for writing in place (flag:
	// os.O_WRONLY or os.O_RDWR, with O_APPEND, O_CREATE, O_EXCL, O_TRUNC).
	OpenFile(name string, flag int) (FileUpdater, error)
	Mkdir(name string, mtime time.Time) error
	// MkdirSized is Mkdir for a directory that will hold slots slots of
	// 32 bytes (DirSlots counts them for its members' names): it is made
	// with room for all of them, contiguous where the free space allows,
	// so that it does not grow in pieces between its files' data.
	MkdirSized(name string, mtime time.Time, slots int) error
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

// Open opens the FAT or exFAT volume on dev, as its boot sector says. The
// caller closes the volume, then dev: while the volume is open, closing a
// writable dev fails (fio.ErrInUse) and leaves both usable. See the
// package doc for what is safe from several goroutines.
func Open(dev *fio.Device) (Volume, error) {
	v, err := openVolume(dev)
	if err != nil {
		return nil, err
	}
	return guard(v, nil)
}

// openVolume opens the file system's volume on dev behind its adapter,
// unguarded.
func openVolume(dev *fio.Device) (Volume, error) {
	ex, err := IsExFAT(dev)
	if err != nil {
		return nil, err
	}
	return OpenAs(dev, ex)
}

// OpenAs opens the volume on dev as exFAT or as FAT, as IsExFAT said,
// without reading the boot sector for that again (Open does both).
func OpenAs(dev *fio.Device, exFAT bool) (Volume, error) {
	if exFAT {
		v, err := exfat.Open(dev)
		if err != nil {
			return nil, err
		}
		return ExFAT{v}, nil
	}
	v, err := fat.Open(dev)
	if errors.Is(err, fat.ErrNotFAT) {
		// Neither file system's boot sector: say so first, then why.
		return nil, fmt.Errorf("not a FAT or exFAT volume: %w", err)
	}
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

// AsFAT returns the *fat.Volume behind v, or nil when v is not FAT. It
// bypasses v's lock (see Goroutines above).
func AsFAT(v Volume) *fat.Volume {
	v = unguarded(v)
	if f, ok := v.(FAT); ok {
		return f.Volume
	}
	return nil
}

// AsExFAT returns the *exfat.Volume behind v, or nil when v is not exFAT.
// It bypasses v's lock.
func AsExFAT(v Volume) *exfat.Volume {
	v = unguarded(v)
	if x, ok := v.(ExFAT); ok {
		return x.Volume
	}
	return nil
}

// unguarded is the adapter behind the Volume Open returned.
func unguarded(v Volume) Volume {
	if l := lockOf(v); l != nil {
		return l.Volume
	}
	return v
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

// ReadAhead starts reading the named files (volume paths): ReadAheadFunc
// over a list.
func (v FAT) ReadAhead(names []string, o ReadAheadOptions) *ReadAhead {
	return v.ReadAheadFunc(len(names), nameAt(names), o)
}

// ReadAheadFunc starts reading n files whose names name gives, asked for
// as the read-ahead reaches them.
func (v FAT) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	return readahead.NewFunc(v.Device(), n, placeEach(name, v.AheadSource), o)
}

// ReadAhead starts reading the named files (volume paths): ReadAheadFunc
// over a list.
func (v ExFAT) ReadAhead(names []string, o ReadAheadOptions) *ReadAhead {
	return v.ReadAheadFunc(len(names), nameAt(names), o)
}

// ReadAheadFunc starts reading n files whose names name gives, asked for
// as the read-ahead reaches them.
func (v ExFAT) ReadAheadFunc(n int, name func(int) string, o ReadAheadOptions) *ReadAhead {
	return readahead.NewFunc(v.Device(), n, placeEach(name, v.AheadSource), o)
}

// placeEach places the i-th file, named by name, with place.
func placeEach(name func(int) string, place func(string) readahead.Source) func(int) readahead.Source {
	return func(i int) readahead.Source { return place(name(i)) }
}

func nameAt(names []string) func(int) string { return func(i int) string { return names[i] } }
