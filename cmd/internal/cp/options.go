package cp

import (
	"io"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Options configure a copy.
type Options struct {
	Recursive   bool // copy directories (-r, -s)
	Preserve    bool // keep modification times (-p, -m)
	Follow      bool // follow symbolic links to directories (-L)
	Text        bool // LF to CR LF into a volume, CR LF to LF out (-t)
	StopOnError bool // stop at the first skip or failure (-Q)
	Policy      Policy

	// IOSize is the size of the chunks data moves in (default 4 MiB).
	IOSize    int
	ReadAhead vol.ReadAheadOptions
	// Cache keeps host files in the page cache (--cache): otherwise the
	// sources read and the files written out of a volume are kept out of
	// it (fio.HostFile).
	Cache bool

	// Warn prints one line (already escaped) on standard error.
	Warn func(line string)
	// Verbose, if set, is told of each file and directory as it is copied.
	Verbose func(src, dst string)
	// Ask, if set, asks the user a question and returns the answer; nil
	// when nobody can be asked (standard input is not a terminal).
	Ask func(question string) (string, error)
	// Progress is told of the bytes copied as they go.
	Progress func(n int64)
	// Stop is closed when the copy must stop (a signal).
	Stop <-chan struct{}

	// Hints are the command's own words for the options its messages
	// suggest (fcp's when empty).
	Hints Hints
	// Earlier, when set, says that the destination volume holds only
	// what this run copied, in several plans (fmkfs --from fills a new
	// volume one tree at a time): a file found there clashes as one this
	// copy wrote (skipped unless the policy says otherwise), not as one
	// to overwrite. Earlier names its source, given its volume path.
	Earlier func(dst string) string
	// DirsFirst makes every directory of a batch (the whole plan when it
	// is made whole) before any file data of that batch: the directories
	// lie together, ahead of the data, and their entries go out at the
	// commit in a few large writes rather than one per directory between
	// files (fmkfs --from fills a new volume this way).
	DirsFirst bool

	// Stdin and Stdout are what "-" reads and writes.
	Stdin  io.Reader
	Stdout io.Writer
}

// Result is what a copy did.
type Result struct {
	Files int
	Dirs  int
	Bytes int64
	// Skipped lists what was left out by a rule or a choice, Failed what
	// could not be copied; each makes the command's exit status 1.
	Skipped []cmdutil.Problem
	Failed  []cmdutil.Problem
	// Renamed lists what was copied under another name than its own.
	Renamed []Renamed
	// PageCache gathers how the host files read and written passed the
	// page cache (fio.HostFile's modes).
	PageCache fio.HostCacheModes
	// Stopped says why the copy ended early (ErrInterrupted, ErrStopped,
	// or an error that stops every later file, such as a full volume); nil
	// when it ran to the end.
	Stopped error
}

// Summary is what a copy did as the commands report it with --json.
type Summary struct {
	Files   int               `json:"files"`
	Dirs    int               `json:"dirs"`
	Bytes   int64             `json:"bytes"`
	Skipped []cmdutil.Problem `json:"skipped"`
	Failed  []cmdutil.Problem `json:"failed"`
	Renamed []Renamed         `json:"renamed"`
}

// Renamed is a source stored under another name.
type Renamed struct {
	Path   string `json:"path"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// OK reports whether everything named was copied.
func (r *Result) OK() bool {
	return len(r.Skipped) == 0 && len(r.Failed) == 0 && r.Stopped == nil
}

// Hints are the options a copy's messages suggest, in the words of the
// command that runs it.
type Hints struct {
	Autorename string // keeps both names: "-D a"
	Overwrite  string // replaces: "-D o"
	Follow     string // follows a link to a directory: "give -L to follow it"
	// Special says how a FIFO or device met in a tree can be copied:
	// "name a FIFO or device on the command line to copy what it gives".
	Special string
}

// withDefaults fills the hints not given with fcp's.
func (h Hints) withDefaults() Hints {
	if h.Autorename == "" {
		h.Autorename = "-D a"
	}
	if h.Overwrite == "" {
		h.Overwrite = "-D o"
	}
	if h.Follow == "" {
		h.Follow = "give -L to follow it"
	}
	if h.Special == "" {
		h.Special = "name a FIFO or device on the command line to copy what it gives"
	}
	return h
}
