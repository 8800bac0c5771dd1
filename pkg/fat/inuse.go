package fat

// freeInUse records clusters the FAT marks free although something uses
// them: another FAT entry links to them (the rest of a chain whose entry was
// zeroed), or an entry of a directory the volume has loaded starts there.
// The allocator never hands them out, so a damaged FAT is not made worse by
// a new cross-link; the walks that meet them (Chain) report the damage.
type freeInUse struct {
	scanned bool
	// by maps such a cluster to the cluster whose FAT entry links to it,
	// or to 0 when a directory entry names it.
	by map[Cluster]Cluster
}

// note records c as in use although free, unless it is already known.
func (u *freeInUse) note(c, by Cluster) {
	if u.by == nil {
		u.by = map[Cluster]Cluster{}
	}
	if _, ok := u.by[c]; !ok {
		u.by[c] = by
	}
}

// noteEntryCluster records the first cluster of a directory entry when the
// FAT marks it free.
func (v *Volume) noteEntryCluster(c Cluster) {
	if c >= FirstCluster && c <= v.layout.MaxCluster() && v.table.IsFree(v.table.Get(c)) {
		v.inUse.note(c, 0)
	}
}

// scanInUse finds the free clusters that FAT entries link to: one pass over
// the in-memory FAT, made once, before the first allocation (readers never
// pay for it). It costs what counting the free clusters at open costs; no
// directory is read.
func (v *Volume) scanInUse() {
	if v.inUse.scanned {
		return
	}
	v.inUse.scanned = true
	t, max := v.table, v.layout.MaxCluster()
	for c := FirstCluster; c <= max; c++ {
		n := t.Get(c)
		if n >= FirstCluster && n <= max && t.IsFree(t.Get(n)) {
			v.inUse.note(n, c)
		}
	}
}

// usable reports whether the allocator may hand out cluster c.
func (v *Volume) usable(c Cluster) bool {
	if !v.table.IsFree(v.table.Get(c)) {
		return false
	}
	if len(v.inUse.by) == 0 {
		return true
	}
	_, busy := v.inUse.by[c]
	return !busy
}

// allocatable is the number of clusters the allocator may hand out: the
// free ones less those in use although marked free.
func (v *Volume) allocatable() uint32 {
	v.scanInUse()
	n := uint32(len(v.inUse.by))
	if n > v.free {
		return 0
	}
	return v.free - n
}
