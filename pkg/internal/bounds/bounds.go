// Package bounds holds the two guards every reader of an on-disk length or
// cluster chain goes through, in pkg/fat and pkg/exfat alike: the
// conversion of a length to clusters, checked against the cluster heap
// before anything is sized from it, and a chain walk that ends within the
// volume's cluster count and finds loops in constant memory.
package bounds

import "math"

// Clusters returns how many clusters of cs bytes hold length bytes, and
// whether that is at most heap clusters. It never overflows: a length
// near 2^64 is reported as too large, not wrapped round to a few
// clusters. A cs of zero or less holds nothing (false).
func Clusters(length uint64, cs int64, heap uint64) (uint64, bool) {
	if cs <= 0 {
		return 0, false
	}
	n := length / uint64(cs)
	if length%uint64(cs) != 0 {
		n++
	}
	return n, n <= heap
}

// Stop says why a chain walk must end.
type Stop int

const (
	Go    Stop = iota // the walk may go on
	Loop              // the cluster was met before: the chain loops
	Limit             // the walk took as many steps as it was allowed
)

// Walk bounds one chain walk. Step is told each cluster in order; it says
// Limit once more than Max clusters were stepped on (no chain holds more
// clusters than the volume has), and Loop when the chain comes back to a
// cluster it passed, found by Brent's method: one cluster is remembered at
// every power of two steps, and a loop brings the walk back to it within
// twice the loop's length. So a looping chain costs the caller steps and
// memory in proportion to its true length, never to a length a damaged
// entry claims.
type Walk struct {
	Max   uint64 // most clusters the walk may step on
	steps uint64
	mark  uint32
	power uint64
	lam   uint64
}

// NewWalk returns a walk of at most max clusters.
func NewWalk(max uint64) Walk { return Walk{Max: max} }

// Steps is how many clusters the walk has stepped on.
func (w *Walk) Steps() uint64 { return w.steps }

// Step records c as the next cluster of the chain.
func (w *Walk) Step(c uint32) Stop {
	if w.steps >= w.Max {
		return Limit
	}
	if w.steps == 0 {
		w.steps, w.mark, w.power, w.lam = 1, c, 1, 0
		return Go
	}
	if c == w.mark {
		return Loop
	}
	w.steps++
	if w.lam++; w.lam == w.power {
		w.mark, w.power, w.lam = c, w.power*2, 0
	}
	return Go
}

// ClustersFor is how many clusters of cs bytes n bytes take (none for
// n <= 0), with no overflow for an n near 2^63: a writer compares it with
// the free space.
func ClustersFor(n, cs int64) int64 {
	c, _ := Clusters(uint64(max(n, 0)), cs, math.MaxUint64)
	return int64(c)
}
