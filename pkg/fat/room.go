package fat

import (
	"fmt"
)

// NameSlots is how many directory slots a new member named name takes at
// least: its short entry and, when name is not a plain 8.3 name, one long
// name slot per 13 UTF-16 units. A name the volume refuses counts one
// (Create names the fault). A planner that counts with it never asks for
// more than the directory will take: an 8.3 name whose short form another
// member already holds takes long slots too.
func NameSlots(name string) int {
	if ValidateLongName(name) != nil {
		return 1
	}
	if _, _, ok := exact83(name); ok {
		return 1
	}
	return 1 + (utf16Len(name)+12)/13
}

// DirSlots is a directory's room in slots of DirEntrySize bytes.
type DirSlots struct {
	Used  int64 // taken: live members' entries, the label, "." and ".."
	Alloc int64 // what its clusters hold now (the fixed root: all it can hold)
	// Full, for a FAT12/16 root, which cannot grow, says why it is full
	// once Alloc is reached; "" for a chained directory, which grows by
	// whole clusters up to MaxDirEntries slots (DirLimit).
	Full string
}

// DirRoom reads directory p's room. A directory it cannot read counts
// nothing used and nothing allocated, so that a planner asks no more than
// the volume holds (Create names the fault).
func (v *Volume) DirRoom(p string) DirSlots {
	var d DirSlots
	l := v.Layout()
	perCluster := l.ClusterSize / DirEntrySize
	var first Cluster
	if fi, err := v.Stat(p); err == nil {
		if rec, ok := fi.Sys().(*Record); ok && rec != nil {
			first = rec.Entry.Cluster
		}
	}
	switch {
	case first == 0 && l.Type != FAT32:
		d.Alloc = l.RootDirSize / DirEntrySize
		d.Full = fmt.Sprintf("directory is full: the %s root directory holds at most %d entries", l.Type, d.Alloc)
	case first == 0:
		first = l.RootCluster
		fallthrough
	default:
		if chain, err := Chain(v.Table(), first); err == nil {
			d.Alloc = int64(len(chain)) * perCluster
		}
	}
	if first != 0 && first != l.RootCluster {
		d.Used = 2 // "." and ".."
	}
	if first == 0 || first == l.RootCluster {
		if _, ok, err := v.RootLabel(); err == nil && ok {
			d.Used++
		}
	}
	if ents, err := v.ReadDir(p); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				if rec, ok := fi.Sys().(*Record); ok && rec != nil {
					d.Used += int64(rec.Slots)
				}
			}
		}
	}
	d.Alloc = max(d.Alloc, d.Used)
	return d
}
