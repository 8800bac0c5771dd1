package fat

// Clusters the FAT marks free although something uses them: another FAT
// entry links to them (the rest of a chain whose entry was zeroed), or an
// entry of a directory the volume has loaded starts there. The allocator
// never hands them out, so a damaged FAT is not made worse by a new
// cross-link; the walks that meet them (Chain) report the damage. The
// links are found by the counting pass (fatCache.count, one streaming pass
// over the FAT before the first allocation; readers never pay for it), the
// entries as directories load.

// noteBusy records c as in use although free (by is the cluster whose
// entry links to it, 0 for a directory entry), unless it is known.
func (t *fatCache) noteBusy(c, by Cluster) {
	if t.inUse == nil {
		t.inUse = map[Cluster]Cluster{}
	}
	if _, ok := t.inUse[c]; ok {
		return
	}
	t.inUse[c] = by
	if t.sum.wins != nil {
		t.sum.wins[t.winOf(c)].stale = true
	}
}

// busy reports whether c is in use although marked free.
func (t *fatCache) busy(c Cluster) bool {
	if len(t.inUse) == 0 {
		return false
	}
	_, ok := t.inUse[c]
	return ok
}

// noteEntryCluster records the first cluster of a directory entry when the
// FAT marks it free. Only a volume that allocates needs to know.
func (v *Volume) noteEntryCluster(c Cluster) {
	if v.writable && c >= FirstCluster && c <= v.layout.MaxCluster() && v.table.IsFree(v.table.Get(c)) {
		v.table.noteBusy(c, 0)
	}
}

// noteLoadedEntries notes the first clusters of the entries of every
// directory loaded so far (the counting pass calls it: entries loaded
// before the FAT was counted are judged by the FAT as it is then).
func (v *Volume) noteLoadedEntries() {
	for _, d := range v.dirs {
		for _, r := range d.recs {
			if r != nil && !r.Entry.IsLabel() && r.Short != DotName && r.Short != DotDotName {
				v.noteEntryCluster(r.Entry.Cluster)
			}
		}
	}
}

// allocatable is the number of clusters the allocator may hand out: the
// free ones less those in use although marked free.
func (v *Volume) allocatable() uint32 {
	free := v.freeCount()
	n := uint32(len(v.table.inUse))
	if n > free {
		return 0
	}
	return free - n
}
