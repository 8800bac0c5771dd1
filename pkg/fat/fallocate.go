package fat

import (
	"fmt"
	"io/fs"
)

// FallocateOptions tune Fallocate.
type FallocateOptions struct {
	// KeepSize allocates past the end without changing the file's size,
	// as FALLOC_FL_KEEP_SIZE does on Linux. fsck.fat calls such clusters
	// excess, and the Linux driver frees them when the file is released.
	KeepSize bool
	// NoZero leaves the new clusters' old contents in place: they become
	// readable in the file.
	NoZero bool
}

// FallocateResult is what Fallocate did.
type FallocateResult struct {
	Extents []Extent // clusters newly given to the file, in chain order
	Size    int64    // the file's size afterwards
	Created bool     // the file did not exist before
}

// Fallocate gives the file at name clusters for length bytes, creating it
// (its parent must exist) or extending it; it never shrinks a file. New
// clusters come as one contiguous run where the volume has one (right after
// the file's last cluster, else the first after FSINFO's hint), otherwise
// the fewest runs. Unless opts.NoZero they are zeroed with the device's
// cheapest means, and so is the slack of the old last cluster that a larger
// size exposes. A request beyond the free space fails before anything is
// written, leaving the volume byte for byte as it was.
func (v *Volume) Fallocate(name string, length int64, opts FallocateOptions) (*FallocateResult, error) {
	p := "/" + cleanPath(name)
	if length < 0 {
		return nil, &fs.PathError{Op: "fallocate", Path: p, Err: fmt.Errorf("negative length %d", length)}
	}
	if length > MaxFileSize {
		return nil, &fs.PathError{Op: "fallocate", Path: p, Err: ErrFileTooLarge}
	}
	if !v.writable {
		return nil, ErrReadOnly
	}
	if err := v.settleWrite(); err != nil {
		return nil, err
	}
	parent, base, err := v.walker().Parent("fallocate", name)
	if err != nil {
		return nil, err
	}
	if namesDir(name) {
		return nil, &fs.PathError{Op: "fallocate", Path: p + "/", Err: ErrIsDir}
	}
	rec := parent.lookup(base)
	if rec == nil {
		if err := checkNewName(base); err != nil {
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
	} else if rec.Entry.IsDir() || rec.Entry.IsLabel() {
		return nil, &fs.PathError{Op: "fallocate", Path: p, Err: ErrIsDir}
	}
	var chain []Extent
	var oldSize int64
	if rec != nil {
		oldSize = int64(rec.Entry.Size)
		if chain, err = chainOrNil(v, rec.Entry.Cluster); err != nil {
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
	}
	cs := v.layout.ClusterSize
	have := int64(0)
	for _, e := range chain {
		have += int64(e.Len)
	}
	need := max(v.clustersFor(length)-have, 0)
	// Checked before anything is allocated, zeroed or written, so that a
	// failure leaves the volume byte for byte as it was.
	if rec == nil {
		err = v.roomFor(parent, base, length)
	} else if free := int64(v.allocatable()); need > free {
		err = &NoSpaceError{Need: need * cs, Free: free * cs}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
	}
	res := &FallocateResult{Size: oldSize, Created: rec == nil}
	if need > 0 {
		var after Cluster
		if len(chain) > 0 {
			after = chain[len(chain)-1].End() - 1
		}
		if res.Extents, err = v.allocateAfter(uint32(need), after, phaseEntries); err != nil {
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
	}
	if err := v.begin(); err != nil {
		return nil, err
	}
	newSize := oldSize
	if !opts.KeepSize && length > oldSize {
		newSize = length
	}
	if !opts.NoZero {
		// Data still queued (from an earlier Writer) lands before the
		// zeros: its clusters may be the ones just allocated, if that
		// Writer was aborted, and its partial blocks may share a block
		// with them.
		if err := v.flushData(); err != nil {
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
		if err := v.zeroNew(chain, oldSize, newSize, res.Extents); err != nil {
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
	}
	first := Cluster(0)
	if len(chain) > 0 {
		first = chain[0].Start
	} else if len(res.Extents) > 0 {
		first = res.Extents[0].Start
	}
	res.Size = newSize
	if rec == nil {
		e := DirEntry{Attr: AttrArchive, Cluster: first, Size: uint32(newSize)}
		now := v.Now()
		e.SetTimes(now, now, now)
		if _, err := parent.add(base, e); err != nil {
			v.trimExtents(&res.Extents, 0)
			return nil, &fs.PathError{Op: "fallocate", Path: p, Err: err}
		}
		return res, nil
	}
	if rec.Entry.Cluster != first || int64(rec.Entry.Size) != newSize {
		rec.Entry.Cluster = first
		if int64(rec.Entry.Size) != newSize {
			rec.Entry.Size = uint32(newSize)
			rec.Entry.SetTimes(rec.Entry.CreateTimeValue(), v.Now(), v.Now())
		}
		if len(chain) > 0 && need > 0 {
			v.updateExtended(parent, rec)
		} else {
			parent.update(rec)
		}
	}
	return res, nil
}

// updateExtended writes the entry of a file that got more clusters. The
// new clusters (zeroed) and their chain go out with the data, the link
// from the old last cluster to them after a barrier, and the entry (first
// cluster, size) only after another: a cut leaves the file with its old
// size and bytes and, at worst, a chain longer than it (excess clusters,
// trimmed like lost ones), never a size its chain does not cover.
func (v *Volume) updateExtended(parent *dir, rec *Record) {
	v.later(parent, phaseAfterEntries, func() { parent.update(rec) })
}

// zeroNew zeroes the new extents, and the bytes of the old last cluster
// between the old size and the new one.
func (v *Volume) zeroNew(chain []Extent, oldSize, newSize int64, exts []Extent) error {
	cs := v.layout.ClusterSize
	// Zeroing is data: the commit's barrier covers the dirty bit with it.
	if err := v.markDirty(false); err != nil {
		return err
	}
	if newSize > oldSize && len(chain) > 0 && oldSize%cs != 0 {
		last := oldSize / cs
		if c, ok := clusterAt(chain, last); ok {
			end := cs
			if newSize < (last+1)*cs {
				end = newSize - last*cs
			}
			off := v.layout.ClusterOffset(c)
			if err := v.dev.Zero(off+oldSize%cs, end-oldSize%cs); err != nil {
				return err
			}
		}
	}
	for _, e := range exts {
		if err := v.dev.Zero(v.layout.ClusterOffset(e.Start), int64(e.Len)*cs); err != nil {
			return err
		}
	}
	return nil
}
