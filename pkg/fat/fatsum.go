package fat

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// The free-space summary: per FAT window, how many of its clusters are
// free, and the runs of clusters the allocator may take (free, and not in
// use by a chain or an entry although marked free: inuse.go) at its start,
// at its end and the longest. One streaming pass over the FAT builds it
// (count), the first time anything needs the free count or an allocation;
// Set keeps it current. Allocation reads it rather than the FAT, and reads
// only the windows where a run it wants begins.

// countChunk is how many FAT32 windows the counting pass reads at once
// (1 MiB), and maxDeferred how many links to clusters outside the part
// read so far it keeps before looking them up (4 MiB).
const countChunk = 16

var maxDeferred = 1 << 19 // a variable so that tests can make it small

type summary struct {
	counted   bool
	free, bad uint32
	wins      []winSum
}

type winSum struct {
	free             uint32 // free data clusters in the window
	head, tail, best uint32 // usable clusters in a row from its first entry, up to its last, and the most
	stale            bool   // head, tail and best must be worked out again
}

// changed keeps the counts current when entry c goes from old to now.
func (s *summary) changed(t *fatCache, c, old, now Cluster) {
	if !s.counted || c < FirstCluster {
		return
	}
	ws := &s.wins[t.winOf(c)]
	if f0, f1 := t.IsFree(old), t.IsFree(now); f0 != f1 {
		if f1 {
			s.free++
			ws.free++
		} else {
			s.free--
			ws.free--
		}
		ws.stale = true
	}
	if b0, b1 := t.IsBad(old), t.IsBad(now); b0 != b1 {
		if b1 {
			s.bad++
		} else {
			s.bad--
		}
	}
}

