package exfat

import (
	"fmt"
	"math"
)

// FallocateOptions tune Fallocate; the fields are pkg/fat's.
type FallocateOptions struct {
	// KeepSize (FALLOC_FL_KEEP_SIZE) cannot be honoured: exFAT describes a
	// file's clusters by its DataLength, so there is no room for clusters
	// past its end. Fallocate refuses it (ErrUnsupported); the valid data
	// length already keeps apart what was written from what was only
	// allocated.
	KeepSize bool
	// NoZero leaves the new clusters' old contents in place and the
	// valid data length where it was. The old contents stay unreadable:
	// they lie past the valid data length, which readers return as
	// zeros.
	NoZero bool
}

// FallocateResult is what Fallocate did.
type FallocateResult struct {
	Extents []Extent // clusters newly given to the file, in order
	Size    int64    // the file's size (DataLength) afterwards
	Created bool     // the file did not exist before
}

// Fallocate gives the file at name clusters for length bytes, creating it
// (its parent must exist) or extending it; it never shrinks a file. New
// clusters come as one contiguous run where the volume has one (right
// after the file's last cluster, which keeps NoFatChain, else the first
// that fits), otherwise the fewest runs, chained in the FAT. The file's
// size becomes length. Unless opts.NoZero, the new clusters and the old
// ones past the valid data are zeroed, and the valid data length becomes
// the size: the zeros are the file's data, which every reader sees (Linux
// before 6.8 takes a file's size from its valid data length). With
// opts.NoZero the valid data length stays where the written data ends,
// so that readers see zeros past it (exFAT specification 7.6.5) and the
// clusters' old contents stay hidden. A request beyond the free space
// fails before anything is written.
func (v *Volume) Fallocate(name string, length int64, opts FallocateOptions) (*FallocateResult, error) {
	if length < 0 {
		return nil, pathErr("fallocate", name, fmt.Errorf("negative length %d", length))
	}
	if opts.KeepSize {
		return nil, pathErr("fallocate", name, fmt.Errorf("%w: exFAT cannot hold clusters past a file's end; allocate the size instead (the valid data length keeps the written part)", ErrUnsupported))
	}
	parent, base, err := v.changes().NewFile("fallocate", name, ErrIsDir)
	if err != nil {
		return nil, err
	}
	rec := parent.lookup(base)
	if rec == nil {
		if err := checkNewName(base); err != nil {
			return nil, pathErr("fallocate", name, err)
		}
	} else if rec.IsDir() {
		return nil, pathErr("fallocate", name, ErrIsDir)
	}
	var old []Extent
	var oldSize, oldValid int64
	noFAT := true
	if rec != nil {
		s := &rec.Set.Stream
		if old, err = v.recordExtents(rec); err != nil {
			return nil, pathErr("fallocate", name, err)
		}
		// Both fit in an int64 now: DataLength is within the heap.
		oldSize, oldValid, noFAT = int64(s.DataLength), int64(min(s.ValidDataLength, s.DataLength)), s.NoFATChain() || s.DataLength == 0
	}
	need := v.clustersFor(length) - extentsClusters(old)
	res := &FallocateResult{Size: oldSize, Created: rec == nil}
	if need > 0 {
		if need > int64(v.bitmap.free) {
			cs := v.layout.ClusterSize
			return nil, pathErr("fallocate", name, &NoSpaceError{Need: min(need, math.MaxInt64/cs) * cs, Free: int64(v.bitmap.free) * cs})
		}
		var after Cluster
		if len(old) > 0 {
			after = old[len(old)-1].End() - 1
		}
		if res.Extents, err = v.allocate(uint32(need), after); err != nil {
			return nil, pathErr("fallocate", name, err)
		}
	}
	if !opts.NoZero {
		if err := v.zeroNew(old, oldValid, res.Extents); err != nil {
			v.release(res.Extents)
			return nil, pathErr("fallocate", name, err)
		}
	}
	all := append(append([]Extent(nil), old...), res.Extents...)
	var merged []Extent
	for _, e := range all {
		merged = appendExtent(merged, e)
	}
	newSize := max(oldSize, length)
	res.Size = newSize
	valid := oldValid
	if !opts.NoZero {
		// Everything past the old valid data is zeros now, so it is
		// valid data: Linux before 6.8 reports a file's size from its
		// valid data length, and would show a new file as empty.
		valid = newSize
	}
	s := StreamEntry{Flags: streamAllocOK, DataLength: uint64(newSize), ValidDataLength: uint64(valid)}
	if len(merged) > 0 {
		s.FirstCluster = merged[0].Start
		if len(merged) == 1 && noFAT {
			s.Flags |= streamNoFATChain
		} else if err := v.fat.setChain(merged); err != nil {
			return nil, pathErr("fallocate", name, err)
		}
	}
	now := v.Now()
	if rec == nil {
		set := EntrySet{File: FileEntry{Attr: AttrArchive, Create: MakeTimestamp(now), Modify: MakeTimestamp(now), Access: accessStamp(now)}, Stream: s}
		if _, err := parent.add(base, set); err != nil {
			v.release(res.Extents)
			return nil, pathErr("fallocate", name, err)
		}
		return res, nil
	}
	if newSize == oldSize && len(res.Extents) == 0 && valid == oldValid {
		return res, nil
	}
	rec.Set.Stream.Flags, rec.Set.Stream.FirstCluster = s.Flags, s.FirstCluster
	rec.Set.Stream.DataLength, rec.Set.Stream.ValidDataLength = s.DataLength, s.ValidDataLength
	rec.Set.File.Modify, rec.Set.File.Access = MakeTimestamp(now), accessStamp(now)
	return res, parent.update(rec)
}

// zeroNew zeroes the new extents, and the old last cluster from the valid
// data's end, with the device's cheapest means. Pending file data goes out
// first, so that no queued write lands over the zeros.
func (v *Volume) zeroNew(old []Extent, valid int64, exts []Extent) error {
	if err := v.flushData(); err != nil {
		return err
	}
	// Zeroing is data: the commit's barrier covers VolumeDirty with it.
	if err := v.markDirty(false); err != nil {
		return err
	}
	l := v.layout
	cs := l.ClusterSize
	if n := extentsClusters(old); n > 0 && valid < n*cs {
		off, err := fileOffset(l, old, valid)
		if err != nil {
			return err
		}
		// Up to the end of the cluster holding the valid data's end; whole
		// clusters past it as well.
		end := (valid/cs + 1) * cs
		if err := v.dev.Zero(off, end-valid); err != nil {
			return err
		}
		for pos := end; pos < n*cs; pos += cs {
			o, err := fileOffset(l, old, pos)
			if err != nil {
				return err
			}
			if err := v.dev.Zero(o, cs); err != nil {
				return err
			}
		}
	}
	for _, e := range exts {
		if err := v.dev.Zero(l.ClusterOffset(e.Start), int64(e.Len)*cs); err != nil {
			return err
		}
	}
	return nil
}
