package fat

import (
	"encoding/binary"
	"fmt"
)

// FreeRuns calls fn, in cluster order, with each run of data clusters
// that every FAT copy marks free: a cluster one copy marks free and
// another does not (a copy that differs, or FAT32 with mirroring off) is
// left out, since the copy a repair or another driver trusts may still
// use it. The copies are read from the device a chunk at a time, so the
// volume must hold no uncommitted change. A copy past the device's end is
// an error. fn's error ends the walk and is returned.
func (v *Volume) FreeRuns(fn func(Extent) error) error {
	l := v.layout
	var copies []int
	for i := 1; i < l.NumFATs; i++ {
		if off := l.FATCopyOffset(i); off+l.FATSize > v.dev.Size() {
			return fmt.Errorf("fat: FAT %d at byte %d lies past the end of the device", i+1, off)
		}
		copies = append(copies, i)
	}
	var run Extent
	end := func() error {
		if run.Len == 0 {
			return nil
		}
		r := run
		run = Extent{}
		return fn(r)
	}
	last := l.MaxCluster()
	err := streamFATs(v, 0, copies, func(pos int64, fat1 []byte, rest [][]byte) ([]int, error) {
		free, first, n, err := freeInChunk(l, pos, append([][]byte{fat1}, rest...))
		if err != nil {
			return nil, err
		}
		for k := range n {
			c := first + Cluster(k)
			if c < FirstCluster || c > last {
				continue
			}
			switch {
			case !free(k):
				if err := end(); err != nil {
					return nil, err
				}
			case run.Len > 0 && run.End() == c:
				run.Len++
			default:
				if err := end(); err != nil {
					return nil, err
				}
				run = Extent{Start: c, Len: 1}
			}
		}
		return copies, nil
	})
	if err != nil {
		return err
	}
	return end()
}

// freeInChunk reads the entries that chunks (the same bytes of every
// copy, from byte pos of the table) hold: the first entry's cluster, how
// many there are, and whether entry k is free in every copy. FAT12 and
// FAT16 tables fit in one chunk; FAT32's entries are whole in each.
func freeInChunk(l *Layout, pos int64, chunks [][]byte) (free func(k uint32) bool, first Cluster, n uint32, err error) {
	if l.Type == FAT32 {
		n = uint32(len(chunks[0]) / 4)
		return func(k uint32) bool {
			for _, b := range chunks {
				if binary.LittleEndian.Uint32(b[4*k:])&mask32 != 0 {
					return false
				}
			}
			return true
		}, Cluster(pos / 4), n, nil
	}
	tables := make([]Table, len(chunks))
	for i, b := range chunks {
		if tables[i], err = NewTable(l.Type, b, l.Clusters); err != nil {
			return nil, 0, 0, err
		}
	}
	return func(k uint32) bool {
		for _, t := range tables {
			if t.Get(Cluster(k)) != 0 {
				return false
			}
		}
		return true
	}, 0, tables[0].Entries(), nil
}
