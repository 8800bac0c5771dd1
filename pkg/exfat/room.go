package exfat

import (
	"fmt"
	"math"
)

// entriesFor is how many directory entries a member named u takes: its
// File and Stream Extension entries and one File Name entry per 15 units.
func entriesFor(u []uint16) int { return 2 + (len(u)+14)/15 }

// roomFor checks, before a byte of a new member's data is written, that
// directory d can take an entry set for name and that the volume holds
// its data (size bytes) and the cluster the directory may grow by: a
// full directory (ErrDirFull) or too little space (*NoSpaceError) is
// refused then, as FAT's Create does, not at Close after the data went
// out to clusters no entry ends up naming.
func (v *Volume) roomFor(d *dir, name string, size int64) error {
	if d.hidden != nil {
		return d.hidden
	}
	u, err := EncodeName(name)
	if err != nil {
		return err
	}
	need := v.clustersFor(size)
	if d.freeAt(entriesFor(u)) < 0 {
		if int64(len(d.raw))+v.layout.ClusterSize > maxDirBytes {
			return fmt.Errorf("%w: an exFAT directory holds at most 256 MiB of entries", ErrDirFull)
		}
		need++ // grow takes at least one cluster
	}
	if free := int64(v.bitmap.free); need > free {
		cs := v.layout.ClusterSize
		return &NoSpaceError{Need: min(need, math.MaxInt64/cs) * cs, Free: free * cs}
	}
	return nil
}
