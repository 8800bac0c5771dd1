package fat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// compareBuf is how much of each side Compare reads at a time.
const compareBuf = 1 << 20

// Compare compares the host file or tree at hostPath with the file or tree
// at volPath in v ("/A/B", "::/A/B" or "A/B") byte for byte, and returns
// each difference as a Problem of kind "compare": a member missing on
// either side, a file on one side and a directory on the other, sizes that
// differ, and contents that differ (naming the first differing byte). Names
// match as FAT matches them, case-insensitively. Host symbolic links are
// followed; other special files are reported and skipped. The error is for
// what stops the comparison (the host path cannot be read).
func Compare(v *Volume, hostPath, volPath string) ([]Problem, error) {
	hi, err := os.Stat(hostPath)
	if err != nil {
		return nil, err
	}
	c := &comparer{v: v, buf1: make([]byte, compareBuf), buf2: make([]byte, compareBuf)}
	vp := "/" + cleanPath(volPath)
	if vp == "/." {
		vp = "/"
	}
	vi, err := v.statPath(volPath)
	if err != nil {
		c.addf(vp, "missing in the volume (host %s)", hostPath)
		return c.probs, nil
	}
	return c.probs, c.compare(hostPath, hi, vp, vi)
}

type comparer struct {
	v          *Volume
	probs      []Problem
	buf1, buf2 []byte
}

func (c *comparer) addf(path, format string, args ...any) {
	c.probs = append(c.probs, Problem{Kind: KindCompare, Path: path, Offset: -1, Message: fmt.Sprintf(format, args...)})
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
	vents, err := c.v.readDirPath(vp)
	if err != nil {
		c.addf(vp, "cannot be listed in the volume: %v", err)
		return nil
	}
	byName := make(map[string]fs.DirEntry, len(vents))
	for _, e := range vents {
		byName[FoldName(e.Name())] = e
	}
	matched := map[string]bool{}
	for _, he := range hents {
		hp := filepath.Join(host, he.Name())
		child := joinPath(vp, he.Name())
		ve, ok := byName[FoldName(he.Name())]
		if !ok {
			c.addf(child, "missing in the volume (host %s)", hp)
			continue
		}
		matched[FoldName(he.Name())] = true
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
		if err := c.compare(hp, hi, joinPath(vp, ve.Name()), vi); err != nil {
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
		c.addf(joinPath(vp, name), "missing on the host (in %s)", host)
	}
	return nil
}

func (c *comparer) compareFiles(host string, hi fs.FileInfo, vp string, vi fs.FileInfo) error {
	if hi.Size() != vi.Size() {
		c.addf(vp, "size differs: %d bytes in the volume, %d in %s", vi.Size(), hi.Size(), host)
		return nil
	}
	hf, err := os.Open(host)
	if err != nil {
		return err
	}
	defer hf.Close()
	vf, err := c.v.openPath(vp)
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
		if i := firstDiff(c.buf1[:n1], c.buf2[:n2]); i >= 0 {
			c.addf(vp, "content differs from %s at byte %d", host, off+int64(i))
			return nil
		}
		off += int64(n1)
		if n1 < len(c.buf1) {
			return nil
		}
	}
}
