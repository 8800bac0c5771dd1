package fat

// The directory cache. Loaded directories stay in v.dirs so that path
// lookups and inserts cost O(1), but not without bound: a tree of a
// million files would otherwise keep every name in memory. Each directory
// is charged dirCostFactor times its raw slots (the slots, the records
// and the name index they index), the cache is kept in
// least-recently-used order, and at the safe points (settle: the start of
// a public call, when no directory is held across it) the oldest clean
// directories are dropped until the charge is within dirBudget.
// Directories with changes not yet written cannot be dropped: a writer
// (settleWrite) commits first when they are charged more than
// dirtyBudget (three of FAT's largest directories), so a copy of a
// million files into a thousand folders commits every 60,000 names or so
// instead of holding them all.
const dirCostFactor = 4

// The budgets are variables so that tests can make them small.
var (
	dirBudget   int64 = 12 << 20
	dirtyBudget int64 = 24 << 20
)

// cacheDir adds d to the cache as the most recently used directory.
func (v *Volume) cacheDir(d *dir) {
	v.dirs[d.first] = d
	d.cost = dirCostFactor * int64(len(d.raw))
	v.dirCost += d.cost
	d.lru = v.dirLRU.PushFront(d)
}

// touchDir marks d the most recently used.
func (v *Volume) touchDir(d *dir) {
	if d.lru != nil {
		v.dirLRU.MoveToFront(d.lru)
	}
}

// uncacheDir takes d off the list and its charge off the total.
func (v *Volume) uncacheDir(d *dir) {
	if d.lru != nil {
		v.dirLRU.Remove(d.lru)
		d.lru = nil
		v.dirCost -= d.cost
	}
}

// forgetDir drops the directory at first (removed, its clusters freed)
// from the cache.
func (v *Volume) forgetDir(first Cluster) {
	if d := v.dirs[first]; d != nil {
		delete(v.dirs, first)
		v.uncacheDir(d)
	}
}

// grew charges d for slots it gained.
func (v *Volume) grew(d *dir, bytes int) {
	d.cost += dirCostFactor * int64(bytes)
	v.dirCost += dirCostFactor * int64(bytes)
}

// settle drops the least recently used directories that are clean and
// held by nothing (a Writer's parent, changes waiting for a later phase)
// until the cache is within dirBudget. Directories removed from v.dirs
// elsewhere (deleted ones) leave the list here. A pass that cannot get
// under the budget is not tried again until the charge has grown by an
// eighth of it, or a commit made directories clean.
func (v *Volume) settle() {
	if v.dirCost <= max(dirBudget, v.settleAt) {
		return
	}
	for e := v.dirLRU.Back(); e != nil && v.dirCost > dirBudget; {
		prev := e.Prev()
		switch d := e.Value.(*dir); {
		case v.dirs[d.first] != d:
			v.uncacheDir(d)
		case d.pins == 0 && v.dirtyDirs[d.first] == nil:
			delete(v.dirs, d.first)
			v.uncacheDir(d)
		}
		e = prev
	}
	v.settleAt = 0
	if v.dirCost > dirBudget {
		v.settleAt = v.dirCost + dirBudget/8
	}
}

// settleWrite is settle for a call that changes the volume: when the
// cache stays charged more than dirtyBudget (directories with changes
// cannot be dropped), everything is committed first (in the phases of
// Commit), so that they become clean and can be dropped.
func (v *Volume) settleWrite() error {
	v.settle()
	if v.dirCost > dirtyBudget && v.writable && !v.closed && len(v.dirtyDirs) > 0 {
		if err := v.Commit(); err != nil {
			return err
		}
		v.settleAt = 0
		v.settle()
	}
	return nil
}
