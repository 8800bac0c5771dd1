package fat

import (
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Compare compares the host file or tree at hostPath with the file or tree
// at volPath in v ("/A/B", "::/A/B" or "A/B") byte for byte, and returns
// each difference as a Problem of kind "compare": a member missing on
// either side, a file on one side and a directory on the other, sizes that
// differ, and contents that differ (naming the first differing byte). Names
// match as FAT matches them, case-insensitively. Host symbolic links are
// followed; other special files are reported and skipped. The error is for
// what stops the comparison (the host path cannot be read). The walk is
// pkg/exfat's too (package fsutil). The host files read pass the page
// cache without staying there unless cache is set.
func Compare(v *Volume, hostPath, volPath string, cache bool) ([]Problem, error) {
	diffs, err := fsutil.Compare(looseFS{v}, FoldName, hostPath, volPath, cache)
	var out []Problem
	for _, d := range diffs {
		out = append(out, Problem{Kind: KindCompare, Path: d.Path, Offset: -1, Message: d.Message})
	}
	return out, err
}

// looseFS serves fsutil.Compare the volume with the toolkit's looser
// volume paths ("/a/b"), which Volume's fs.FS methods refuse.
type looseFS struct{ v *Volume }

func (l looseFS) Open(name string) (fs.File, error) {
	l.v.settle()
	f, err := l.v.openPath(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (l looseFS) Stat(name string) (fs.FileInfo, error) {
	l.v.settle()
	return l.v.statPath(name)
}

func (l looseFS) ReadDir(name string) ([]fs.DirEntry, error) {
	l.v.settle()
	return l.v.readDirPath(name)
}
