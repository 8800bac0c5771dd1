package fsutil

import "github.com/ftools/ftools/pkg/internal/bounds"

// Chain is an open file's clusters as both codecs' Updaters keep them: the
// runs it holds now, in the codec's extent type, and how many of its
// clusters the entry on disk names. Run gives an extent's shared form and
// Of makes one from it.
type Chain[E any] struct {
	Runs   []E
	OnDisk int64
	Run    func(E) Run
	Of     func(Run) E
}

// Clusters is how many clusters the chain holds now.
func (c *Chain[E]) Clusters() int64 {
	var n int64
	for _, e := range c.Runs {
		n += int64(c.Run(e).Len)
	}
	return n
}

// Last is the chain's last cluster, 0 when it has none.
func (c *Chain[E]) Last() uint32 {
	if k := len(c.Runs); k > 0 {
		r := c.Run(c.Runs[k-1])
		return r.Start + r.Len - 1
	}
	return 0
}

// Need is how many clusters of clusterSize bytes a file of n bytes needs
// beyond the chain (0 or less: none).
func (c *Chain[E]) Need(n, clusterSize int64) int64 {
	return bounds.ClustersFor(n, clusterSize) - c.Clusters()
}

// Grown reports whether the chain holds clusters the entry on disk does
// not name yet.
func (c *Chain[E]) Grown() bool { return c.Clusters() > c.OnDisk }

// Append adds the runs exts at the end, each merged with the last when
// they touch.
func (c *Chain[E]) Append(exts []E) {
	for _, e := range exts {
		if k := len(c.Runs); k > 0 {
			last, r := c.Run(c.Runs[k-1]), c.Run(e)
			if last.Start+last.Len == r.Start {
				c.Runs[k-1] = c.Of(Run{Start: last.Start, Len: last.Len + r.Len})
				continue
			}
		}
		c.Runs = append(c.Runs, e)
	}
}

// Recorded notes that the entry on disk names the whole chain.
func (c *Chain[E]) Recorded() { c.OnDisk = c.Clusters() }

// Split cuts the chain's runs after keep clusters (see SplitExtents): the
// runs kept and those cut. The chain itself is left as it is.
func (c *Chain[E]) Split(keep int64) (kept, cut []E) {
	size := func(e E) uint32 { return c.Run(e).Len }
	split := func(e E, n uint32) (E, E) {
		r := c.Run(e)
		return c.Of(Run{Start: r.Start, Len: n}), c.Of(Run{Start: r.Start + n, Len: r.Len - n})
	}
	return SplitExtents(c.Runs, keep, size, split)
}
