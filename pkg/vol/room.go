package vol

import (
	"path"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Room tallies the room a set of new members takes on a volume, for a
// planner that refuses, before anything is written, what will not fit:
// clusters for the data, and on FAT the slots each destination directory
// needs (a short entry, and long-name slots as the name needs them; the
// FAT12/16 root's fixed size; a directory grown by whole clusters, to
// 65,536 slots at most). It never asks for more than the volume will
// really take (deleted slots count as free, a directory grows by just
// what it needs), so nothing that would fit is refused; what turns out
// not to fit while writing (scattered free slots, a directory grown by
// more) is refused then by Create. On exFAT only clusters are counted:
// its directories grow by whole clusters to 256 MiB, and Create refuses
// what does not fit there.
//
// A Room reads each directory once, when a member is first added to it,
// and is not safe for use by several goroutines.
type Room struct {
	v    Volume
	fv   *fat.Volume // nil on exFAT: clusters only
	cs   int64
	free int64 // clusters
	dirs map[string]*fat.DirSlots
}

// NewRoom starts a tally of v's free clusters and directories.
func NewRoom(v Volume) *Room {
	return &Room{v: v, fv: AsFAT(v), cs: v.ClusterSize(), free: int64(v.FreeClusters()), dirs: map[string]*fat.DirSlots{}}
}

// Free is the clusters the tally has left.
func (r *Room) Free() int64 { return r.free }

// Clusters is how many clusters size bytes of data take.
func (r *Room) Clusters(size int64) int64 { return (max(size, 0) + r.cs - 1) / r.cs }

// Take uses n clusters, or says why the volume cannot give them (a
// *NoSpaceError of the volume's package, wrapping its ErrNoSpace).
func (r *Room) Take(n int64) error {
	if n > r.free {
		if r.fv == nil {
			return &exfat.NoSpaceError{Need: n * r.cs, Free: r.free * r.cs}
		}
		return &fat.NoSpaceError{Need: n * r.cs, Free: r.free * r.cs}
	}
	r.free -= n
	return nil
}

// Give returns n clusters to the tally (a file's, freed before the
// member that takes them is written).
func (r *Room) Give(n int64) { r.free += n }

// Held is how many clusters the member at name holds now (0 when that
// cannot be told: no room is counted that might not be there).
func (r *Room) Held(name string) int64 {
	fi, err := r.v.Stat(name)
	if err != nil {
		return 0
	}
	n, err := r.v.FileClusters(fi)
	if err != nil {
		return 0
	}
	return n
}

// EntrySlots is how many directory slots of 32 bytes a new member named
// name takes at least in a directory of v: on FAT its short entry and
// its long name's slots, on exFAT its File, Stream Extension and File
// Name entries.
func EntrySlots(v Volume, name string) int {
	if AsFAT(v) != nil {
		return fat.NameSlots(name)
	}
	return exfat.NameEntries(name)
}

// DirSlots is how many slots of 32 bytes a new directory of v takes for
// n members, name(i) naming each, as the codec places them in turn: each
// takes EntrySlots, none straddles a sector, and on FAT "." and ".."
// come first. It is what MkdirSized takes to make the directory whole.
func DirSlots(v Volume, n int, name func(i int) string) int {
	at, per := 0, 0
	if f := AsFAT(v); f != nil {
		at, per = 2, int(f.Layout().SectorSize/fat.DirEntrySize)
	} else if x := AsExFAT(v); x != nil {
		per = int(x.Layout().SectorSize / exfat.EntrySize)
	}
	for i := range n {
		at = fsutil.PackSlots(at, EntrySlots(v, name(i)), per)
	}
	return at
}

// Add counts a new member at name: a file of size bytes, or (dir) a
// directory, which takes one cluster. It returns why the member does not
// fit: a *NoSpaceError, or on FAT a full directory (an error whose text
// names the limit); the tally is unchanged then.
func (r *Room) Add(name string, size int64, dir bool) error {
	clusters := r.Clusters(size)
	if dir {
		clusters = 1
	}
	if r.fv == nil {
		return r.Take(clusters)
	}
	d := r.dir(path.Dir(name))
	n := int64(fat.NameSlots(path.Base(name)))
	perCluster := r.cs / fat.DirEntrySize
	var grow int64
	switch {
	case d.Full != "" && d.Used+n > d.Alloc:
		return roomError(d.Full)
	case d.Used+n > fat.MaxDirEntries:
		return roomError("directory is full: " + fat.DirLimit)
	case d.Used+n > d.Alloc:
		grow = (d.Used + n - d.Alloc + perCluster - 1) / perCluster
	}
	if err := r.Take(clusters + grow); err != nil {
		return err
	}
	d.Used += n
	d.Alloc += grow * perCluster
	if dir {
		r.dirs[fat.FoldName(name)] = &fat.DirSlots{Used: 2, Alloc: perCluster}
	}
	return nil
}

// dir is what the tally knows of FAT directory p: what the volume holds
// there, read once, then what was added.
func (r *Room) dir(p string) *fat.DirSlots {
	key := fat.FoldName(path.Clean(p))
	if d := r.dirs[key]; d != nil {
		return d
	}
	d := r.fv.DirRoom(p)
	r.dirs[key] = &d
	return &d
}

// roomError is a directory that cannot take a member, in a sentence
// that names the limit; it wraps ErrDirFull.
type roomError string

func (e roomError) Error() string { return string(e) }
func (e roomError) Unwrap() error { return fat.ErrDirFull }

// Forget drops what the tally knows of directory name, once nothing more
// will be added there: a planner of a large tree keeps only the
// directories it is filling.
func (r *Room) Forget(name string) {
	delete(r.dirs, fat.FoldName(path.Clean(name)))
}

// NewDirClusters is how many clusters a new directory of n entries takes
// on v ("." and ".." included on FAT; 32 bytes each on both), and whether
// a directory there can hold that many at all (FAT: 65,536; exFAT:
// 256 MiB of entries).
func NewDirClusters(v Volume, n int64) (int64, bool) {
	limit := int64(fat.MaxDirEntries)
	if AsFAT(v) == nil {
		limit = exfat.MaxDirBytes / fat.DirEntrySize
	}
	cs := v.ClusterSize()
	return max(1, (n*fat.DirEntrySize+cs-1)/cs), n <= limit
}

// Grows says whether directory dir can take n more entries, and how many
// clusters it grows by at most to take them (never fewer than it will):
// a planner's bound for a whole batch of names.
func (r *Room) Grows(dir string, n int64) (int64, bool) {
	clusters := (n*fat.DirEntrySize+r.cs-1)/r.cs + 1
	if r.fv == nil {
		return clusters, true
	}
	d := r.dir(dir)
	if (d.Full != "" && d.Used+n > d.Alloc) || d.Used+n > fat.MaxDirEntries {
		return clusters, false
	}
	return clusters, true
}
