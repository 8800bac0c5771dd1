package fat

import (
	"math/bits"
	"unsafe"
)

// claimStride is how often a chain walk records who holds a cluster: at
// every claimStride-th cluster it claims, so that finding the holder of
// any claimed cluster follows at most claimStride links.
const claimStride = 1024

// claimEnd marks a record at the last cluster a walk claimed.
const claimEnd = 1 << 31

// claims is which clusters the check's chain walks hold, and who holds
// them, in memory that does not grow with the volume: one bit per
// cluster (8 MiB for a 2 TiB FAT32 of 32 KiB clusters, mapped outside the
// Go heap and touched only where chains lie), and the holder recorded only
// at the last cluster of each walk and at every claimStride-th one.
//
// The holder of any other claimed cluster is found by following the
// chain from it to the next record (holder): a walk claims a chain in
// order and stops only at a cluster it records, so the clusters after an
// unrecorded one, up to the next record, are the same walk's. That costs
// a few links, and is asked only when a walk runs into a claimed cluster
// (a loop, a cross-link, an interrupted rename): the second look that
// names the owner, which a sound volume never needs.
type claims struct {
	bitmap
	recs  map[Cluster]uint32 // holder id (| claimEnd at a walk's last cluster)
	steps int64              // links followed by the walks and look-ups (checkWork)
}

// newClaims makes an empty claim set for a table of n entries.
func newClaims(n uint32) *claims {
	return &claims{bitmap: newBitmap(n), recs: map[Cluster]uint32{}}
}

// free gives the bits back; the set must not be used afterwards.
func (cl *claims) free() {
	cl.bitmap.free()
	cl.recs = nil
}

// bitmap is one bit per cluster, mapped outside the Go heap when large
// (bigAlloc) and touched only where bits are set.
type bitmap struct {
	bits    []uint64
	release func()
}

func newBitmap(n uint32) bitmap {
	b, release := bigAlloc(int64((n + 63) / 64 * 8))
	bm := bitmap{release: release}
	if len(b) > 0 {
		bm.bits = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	}
	return bm
}

// free gives the bits back.
func (bm *bitmap) free() {
	if bm.release != nil {
		bm.release()
		bm.release, bm.bits = nil, nil
	}
}

// has reports whether bit c is set.
func (bm *bitmap) has(c Cluster) bool { return bm.bits[c/64]&(1<<(c%64)) != 0 }

// set sets bit c (claims: claims c without saying for whom, as lost
// chains and the walks that only score a table do).
func (bm *bitmap) set(c Cluster) { bm.bits[c/64] |= 1 << (c % 64) }

// unset clears bit c.
func (bm *bitmap) unset(c Cluster) { bm.bits[c/64] &^= 1 << (c % 64) }

// each calls fn for every set bit in order, while fn returns true.
func (bm *bitmap) each(fn func(c Cluster) bool) {
	bm.eachIn(0, Cluster(len(bm.bits)*64), fn)
}

// eachIn calls fn for every set bit from lo up to (not including) hi in
// order, while fn returns true.
func (bm *bitmap) eachIn(lo, hi Cluster, fn func(c Cluster) bool) {
	hi = min(hi, Cluster(len(bm.bits)*64))
	for i := int(lo / 64); i < len(bm.bits) && Cluster(i*64) < hi; i++ {
		w := bm.bits[i]
		if Cluster(i*64) < lo {
			w &^= 1<<(lo%64) - 1
		}
		for w != 0 {
			c := Cluster(i*64 + bits.TrailingZeros64(w))
			if c >= hi {
				return
			}
			if !fn(c) {
				return
			}
			w &= w - 1
		}
	}
}

// mark claims c for id and records it: end says c is the last cluster
// the holder's chain has (or the chain goes on from c in no way the table
// shows, as with a copy the plan makes).
func (cl *claims) mark(c Cluster, id uint32, end bool) {
	cl.set(c)
	if end {
		id |= claimEnd
	}
	cl.recs[c] = id
}

// unclaim gives c up.
func (cl *claims) unclaim(c Cluster) {
	cl.unset(c)
	delete(cl.recs, c)
}

// isEnd reports whether c is recorded as the last cluster of its holder.
func (cl *claims) isEnd(c Cluster) bool { return cl.recs[c]&claimEnd != 0 }

// holder returns the id of the walk that claimed c, following tb from c
// to the next record; 0 if c is not claimed (or claimed by a lost chain,
// which records no holder).
func (cl *claims) holder(tb Table, c Cluster) uint32 {
	n := tb.Entries()
	for steps := uint32(0); steps < n; steps++ {
		cl.steps++
		if uint32(c) >= n || !cl.has(c) {
			return 0
		}
		if id, ok := cl.recs[c]; ok {
			return id &^ claimEnd
		}
		c = tb.Get(c)
	}
	return 0
}

// countUnclaimed counts the free and bad data clusters of tb and the
// others that cl leaves unclaimed, streaming the table (a volume's FAT is
// read in chunks, not held), and marks those others in unclaimed (if not
// nil).
func countUnclaimed(tb Table, cl *claims, unclaimed *bitmap) (free, bad, others uint32) {
	scanTable(tb, func(first Cluster, vals []uint32) {
		for i, v := range vals {
			c := first + Cluster(i)
			switch {
			case c < FirstCluster:
			case v == 0:
				free++
			case tb.IsBad(Cluster(v)):
				bad++
			case !cl.has(c):
				others++
				if unclaimed != nil {
					unclaimed.set(c)
				}
			}
		}
	})
	return free, bad, others
}

// scanTable hands fn every entry of tb in order, a run at a time (vals
// is reused): a volume's FAT (or a copy of it) streamed from the disk
// with its changes in memory, any other table decoded in place.
func scanTable(tb Table, fn func(first Cluster, vals []uint32)) {
	if pt, ok := tb.(*planTable); ok {
		pt.scan(fn)
		return
	}
	if fc, ok := tb.(*fatCache); ok {
		err := fc.scan(0, func(w0 int, vals [][]uint32) error {
			for i, vs := range vals {
				fn(fc.winFirst(w0+i), vs)
			}
			return nil
		})
		if err != nil {
			fc.fail(err)
		}
		return
	}
	const run = 1 << 16
	vals := make([]uint32, 0, run)
	n := tb.Entries()
	for first := uint32(0); first < n; first += run {
		vals = vals[:0]
		for c := first; c < min(first+run, n); c++ {
			vals = append(vals, uint32(tb.Get(Cluster(c))))
		}
		fn(Cluster(first), vals)
	}
}
