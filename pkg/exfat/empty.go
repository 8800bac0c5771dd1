package exfat

// Empty drops the data of the file name, which stays on the volume 0 bytes
// long, with its entry set and attributes. Its clusters are freed by the
// next Commit, once the entry set that named them is durable: a cut in
// between leaves them lost (marked in use, named by no entry), never named
// by two files.
//
// It is how a file that fits only in the clusters of the one it replaces
// is written: Empty, Commit, then Create over the empty file. A power cut
// before the new file's Close commits leaves the file empty (and lost
// clusters), which Create's own order, new data first, never does.
func (v *Volume) Empty(name string) error {
	if err := v.begin(); err != nil {
		return err
	}
	parent, r, err := v.lookup("empty", name)
	if err != nil {
		return err
	}
	if r == nil || r.IsDir() {
		return pathErr("empty", name, ErrIsDir)
	}
	exts, err := v.fileExtents(&r.Set.Stream)
	if err != nil {
		return pathErr("empty", name, err)
	}
	s := &r.Set.Stream
	if s.FirstCluster == 0 && s.DataLength == 0 {
		return nil
	}
	now := v.Now()
	// An empty file has no cluster and no NoFatChain (see streamFor).
	s.Flags, s.FirstCluster, s.DataLength, s.ValidDataLength = streamAllocOK, 0, 0, 0
	r.Set.File.Attr |= AttrArchive
	r.Set.File.Modify, r.Set.File.Access = MakeTimestamp(now), accessStamp(now)
	if err := parent.update(r); err != nil {
		return err
	}
	v.pendingFree = append(v.pendingFree, exts...)
	return nil
}
