// Package fsutil holds what pkg/fat and pkg/exfat do alike and is not
// the on-disk format of either: comparing a volume's files with host
// files, and the shape of their errors.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	fio "github.com/ftools/ftools/pkg/io"
)

// VolumeFS is what Compare reads of a volume: volume paths ("/A/B"), as
// pkg/fat's and pkg/exfat's volumes take them.
type VolumeFS interface {
	Open(name string) (fs.File, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// Difference is one way a volume's copy differs from its host original.
type Difference struct {
	Path    string // the volume path, "/A/B"
	Message string
}

// compareBuf is how much of each side Compare reads at a time.
const compareBuf = 1 << 20

// Compare compares the host file or tree at hostPath with the file or
// tree at volPath in v ("/A/B", "::/A/B" or "A/B") byte for byte, and
// returns each difference: a member missing on either side, a file on
// one side and a directory on the other, sizes that differ, and contents
// that differ (naming the first differing byte). Names match under fold,
// as the volume compares them. Host symbolic links are followed; other
// special files are reported and skipped. The error is for what stops the
// comparison (the host path cannot be read). The host files read pass
// the page cache without staying there unless cache is set.
func Compare(v VolumeFS, fold func(string) string, hostPath, volPath string, cache bool) ([]Difference, error) {
	hi, err := os.Stat(hostPath)
	if err != nil {
		return nil, err
	}
	c := &comparer{v: v, fold: fold, cache: cache, buf1: make([]byte, compareBuf), buf2: make([]byte, compareBuf)}
	vp := path.Clean("/" + strings.ReplaceAll(strings.TrimPrefix(volPath, "::"), "\\", "/"))
	vi, err := v.Stat(volPath)
	if err != nil {
		c.addf(vp, "missing in the volume (host %s)", hostPath)
		return c.diffs, nil
	}
	return c.diffs, c.compare(hostPath, hi, vp, vi)
}

type comparer struct {
	v          VolumeFS
	fold       func(string) string
	diffs      []Difference
	buf1, buf2 []byte
	cache      bool // keep the host files read in the page cache
}

func (c *comparer) addf(p, format string, args ...any) {
	c.diffs = append(c.diffs, Difference{Path: p, Message: fmt.Sprintf(format, args...)})
}

func (c *comparer) compare(host string, hi fs.FileInfo, vp string, vi fs.FileInfo) error {
	switch {
	case hi.IsDir() && vi.IsDir():
		return c.compareDirs(host, vp)
	case hi.IsDir():
		c.addf(vp, "is a file in the volume but %s is a directory", host)
	case vi.IsDir():
		c.addf(vp, "is a directory in the volume but %s is a file", host)
	case !hi.Mode().IsRegular():
		c.addf(vp, "%s is not a regular file (%v): not compared", host, hi.Mode().Type())
	default:
		return c.compareFiles(host, hi, vp, vi)
	}
	return nil
}

func (c *comparer) compareDirs(host, vp string) error {
	hents, err := os.ReadDir(host)
	if err != nil {
		return err
	}
	vents, err := c.v.ReadDir(vp)
	if err != nil {
		c.addf(vp, "cannot be listed in the volume: %v", err)
		return nil
	}
	byName := make(map[string]fs.DirEntry, len(vents))
	for _, e := range vents {
		byName[c.fold(e.Name())] = e
	}
	matched := map[string]bool{}
	for _, he := range hents {
		hp := filepath.Join(host, he.Name())
		child := path.Join(vp, he.Name())
		ve, ok := byName[c.fold(he.Name())]
		if !ok {
			c.addf(child, "missing in the volume (host %s)", hp)
			continue
		}
		matched[c.fold(he.Name())] = true
		hi, err := os.Stat(hp)
		if err != nil {
			c.addf(child, "host %s cannot be read: %v", hp, err)
			continue
		}
		vi, err := ve.Info()
		if err != nil {
			c.addf(child, "cannot be read in the volume: %v", err)
			continue
		}
		if err := c.compare(hp, hi, path.Join(vp, ve.Name()), vi); err != nil {
			return err
		}
	}
	var extra []string
	for k, e := range byName {
		if !matched[k] {
			extra = append(extra, e.Name())
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		c.addf(path.Join(vp, name), "missing on the host (in %s)", host)
	}
	return nil
}

func (c *comparer) compareFiles(host string, hi fs.FileInfo, vp string, vi fs.FileInfo) error {
	if hi.Size() != vi.Size() {
		c.addf(vp, "size differs: %d bytes in the volume, %d in %s", vi.Size(), hi.Size(), host)
		return nil
	}
	f, err := os.Open(host)
	if err != nil {
		return err
	}
	// Read through the page cache without keeping the original there
	// (unless cache says to): a comparison of a card's worth of files
	// must not evict the rest.
	hf := fio.NewHostFile(f, hi.Size(), c.cache)
	defer hf.Close()
	vf, err := c.v.Open(vp)
	if err != nil {
		c.addf(vp, "cannot be read in the volume: %v", err)
		return nil
	}
	defer vf.Close()
	var off int64
	for {
		n1, err1 := io.ReadFull(hf, c.buf1)
		if err1 != nil && !errors.Is(err1, io.EOF) && !errors.Is(err1, io.ErrUnexpectedEOF) {
			return err1
		}
		n2, err2 := io.ReadFull(vf, c.buf2[:n1])
		if err2 != nil && !errors.Is(err2, io.EOF) && !errors.Is(err2, io.ErrUnexpectedEOF) {
			c.addf(vp, "cannot be read in the volume at byte %d: %v", off+int64(n2), err2)
			return nil
		}
		if i := FirstDiff(c.buf1[:n1], c.buf2[:n2]); i >= 0 {
			c.addf(vp, "content differs from %s at byte %d", host, off+int64(i))
			return nil
		}
		off += int64(n1)
		if n1 < len(c.buf1) {
			return nil
		}
	}
}

// FirstDiff is the index of the first byte where a and b differ (the
// shorter one's length when one is a prefix of the other), -1 when they
// are equal.
func FirstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}
