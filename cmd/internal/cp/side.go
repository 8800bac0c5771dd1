package cp

import (
	"io"
	"slices"
	"strings"
	"time"
)

// kind classifies a source entry after the symbolic link rules.
type kind uint8

const (
	kindFile kind = iota
	kindDir
	kindSkip // not copied: why says why
)

// entry is a source file or directory as the copy sees it.
// A folder's listing holds one for each member (60,000 of them), so an
// entry is small: its fields are laid out without padding, its time is a
// stamp, and what only directories and skips have is apart (more).
type entry struct {
	name  string
	size  int64
	mtime stamp
	more  *entryMore // nil: no identity (files), no reason
	first uint32     // volume files: the first cluster (0: none)
	kind  kind
	fail  bool // kindSkip that is an error (a dangling link), not a choice
	// note: a kindSkip that is only noted, no problem: the image being
	// written, met in the tree copied into it.
	note bool
	// stream: a FIFO or character device named as an operand, read to its
	// end as standard input is (size -1: unknown until then).
	stream bool
}

// entryMore is what few entries have.
type entryMore struct {
	id  fileID // directories: what identifies them, for loop detection
	why string // kindSkip: the reason
}

// ident is a directory's identity (zero: none known).
func (e entry) ident() fileID {
	if e.more == nil {
		return fileID{}
	}
	return e.more.id
}

// reason is why a kindSkip is not copied.
func (e entry) reason() string {
	if e.more == nil {
		return ""
	}
	return e.more.why
}

// withID and withWhy set them (in a new entryMore: entries are copied).
func (e *entry) withID(id fileID) {
	m := entryMore{why: e.reason(), id: id}
	e.more = &m
}

func (e *entry) withWhy(why string) {
	m := entryMore{id: e.ident(), why: why}
	e.more = &m
}

// skipEntry is a member not copied, for why (an error when fail).
func skipEntry(name string, fail bool, why string) entry {
	e := entry{name: name, kind: kindSkip, fail: fail}
	e.withWhy(why)
	return e
}

// listPage is how many members a listing reads at a time: a folder of
// 60,000 names is turned into entries a page at a time, not listed whole
// (and, on a volume, copied for its lock) before.
const listPage = 1024

// sortEntries puts a listing in name order, as os.ReadDir and a volume's
// ReadDir list (a folder's names differ).
func sortEntries(ents []entry) {
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name, b.name) })
}

// fileID identifies a directory: device and inode on the host, first
// cluster on a volume.
type fileID struct{ dev, ino uint64 }

// existing is what a destination path already holds.
type existing struct {
	exists bool
	dir    bool
	name   string // its name as shown
	// secondary: the path matched only the entry's short name, not its
	// (different) long name.
	secondary bool
	first     uint32 // volume files: the first cluster
}

// side is the host or one volume, as a source and as a destination.
// Paths are host paths, or volume paths ("." for the root).
type side interface {
	// id names the side for keys: "" for the host.
	id() string

	// stat describes a source path; top is set for an operand, whose
	// symbolic link is followed whatever the rules below it.
	stat(p string, top bool) (entry, error)
	// list returns a directory's entries in name order, each classified.
	list(p string) ([]entry, error)
	join(dir, name string) string
	base(p string) string

	// lookup says what a destination path holds.
	lookup(p string) (existing, error)
	// mkdir makes a directory; slots is what its members take on a
	// volume (dirSlots), for it to be made whole.
	mkdir(p string, mtime time.Time, slots int) error
	create(p string, size int64, mtime time.Time) (fileSink, error)
	finishDir(p string, mtime time.Time) error
	// storeName says what becomes of a source's name here.
	storeName(name string) nameFix
	// fold is the key under which names clash here.
	fold(name string) string
}

// fileSink is a file being written.
type fileSink interface {
	io.Writer
	Close() error
	Abort() // drop the partial file
}

// end is a path on a side, with the path as messages show it.
type end struct {
	side side
	path string
	show string
}

func (e end) child(name string) end {
	return end{e.side, e.side.join(e.path, name), e.side.join(e.show, name)}
}
