package exfat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Updater is an existing file open for writing in place (OpenFile): at an
// offset (WriteAt, Seek then Write), at its end (O_APPEND), or cut or
// extended (Truncate). What a power cut leaves:
//
//   - bytes written over the file's clusters go straight to them (no copy
//     on write, as the Linux driver does): each sector holds its old or its
//     new bytes. A write that covers part of a sector reads the rest of it
//     first (the one place a writer reads back what it writes over).
//   - a write past the valid data length zeroes the bytes between it and
//     the write first, then raises the valid data length with the entry.
//   - clusters the file grows by are written (data, zeros for a gap), then
//     marked in the bitmap, then (at Close) chained in the FAT, then the
//     entry gets its new size: a cut leaves lost clusters, or the old size
//     with a chain longer than it (which a check trims), as Fallocate does.
//     A file that grows past its contiguous run becomes chained: its
//     NoFatChain comes off, and the FAT chain is written for the clusters
//     it had too, before the entry that clears the flag.
//   - Truncate to a longer length zeroes and raises the valid data length
//     with the size (as Fallocate does); to a shorter one it writes the
//     entry first and frees the clusters past it only after that (it
//     commits at once); a cut in between leaves lost clusters.
//   - the entry set (sizes, clusters, modification time) is written when
//     the Updater is closed (or synced), by the volume's next commit.
//
// An Updater is used from one goroutine; the file must not be renamed or
// removed while it is open. Its methods (Write, WriteAt, Seek, Truncate,
// Sync, Close, Size, Name) are both file systems' one set: see pkg/vol's
// FileUpdater.
type Updater = fsutil.Updater

// updater is an Updater's state on this file system.
type updater struct {
	fsutil.InPlace[*dir, *Record, Extent]
	v       *Volume
	valid   int64 // the valid data length now
	relink  bool  // clusters were added: the FAT chain is written at record
	chained bool  // the chain on disk is in the FAT
}

// OpenFile opens the file name for writing in place. flag is os.O_WRONLY
// or os.O_RDWR, with any of os.O_APPEND (every Write goes to the end),
// os.O_CREATE (an empty file is made if there is none; with os.O_EXCL,
// an existing one is refused), os.O_TRUNC (the file is cut to 0 bytes).
// See Updater for what a crash leaves.
func (v *Volume) OpenFile(name string, flag int) (*Updater, error) {
	p := "/" + cleanPath(name)
	create := func() (io.Closer, error) { return v.Create(name, 0, v.Now()) }
	parent, r, err := fsutil.OpenUpdate(p, name, flag, v.changes(), create)
	if err != nil {
		return nil, err
	}
	if r.IsDir() {
		return nil, pathErr("open", name, ErrIsDir)
	}
	if r.Set.File.Attr&AttrReadOnly != 0 {
		return nil, pathErr("open", name, fmt.Errorf("%w: the file is read-only (clear its R attribute first)", fs.ErrPermission))
	}
	chain, err := v.recordExtents(r)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	s := &r.Set.Stream
	// Both fit in an int64: recordExtents checked DataLength against the heap.
	size := int64(s.DataLength)
	u := &updater{InPlace: fsutil.InPlace[*dir, *Record, Extent]{Parent: parent, Rec: r, Chain: fsutil.Chain[Extent]{Runs: chain, OnDisk: extentsClusters(chain), Run: Extent.run, Of: extentOf}}, v: v,
		chained: !s.NoFATChain() && len(chain) > 0, valid: int64(min(s.ValidDataLength, s.DataLength))}
	u.File = fsutil.FileUpdate{C: (*updateOps)(u), V: fsutil.UpdateVolume{Begin: v.begin, Commit: v.Commit, Dev: v.dev, Closed: func() bool { return v.closed }, ClosedErr: errClosedWriter, Pin: parent.node.Pin, Unpin: parent.node.Unpin}, Path: p, Size: size, Append: flag&os.O_APPEND != 0, MaxSize: math.MaxInt64, TooLarge: errors.New("exfat: file too large")}
	return u.File.Start(flag&os.O_TRUNC != 0)
}

