package fsutil

import (
	"io/fs"
	"time"
)

// Stamp is the modification time a new file or directory records: mtime,
// or for the zero time (which both file systems would store as their
// earliest, 1980-01-01) the volume's clock, now. Both codecs' Create (through FileWriter) and
// Mkdir (through MkdirStart) apply it, so every path to them does.
func Stamp(mtime time.Time, now func() time.Time) time.Time {
	if mtime.IsZero() && now != nil {
		return now()
	}
	return mtime
}

// NewDir is a directory MkdirStart has begun: the directory that will
// hold it and its name there, its clusters (Clusters of them, as the
// codec's runs, not yet written nor named by anything) and the
// modification time it records (Stamp).
type NewDir[D, E any] struct {
	Parent   D
	Base     string
	Exts     []E
	Clusters int64
	Mtime    time.Time
}

// MkdirStart is the opening both codecs' MkdirSized share: it starts the
// change (c.New), refuses a name the parent holds (fs.ErrExist), one the
// file system cannot hold (c.Check) and one the parent has no room for
// with a cluster of cs bytes (c.Room), then takes the clusters for slots
// entries (AllocDir, with the format's maxBytes, free clusters as free
// counts them and the codec's allocate). Its errors after the change
// began name the path, as mkdir's.
func MkdirStart[D, R comparable, E any](c Changes[D, R], name string, mtime time.Time, slots int, cs, maxBytes int64, free func() int64, allocate func(n uint32) ([]E, error)) (NewDir[D, E], error) {
	var nd NewDir[D, E]
	parent, base, err := c.New("mkdir", name)
	if err != nil {
		return nd, err
	}
	var noR R
	if c.Member(parent, base) != noR {
		err = fs.ErrExist
	} else if err = c.Check(base); err == nil {
		err = c.Room(parent, base, cs)
	}
	if err == nil {
		nd.Exts, nd.Clusters, err = AllocDir(int64(slots), cs, maxBytes, free(), allocate)
	}
	if err != nil {
		return nd, &fs.PathError{Op: "mkdir", Path: "/" + CleanPath(name), Err: err}
	}
	nd.Parent, nd.Base, nd.Mtime = parent, base, Stamp(mtime, c.Now)
	return nd, nil
}
