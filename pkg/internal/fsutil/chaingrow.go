package fsutil

// Grow is both codecs' in-place updaters' growth: it appends the clusters
// a file of n bytes needs beyond the chain (of clusterSize bytes each),
// which allocate takes: need of them, placed after last, the chain's
// last cluster (0: it has none) where they are free. A chain that holds n
// bytes already asks for none. What the codec does around the allocation
// (exFAT refuses more than its bitmap has free, FAT holds the link from
// the cluster the entry on disk ends at) lies in allocate.
func (c *Chain[E]) Grow(n, clusterSize int64, allocate func(need int64, last uint32) ([]E, error)) error {
	need := c.Need(n, clusterSize)
	if need <= 0 {
		return nil // the chain holds n bytes already
	}
	exts, err := allocate(need, c.Last())
	if err != nil {
		return err
	}
	c.Append(exts)
	return nil
}
