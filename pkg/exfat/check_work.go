package exfat

// checkWork counts the steps a check takes, so that tests can hold them
// to a bound linear in the volume's clusters and entries without timing
// anything (the check must stay linear whatever the volume holds: many
// entries naming the same long run of clusters among them).
type checkWork struct {
	clusterSteps int64 // claiming clusters: words of the used bitmap, or whole extents met before
	chainSteps   int64 // FAT links followed for files' chains
	ownerSteps   int64 // naming the owners of shared clusters: records, sweep events, owners listed
}

// total is every step counted.
func (w *checkWork) total() int64 { return w.clusterSteps + w.chainSteps + w.ownerSteps }
