package vol

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// The path rule is the package doc's (vol.go): one for both file systems.

// checkFSPath refuses a name the io/fs methods do not take.
func checkFSPath(op, name string) error { return fsutil.CheckFSName(op, name) }

// FS-side methods of the exFAT adapter: pkg/exfat's own Open, Stat and
// ReadDir take volume paths, so the rule is applied here, as pkg/fat
// applies it itself.

func (v ExFAT) Open(name string) (fs.File, error) {
	if err := checkFSPath("open", name); err != nil {
		return nil, err
	}
	return v.Volume.Open(name)
}

func (v ExFAT) Stat(name string) (fs.FileInfo, error) {
	if err := checkFSPath("stat", name); err != nil {
		return nil, err
	}
	return v.Volume.Stat(name)
}

func (v ExFAT) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := checkFSPath("readdir", name); err != nil {
		return nil, err
	}
	return v.Volume.ReadDir(name)
}
