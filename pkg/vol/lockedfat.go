package vol

// lockedFAT is the Volume Open returns for FAT: a locked volume that is
// FATFeatures too, each feature under the same lock, so that
// v.(FATFeatures) holds for every FAT volume Open returns.
type lockedFAT struct {
	*locked
	fat FAT
}

var _ FATFeatures = (*lockedFAT)(nil)

func (l *lockedFAT) SetAllocPolicy(p AllocPolicy) {
	fact(l.locked, func() struct{} { l.fat.SetAllocPolicy(p); return struct{}{} })
}
func (l *lockedFAT) FSInfo() *FSInfo     { return fact(l.locked, l.fat.FSInfo) }
func (l *lockedFAT) BootLabel() string   { return fact(l.locked, l.fat.BootLabel) }
func (l *lockedFAT) BadClusters() uint32 { return fact(l.locked, l.fat.BadClusters) }

func (l *lockedFAT) SetNextCluster(n uint32) error {
	return l.do("set FSINFO's next cluster", false, func() error { return l.fat.SetNextCluster(n) })
}

func (l *lockedFAT) SetFreeCount(n uint32) error {
	return l.do("set FSINFO's free count", false, func() error { return l.fat.SetFreeCount(n) })
}

func (l *lockedFAT) Recount() error {
	return l.do("recount the free clusters", false, l.fat.Recount)
}

// lockOf is the lock of a Volume Open returned, nil for a bare adapter.
func lockOf(v Volume) *locked {
	switch l := v.(type) {
	case *locked:
		return l
	case *lockedFAT:
		return l.locked
	}
	return nil
}

// within runs f on the adapter behind v, under v's lock when v has one.
func within(v Volume, op string, f func(Volume) error) error {
	if l := lockOf(v); l != nil {
		return l.do(op, false, func() error { return f(l.Volume) })
	}
	return f(v)
}
