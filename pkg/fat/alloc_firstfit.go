package fat

// AllocPolicy chooses where a volume puts the clusters of new data.
type AllocPolicy int

const (
	// AllocContiguous, the default, gives each file one contiguous run
	// where the volume has one: the first free run that holds the whole
	// file at or after the allocation cursor (FSINFO's next free cluster
	// + 1 when the volume is opened, then the end of the last allocation),
	// so that consecutive files lie next to each other.
	AllocContiguous AllocPolicy = iota
	// AllocFirstFit takes free clusters one after another from the
	// allocation cursor, skipping used ones, as the Linux driver and
	// mtools do: each file starts at the first free cluster at or after
	// the cursor and spans whatever holes it meets. Benchmarks that reset
	// FSINFO's next free cluster between runs get the kernel's placement.
	AllocFirstFit
)

// SetAllocPolicy sets where new data goes from now on.
func (v *Volume) SetAllocPolicy(p AllocPolicy) { v.allocPolicy = p }

// takeInOrder collects the first n usable clusters at or after the cursor,
// wrapping around to cluster 2, as runs in the order taken; nil if there
// are fewer. Windows without a usable cluster are skipped by their
// summary.
func (v *Volume) takeInOrder(n uint32) []Extent {
	max := v.layout.MaxCluster()
	if v.cursor < 2 || v.cursor > max {
		v.cursor = 2
	}
	t := v.table
	var out []Extent
	take := func(from, to Cluster) {
		for c := from; c <= to && n > 0; {
			w := t.winOf(c)
			if c == t.winFirst(w) && t.winLast(w) <= to && t.sums(w).best == 0 {
				c = t.winLast(w) + 1
				continue
			}
			if t.usable(c) {
				if k := len(out); k > 0 && out[k-1].End() == c {
					out[k-1].Len++
				} else {
					out = append(out, Extent{c, 1})
				}
				n--
			}
			c++
		}
	}
	take(v.cursor, max)
	take(2, v.cursor-1)
	if n > 0 {
		return nil
	}
	return out
}