// count builds the summary in one pass over the FAT, read in chunks of
// countChunk windows (windows in memory, which may hold changes, are used
// as they are), and finds the free clusters that other entries link to.
// Memory: one chunk, the summary (20 bytes per window) and at most
// maxDeferred links waiting to be looked up.
func (t *fatCache) count() error {
	s := &t.sum
	if s.counted {
		return t.err
	}
	s.wins = make([]winSum, t.nwin)
	s.free, s.bad = 0, 0
	var deferred []uint64
	maxC := uint32(t.entries - 1)
	bad := uint32(t.badMark())
	err := t.scan(0, func(w0 int, vals [][]uint32) error {
		w1 := w0 + len(vals)
		for w := w0; w < w1; w++ {
			first := uint32(t.winFirst(w))
			vs := vals[w-w0]
			s.wins[w] = t.runsOf(w, vs)
			s.free += s.wins[w].free
			for i, v := range vs {
				switch {
				case v < uint32(FirstCluster) || v > maxC:
					if v == bad && first+uint32(i) >= uint32(FirstCluster) {
						s.bad++
					}
					continue
				case first+uint32(i) < uint32(FirstCluster):
					continue
				}
				c := Cluster(first + uint32(i))
				switch tw := t.winOf(Cluster(v)); {
				case tw >= w0 && tw < w1:
					if vals[tw-w0][t.local(Cluster(v))] == 0 {
						t.noteBusy(Cluster(v), c)
					}
				case tw < w0 && s.wins[tw].free == 0:
				default:
					if deferred = append(deferred, uint64(v)<<32|uint64(c)); len(deferred) == maxDeferred {
						t.resolve(deferred)
						deferred = deferred[:0]
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.fail(err)
		return t.err
	}
	t.resolve(deferred)
	s.counted = true
	return t.err
}

// scan reads FAT copy k (0 is FAT 1) from the disk in chunks of
// countChunk windows and hands fn each chunk's entries, decoded, window by
// window (vals[i] is window w0+i). For FAT 1 the windows in memory, which
// may hold changes not yet written, are used as they are. Memory: one
// chunk (1 MiB) and its entries.
func (t *fatCache) scan(k int, fn func(w0 int, vals [][]uint32) error) error {
	chunk := 1
	if t.typ == FAT32 {
		chunk = countChunk
	}
	buf := t.dev.AlignedBuffer(int(min(int64(chunk)*t.winBytes, t.l.FATSize)))
	vals := make([][]uint32, chunk)
	base := t.l.FATCopyOffset(k)
	for w0 := 0; w0 < t.nwin; w0 += chunk {
		w1 := min(w0+chunk, t.nwin)
		off := t.winOffset(w0)
		end := min(t.winOffset(w1), t.l.FATSize)
		if _, err := t.dev.ReadAt(buf[:end-off], base+off); err != nil {
			return fmt.Errorf("fat: reading FAT %d at byte %d: %w", k+1, base+off, err)
		}
		for w := w0; w < w1; w++ {
			raw := buf[t.winOffset(w)-off : min(t.winOffset(w)+t.winBytes, end)-off]
			if r := t.wins[w]; r != nil && k == 0 {
				raw = r.raw // it may hold changes
			}
			vals[w-w0] = t.decode(raw, w, vals[w-w0])
		}
		if err := fn(w0, vals[:w1-w0]); err != nil {
			return err
		}
	}
	return nil
}

// decode returns the entries of window w, whose bytes are raw, in dst
// (FAT32: their low 28 bits).
func (t *fatCache) decode(raw []byte, w int, dst []uint32) []uint32 {
	n := int(t.windowEntries(w))
	if cap(dst) < n {
		dst = make([]uint32, n)
	}
	dst = dst[:n]
	switch t.typ {
	case FAT32:
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint32(raw[4*i:]) & mask32
		}
	case FAT16:
		for i := range dst {
			dst[i] = uint32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	default:
		tb := t.windowTable(w, raw)
		for i := range dst {
			dst[i] = uint32(tb.Get(Cluster(i)))
		}
	}
	return dst
}

// resolve notes the free clusters among the targets of links (target<<32
// | linking cluster), looking them up in target order so that each window
// is read once.
func (t *fatCache) resolve(links []uint64) {
	slices.Sort(links)
	for _, x := range links {
		c, by := Cluster(x>>32), Cluster(uint32(x))
		if t.IsFree(t.Get(c)) {
			t.noteBusy(c, by)
		}
	}
}

// runsOf works out window w's summary from its entries vals.
func (t *fatCache) runsOf(w int, vals []uint32) winSum {
	var s winSum
	first := t.winFirst(w)
	var run uint32
	atHead := true
	for i, v := range vals {
		c := first + Cluster(i)
		free := v == 0 && c >= FirstCluster
		if free {
			s.free++
			if !t.busy(c) {
				run++
				continue
			}
		}
		s.best = max(s.best, run)
		if atHead {
			s.head, atHead = run, false
		}
		run = 0
	}
	s.best = max(s.best, run)
	if atHead {
		s.head = run
	}
	s.tail = run
	return s
}

// sums returns window w's summary with its runs current.
func (t *fatCache) sums(w int) winSum {
	s := &t.sum.wins[w]
	if s.stale {
		free := s.free
		t.scratch = t.decode(t.win(w).raw, w, t.scratch)
		*s = t.runsOf(w, t.scratch)
		s.free = free
	}
	return *s
}

// usable reports whether the allocator may take cluster c.
func (t *fatCache) usable(c Cluster) bool {
	return c >= FirstCluster && t.IsFree(t.Get(c)) && !t.busy(c)
}

// findRun returns where the first n usable clusters in a row lie within
// [from, to]. Whole windows are judged by their summary; only the window
// where the run begins, and the partial windows at the ends, are read.
func (t *fatCache) findRun(from, to Cluster, n uint32) (Cluster, bool) {
	to = min(to, Cluster(t.entries-1))
	var run uint32
	var start Cluster
	for c := max(from, FirstCluster); c <= to; {
		w := t.winOf(c)
		lo, hi := t.winFirst(w), t.winLast(w)
		if c == lo && hi <= to {
			s := t.sums(w)
			if run == 0 {
				start = lo
			}
			if run+s.head >= n {
				return start, true
			}
			if s.best >= n {
				if at, ok := t.scanRun(lo, hi, n); ok {
					return at, true
				}
			}
			if Cluster(s.head) == hi-lo+1 {
				run += s.head
			} else {
				run, start = s.tail, hi-Cluster(s.tail)+1
			}
			c = hi + 1
			continue
		}
		end := min(hi, to)
		for ; c <= end; c++ {
			if !t.usable(c) {
				run = 0
				continue
			}
			if run == 0 {
				start = c
			}
			if run++; run == n {
				return start, true
			}
		}
	}
	return 0, false
}

// scanRun looks for n usable clusters in a row within [from, to], entry
// by entry.
func (t *fatCache) scanRun(from, to Cluster, n uint32) (Cluster, bool) {
	var run uint32
	for c := from; c <= to; c++ {
		if !t.usable(c) {
			run = 0
			continue
		}
		if run++; run == n {
			return c - Cluster(n) + 1, true
		}
	}
	return 0, false
}

// largestRun returns the longest run of usable clusters (the first of
// the longest), from the summary and the one window it begins in.
func (t *fatCache) largestRun() Extent {
	var best Extent
	bestWin := -1 // the window whose inner run is the best so far, if any
	var run uint32
	var start Cluster
	for w := 0; w < t.nwin; w++ {
		s := t.sums(w)
		lo, hi := t.winFirst(w), t.winLast(w)
		if run == 0 {
			start = lo
		}
		if Cluster(s.head) == hi-lo+1 {
			run += s.head
			continue
		}
		if run+s.head > best.Len {
			best, bestWin = Extent{start, run + s.head}, -1
		}
		if s.best > best.Len {
			best, bestWin = Extent{Len: s.best}, w
		}
		run, start = s.tail, hi-Cluster(s.tail)+1
	}
	if run > best.Len {
		best, bestWin = Extent{start, run}, -1
	}
	if bestWin >= 0 {
		best.Start, _ = t.scanRun(t.winFirst(bestWin), t.winLast(bestWin), best.Len)
	}
	return best
}

// firstUsable returns the first usable cluster at or after from.
func (t *fatCache) firstUsable(from Cluster) (Cluster, bool) {
	maxC := Cluster(t.entries - 1)
	for c := max(from, FirstCluster); c <= maxC; {
		w := t.winOf(c)
		if c == t.winFirst(w) && t.sums(w).best == 0 {
			c = t.winLast(w) + 1
			continue
		}
		if t.usable(c) {
			return c, true
		}
		c++
	}
	return 0, false
}
