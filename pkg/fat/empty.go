package fat

import "io/fs"

// Empty drops the data of the file name, which stays on the volume 0 bytes
// long, with its name, entry and attributes. Its clusters are freed by the
// next Commit, once the entry that named them is durable: a cut in between
// leaves them lost (in use, named by no entry), never named by two files.
//
// It is how a file that fits only in the clusters of the one it replaces
// is written: Empty, Commit, then Create over the empty file. A power cut
// before the new file's Close commits leaves the file empty (and lost
// clusters), which Create's own order, new data first, never does.
func (v *Volume) Empty(name string) error {
	if err := v.begin(); err != nil {
		return err
	}
	if err := v.settleWrite(); err != nil {
		return err
	}
	parent, r, err := v.lookup("empty", name)
	if err != nil {
		return err
	}
	if r == nil || r.Entry.IsDir() || r.Entry.IsLabel() {
		return &fs.PathError{Op: "empty", Path: "/" + cleanPath(name), Err: ErrIsDir}
	}
	chain, err := chainOrNil(v, r.Entry.Cluster)
	if err == nil {
		err = v.guardFree(chain)
	}
	if err != nil {
		return &fs.PathError{Op: "empty", Path: "/" + cleanPath(name), Err: err}
	}
	if r.Entry.Cluster == 0 && r.Entry.Size == 0 {
		return nil
	}
	now := v.Now()
	r.Entry.Cluster, r.Entry.Size = 0, 0
	r.Entry.Attr |= AttrArchive
	r.Entry.SetTimes(r.Entry.CreateTimeValue(), now, now)
	parent.update(r)
	v.pendingFree = append(v.pendingFree, chain...)
	return nil
}