// updateOps is an Updater as the shared fsutil.FileUpdate drives it.
type updateOps updater

func (o *updateOps) Reach(off, end int64) error    { return (*updater)(o).reach(off, end) }
func (o *updateOps) Put(p []byte, pos int64) error { return o.v.putRuns(p, pos, o.Chain.Runs) }
func (o *updateOps) Wrote(off, end int64)          { o.valid = max(o.valid, end) }
func (o *updateOps) Shrink(n int64) error          { return (*updater)(o).shrink(n) }
func (o *updateOps) Record() error                 { return (*updater)(o).record(true) }

// reach makes the file ready for a write of [off, end): clusters for end
// bytes, and zeros from the valid data length up to off.
func (u *updater) reach(off, end int64) error {
	if err := u.grow(end); err != nil {
		return err
	}
	if off > u.valid {
		if err := fsutil.ZeroRange((*updateOps)(u).Put, u.valid, off); err != nil {
			return err
		}
		u.valid = off
	}
	return nil
}

// grow allocates the clusters a file of n bytes needs beyond its chain,
// right after its last cluster where they are free (marked in the
// bitmap; the FAT is written at record).
func (u *updater) grow(n int64) error {
	return u.Chain.Grow(n, u.v.layout.ClusterSize, func(need int64, last uint32) ([]Extent, error) {
		exts, err := u.v.allocateFree(need, last)
		if err == nil {
			u.relink = true // the new clusters' chain is written at record
		}
		return exts, err
	})
}

// shrink cuts the file to n bytes.
func (u *updater) shrink(n int64) error {
	v := u.v
	keep := v.clustersFor(n)
	u.valid = min(u.valid, n)
	// Clusters added since the entry was written: nothing on disk names
	// them, so they are free at once.
	if u.Chain.Grown() {
		kept, freed := u.Chain.Split(max(keep, u.Chain.OnDisk))
		v.release(freed)
		u.Chain.Runs = kept
	}
	if keep >= u.Chain.OnDisk {
		return nil
	}
	// Clusters the entry on disk names: the entry first, then the free,
	// and the end of a chain in the FAT only after that (before, it would
	// cut the chain the entry on disk still names).
	kept, freed := u.Chain.Split(keep)
	u.Chain.Runs = kept
	if err := u.record(false); err != nil {
		return err
	}
	v.pendingFree = append(v.pendingFree, freed...)
	if err := v.Commit(); err != nil {
		return err
	}
	if u.chained && len(kept) > 0 {
		if err := v.fat.Set(kept[len(kept)-1].End()-1, fatEOC); err != nil {
			return err
		}
	}
	return nil
}

// record puts the file's entry set as it is now (clusters, sizes, times)
// in its directory, and (withFAT) the FAT chain of a fragmented file
// whose clusters changed (the commit writes it before the entries).
func (u *updater) record(withFAT bool) error {
	v, r := u.v, u.Rec
	s := &r.Set.Stream
	s.Flags = streamAllocOK
	s.FirstCluster = 0
	if len(u.Chain.Runs) == 0 {
		u.chained = false
	} else {
		s.FirstCluster = u.Chain.Runs[0].Start
		if len(u.Chain.Runs) == 1 && !u.chained {
			s.Flags |= streamNoFATChain
		} else {
			if u.relink && withFAT {
				if err := v.fat.setChain(u.Chain.Runs); err != nil {
					return err
				}
			}
			u.chained = true
		}
	}
	s.DataLength, s.ValidDataLength = uint64(u.File.Size), uint64(u.valid)
	now := v.Now()
	r.Set.File.Attr |= AttrArchive
	r.Set.File.Modify, r.Set.File.Access = MakeTimestamp(now), accessStamp(now)
	if err := u.Parent.update(r); err != nil {
		return err
	}
	u.Chain.Recorded()
	u.relink = false
	return nil
}
