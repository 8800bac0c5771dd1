package fat

// checkWork counts the steps a check and its repair plan take, so that
// tests can hold them to a bound linear in the volume's clusters, chains
// and entries without timing anything (the check must stay linear
// whatever the volume holds: every cluster its own lost chain, a root
// directory spanning the volume).
type checkWork struct {
	chainSteps int64 // links followed: chain walks, holder look-ups, lost chains
	fatReads   int64 // FAT entries read besides: table scans, allocation
	dirSlots   int64 // directory slots read or searched
	nameTries  int64 // names tried for a new unique name

	// budget, when not 0, is the most steps a test allows: once they are
	// spent, the searches that could run long give up (no free cluster,
	// no free name, no free slot), so that a test of code that is not
	// linear fails in seconds rather than running for hours.
	budget int64
}

// total is every step counted.
func (w *checkWork) total() int64 { return w.chainSteps + w.fatReads + w.dirSlots + w.nameTries }

// spent reports whether a test's budget is spent.
func (w *checkWork) spent() bool { return w.budget > 0 && w.total() > w.budget }
