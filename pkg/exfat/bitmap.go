package exfat

import (
	"fmt"
	"math/bits"
	"sort"

	fio "github.com/ftools/ftools/pkg/io"
)

// bitmap is the allocation bitmap (exFAT specification 7.1): bit i of the
// file, counting from bit 0 of byte 0, says whether cluster i+2 is in use.
// It is a file in the heap, chained in the FAT, so its bytes map to the
// device through exts. It is held in memory whole: one bit per cluster,
// 1/32 of the FAT's size.
type bitmap struct {
	bits  []byte
	n     uint32 // clusters
	free  uint32
	exts  []Extent // the bitmap file's clusters
	dirty map[int64]struct{}
	// held are clusters files use that the bitmap on disk marks free:
	// set in bits, so that nothing allocates them, but written as they
	// are on disk (the bitmap is repaired by fverify --repair, not as a
	// side effect of a copy). nil when there are none.
	held    []byte
	nheld   uint32 // bits set in held
	guarded bool   // the tree was walked for such clusters (Volume.guardBitmap)
}

// diskFree is the free count as the bitmap will be written: held clusters
// count as free there.
func (b *bitmap) diskFree() uint32 { return b.free + b.nheld }

func newBitmap(raw []byte, n uint32, exts []Extent) *bitmap {
	b := &bitmap{bits: raw[:(int64(n)+7)/8], n: n, exts: exts, dirty: map[int64]struct{}{}}
	used := 0
	full := int(n / 8)
	for _, x := range b.bits[:full] {
		used += bits.OnesCount8(x)
	}
	for c := uint32(full) * 8; c < n; c++ {
		if b.bits[c/8]&(1<<(c%8)) != 0 {
			used++
		}
	}
	b.free = n - uint32(used)
	return b
}

// used reports whether cluster c is marked in use; clusters outside the
// heap read as in use, so that nothing allocates them.
func (b *bitmap) used(c Cluster) bool {
	i := uint32(c - FirstCluster)
	if c < FirstCluster || i >= b.n {
		return true
	}
	return b.bits[i/8]&(1<<(i%8)) != 0
}

// mark sets (on) or clears the bits of e, keeping the free count and the
// dirty set. Bits already in the wanted state are left alone.
func (b *bitmap) mark(e Extent, on bool) {
	for c := e.Start; c < e.End(); c++ {
		i := uint32(c - FirstCluster)
		if i >= b.n {
			return
		}
		m := byte(1) << (i % 8)
		if b.held != nil && b.held[i/8]&m != 0 {
			// Marked on purpose: its bit is written as it now is.
			b.held[i/8] &^= m
			b.nheld--
			b.dirty[int64(i/8)] = struct{}{}
		}
		if (b.bits[i/8]&m != 0) == on {
			continue
		}
		if on {
			b.bits[i/8] |= m
			b.free--
		} else {
			b.bits[i/8] &^= m
			b.free++
		}
		b.dirty[int64(i/8)] = struct{}{}
	}
}

// hold marks exts in use in memory only (see held).
func (b *bitmap) hold(exts []Extent) {
	for _, e := range exts {
		for c := e.Start; c < e.End(); c++ {
			i := uint32(c - FirstCluster)
			if c < FirstCluster || i >= b.n {
				break
			}
			m := byte(1) << (i % 8)
			if b.bits[i/8]&m != 0 {
				continue
			}
			if b.held == nil {
				b.held = make([]byte, len(b.bits))
			}
			b.bits[i/8] |= m
			b.held[i/8] |= m
			b.nheld++
			b.free--
		}
	}
}

// findRun returns the first run of n free clusters that starts in
// [from, to], scanning whole bytes where they are full or empty.
func (b *bitmap) findRun(from, to Cluster, n uint32) (Extent, bool) {
	if from < FirstCluster {
		from = FirstCluster
	}
	last := FirstCluster + Cluster(b.n) - 1
	var start Cluster
	var run uint32
	for c := from; c <= last; {
		if run == 0 && c > to {
			break
		}
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+7 <= last {
			switch b.bits[i/8] {
			case 0xFF:
				run = 0
				c += 8
				continue
			case 0x00:
				if run == 0 {
					start = c
				}
				if run+8 >= n {
					return Extent{start, n}, true
				}
				run += 8
				c += 8
				continue
			}
		}
		if b.bits[i/8]&(1<<(i%8)) != 0 {
			run = 0
		} else {
			if run == 0 {
				start = c
			}
			run++
			if run == n {
				return Extent{start, n}, true
			}
		}
		c++
	}
	return Extent{}, false
}

// freeRuns lists every run of free clusters.
func (b *bitmap) freeRuns() []Extent {
	var out []Extent
	last := FirstCluster + Cluster(b.n) - 1
	for c := FirstCluster; c <= last; {
		i := uint32(c - FirstCluster)
		if i%8 == 0 && c+7 <= last && b.bits[i/8] == 0xFF {
			c += 8
			continue
		}
		if b.used(c) {
			c++
			continue
		}
		s := c
		for c <= last && !b.used(c) {
			c++
		}
		out = append(out, Extent{s, uint32(c - s)})
	}
	return out
}

// flush queues the changed sectors of the bitmap into b. ss is the sector
// size, cs the cluster size; sectors never straddle clusters.
func (b *bitmap) flush(batch *fio.Batch, l *Layout) error {
	if len(b.dirty) == 0 {
		return nil
	}
	ss := l.SectorSize
	secSet := map[int64]struct{}{}
	for i := range b.dirty {
		secSet[i/ss] = struct{}{}
	}
	secs := make([]int64, 0, len(secSet))
	for s := range secSet {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	for _, s := range secs {
		start := s * ss
		end := min(start+ss, int64(len(b.bits)))
		off, err := fileOffset(l, b.exts, start)
		if err != nil {
			return fmt.Errorf("exfat: writing the allocation bitmap: %w", err)
		}
		out := b.bits[start:end]
		if b.held != nil {
			out = make([]byte, end-start)
			for i := range out {
				out[i] = b.bits[start+int64(i)] &^ b.held[start+int64(i)]
			}
		}
		if err := batch.Write(off, out); err != nil {
			return fmt.Errorf("exfat: writing the allocation bitmap: %w", err)
		}
	}
	clear(b.dirty)
	return nil
}

// bitOffset is the device offset of the bitmap byte that holds cluster
// c's bit: where a problem with its marking lies (-1 if it lies past the
// bitmap's clusters).
func (b *bitmap) bitOffset(l *Layout, c Cluster) int64 {
	off, err := fileOffset(l, b.exts, int64(c-FirstCluster)/8)
	if err != nil {
		return -1
	}
	return off
}

// fileOffset maps byte pos of a file whose clusters are exts to its byte
// offset on the volume.
func fileOffset(l *Layout, exts []Extent, pos int64) (int64, error) {
	ci := pos / l.ClusterSize
	for _, e := range exts {
		if ci < int64(e.Len) {
			return l.ClusterOffset(e.Start+Cluster(ci)) + pos%l.ClusterSize, nil
		}
		ci -= int64(e.Len)
	}
	return 0, fmt.Errorf("%w: byte %d lies past the file's %d clusters", ErrCorrupt, pos, extentsClusters(exts))
}
