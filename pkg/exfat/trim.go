package exfat

// FreeRuns calls fn, in cluster order, with each run of clusters that the
// allocation bitmap marks free and that no file or directory reaches: the
// tree is walked first (as before any allocation), and a cluster a chain
// or a contiguous file uses is left out even where the bitmap wrongly
// marks it free. The volume must hold no uncommitted change. fn's error
// ends the walk and is returned.
func (v *Volume) FreeRuns(fn func(Extent) error) error {
	if err := v.guardBitmap(); err != nil {
		return err
	}
	for _, e := range v.bitmap.freeRuns() {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
