package cp

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

// volSide is one volume, FAT or exFAT.
type volSide struct {
	vol      vol.Volume
	spec     string // the image, as a key
	preserve bool
}

func (v volSide) id() string { return "image:" + v.spec }

func (v volSide) stat(p string, _ bool) (entry, error) {
	fi, err := v.vol.Stat(p)
	if err != nil {
		return entry{}, err
	}
	return v.entryOf(fi), nil
}

func (v volSide) entryOf(fi fs.FileInfo) entry {
	e := entry{name: fi.Name(), size: fi.Size(), mtime: stampOf(fi.ModTime()), kind: kindFile}
	e.first = v.vol.Entry(fi).FirstCluster
	if fi.IsDir() {
		e.kind = kindDir
		e.withID(fileID{ino: uint64(e.first)})
	}
	return e
}

func (v volSide) list(p string) ([]entry, error) {
	d, err := v.openDir(p)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var out []entry
	for {
		ents, err := d.ReadDir(listPage)
		for _, de := range ents {
			fi, err := de.Info()
			if err != nil {
				return nil, err
			}
			e := v.entryOf(fi)
			if why := cmdutil.Unaddressable(de.Name()); why != "" {
				e.kind = kindSkip
				e.withWhy("the name " + quoteName(de.Name()) + " " + why)
			}
			out = append(out, e)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sortEntries(out) // as Volume.ReadDir sorts
	return out, nil
}

// openDir opens directory p for listing it a page at a time. What is no
// directory gets Volume.ReadDir's error.
func (v volSide) openDir(p string) (fs.ReadDirFile, error) {
	f, err := v.vol.Open(p)
	if err == nil {
		if d, ok := f.(fs.ReadDirFile); ok {
			if fi, serr := d.Stat(); serr == nil && fi.IsDir() {
				return d, nil
			}
		}
		f.Close()
	}
	if _, err := v.vol.ReadDir(p); err != nil {
		return nil, err
	}
	return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrInvalid}
}

func (volSide) join(d, n string) string {
	switch {
	case d == "." || d == "":
		return n
	case strings.HasSuffix(d, "/"):
		return d + n
	}
	return d + "/" + n
}

func (volSide) base(p string) string { return path.Base(p) }

func (v volSide) lookup(p string) (existing, error) {
	fi, err := v.vol.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return existing{}, nil
	}
	if err != nil {
		return existing{}, err
	}
	ex := existing{exists: true, dir: fi.IsDir(), name: fi.Name()}
	if en := v.vol.Entry(fi); !en.Root {
		ex.first = en.FirstCluster
		ex.secondary = v.fold(en.Name) != v.fold(path.Base(p))
	}
	return ex, nil
}

func (v volSide) stamp(mtime time.Time) time.Time {
	if !v.preserve {
		mtime = v.vol.Now()
	}
	return cmdutil.Clamp(mtime)
}

func (v volSide) mkdir(p string, mtime time.Time, slots int) error {
	err := v.vol.MkdirSized(p, v.stamp(mtime), slots)
	if errors.Is(err, fs.ErrExist) {
		if fi, serr := v.vol.Stat(p); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}

func (volSide) finishDir(string, time.Time) error { return nil }

func (v volSide) create(p string, size int64, mtime time.Time) (fileSink, error) {
	return v.vol.Create(p, size, v.stamp(mtime))
}

func (v volSide) storeName(name string) nameFix {
	return nameRules{vol.Names(v.vol)}.fix(name)
}

func (v volSide) fold(name string) string { return v.vol.FoldName(name) }

// dirSlots is what the members ents take in a new directory on side s
// (see vol.DirSlots); 0 on the host.
func dirSlots(s side, ents []entry) int64 {
	v, ok := s.(volSide)
	if !ok || len(ents) == 0 {
		return 0
	}
	return int64(vol.DirSlots(v.vol, len(ents), func(i int) string { return ents[i].name }))
}
