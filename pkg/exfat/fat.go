package exfat

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/ftools/ftools/pkg/internal/bounds"
	fio "github.com/ftools/ftools/pkg/io"
)

// exFAT needs its FAT only for fragmented files: a contiguous file carries
// NoFatChain and the FAT says nothing about it, and the allocation bitmap,
// not the FAT, says which clusters are free. So the FAT is not read whole
// at open: fatTable reads it in pages as chains are walked, keeps at most
// maxFATCache bytes of clean pages, and writes back only the sectors that
// changed.
const (
	fatPageSize = 64 << 10
	maxFATCache = 64 << 20
)

// fatTable is the volume's active FAT.
type fatTable struct {
	dev     *fio.Device
	off     int64 // byte offset of the FAT on the volume
	size    int64 // bytes the FAT may hold: FatLength sectors
	entries uint32
	ss      int64
	pages   map[int64][]byte   // page number -> its bytes
	dirty   map[int64]struct{} // sector numbers (from the FAT's start) changed
	dpages  map[int64]struct{} // pages holding a dirty sector
}

func newFATTable(dev *fio.Device, l *Layout) *fatTable {
	return &fatTable{
		dev: dev, off: l.ActiveFATOffset(), size: l.FATSize, entries: l.Clusters + 2, ss: l.SectorSize,
		pages: map[int64][]byte{}, dirty: map[int64]struct{}{}, dpages: map[int64]struct{}{},
	}
}

// page returns page p, reading it on first use.
func (t *fatTable) page(p int64) ([]byte, error) {
	if b, ok := t.pages[p]; ok {
		return b, nil
	}
	t.evict()
	start := p * fatPageSize
	n := min(int64(fatPageSize), t.size-start)
	b := make([]byte, fatPageSize)
	if _, err := t.dev.ReadAt(b[:n], t.off+start); err != nil {
		return nil, fmt.Errorf("exfat: reading the FAT at byte %d: %w", t.off+start, err)
	}
	t.pages[p] = b
	return b, nil
}

// evict drops clean pages while the cache is over its bound.
func (t *fatTable) evict() {
	if int64(len(t.pages)+1)*fatPageSize <= maxFATCache {
		return
	}
	for p := range t.pages {
		if _, d := t.dpages[p]; !d {
			delete(t.pages, p)
			if int64(len(t.pages)+1)*fatPageSize <= maxFATCache {
				return
			}
		}
	}
}

func (t *fatTable) check(c Cluster) error {
	if uint32(c) >= t.entries {
		return fmt.Errorf("%w: FAT entry %d is past the FAT's %d entries", ErrCorrupt, c, t.entries)
	}
	return nil
}

// Get returns FAT entry c.
func (t *fatTable) Get(c Cluster) (uint32, error) {
	if err := t.check(c); err != nil {
		return 0, err
	}
	pos := int64(c) * 4
	b, err := t.page(pos / fatPageSize)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[pos%fatPageSize:]), nil
}

// Set changes FAT entry c to v in memory; flush writes it.
func (t *fatTable) Set(c Cluster, v uint32) error {
	if err := t.check(c); err != nil {
		return err
	}
	pos := int64(c) * 4
	b, err := t.page(pos / fatPageSize)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b[pos%fatPageSize:], v)
	t.dirty[pos/t.ss] = struct{}{}
	t.dpages[pos/fatPageSize] = struct{}{}
	return nil
}

// setChain links the clusters of exts in order, the last one ending the
// chain.
func (t *fatTable) setChain(exts []Extent) error {
	for i, e := range exts {
		for c := e.Start; c < e.End()-1; c++ {
			if err := t.Set(c, uint32(c+1)); err != nil {
				return err
			}
		}
		next := uint32(fatEOC)
		if i+1 < len(exts) {
			next = uint32(exts[i+1].Start)
		}
		if err := t.Set(e.End()-1, next); err != nil {
			return err
		}
	}
	return nil
}

// Dirty reports whether entries changed since the last flush.
func (t *fatTable) Dirty() bool { return len(t.dirty) > 0 }

// flush queues the changed sectors into b, one write per run of them.
func (t *fatTable) flush(b *fio.Batch) error {
	secs := make([]int64, 0, len(t.dirty))
	for s := range t.dirty {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	for i := 0; i < len(secs); {
		j := i + 1
		for j < len(secs) && secs[j] == secs[j-1]+1 && (secs[j]*t.ss)%fatPageSize != 0 {
			j++
		}
		start := secs[i] * t.ss
		end := min((secs[j-1]+1)*t.ss, t.size)
		pg := t.pages[start/fatPageSize]
		if err := b.Write(t.off+start, pg[start%fatPageSize:start%fatPageSize+(end-start)]); err != nil {
			return fmt.Errorf("exfat: writing the FAT: %w", err)
		}
		i = j
	}
	clear(t.dirty)
	clear(t.dpages)
	return nil
}

// errChainLoop is a chain that comes back to a cluster it passed, or one
// longer than the walk allows (errChainLong).
var errChainLoop = fmt.Errorf("%w: cluster chain loops", ErrCorrupt)

// errChainLong is a chain that goes on past the clusters the walk was
// allowed: a file's chain longer than its size needs.
var errChainLong = fmt.Errorf("%w: cluster chain too long", errChainLoop)

// chainAll walks the FAT chain from start to its end and returns its
// clusters as runs. It stops with an error at a cluster outside the heap, a
// bad-cluster mark, a loop, or after max clusters (a chain longer than the
// caller allows).
func (t *fatTable) chainAll(l *Layout, start Cluster, max uint64) ([]Extent, error) {
	return t.walk(l, start, max, false)
}

// chainN returns the first n clusters of the chain from start; it is an
// error when the chain ends, breaks or loops before them. What follows the
// nth cluster is not read.
func (t *fatTable) chainN(l *Layout, start Cluster, n uint64) ([]Extent, error) {
	return t.walk(l, start, n, true)
}

// walk follows the chain from start. Whatever max a caller passes (it may
// come from a damaged length), the walk steps on at most as many clusters
// as the heap has and finds a loop within twice its length (bounds.Walk),
// so the runs it returns stay within the volume's size.
func (t *fatTable) walk(l *Layout, start Cluster, max uint64, exact bool) ([]Extent, error) {
	var exts []Extent
	w := bounds.NewWalk(min(max, uint64(l.Clusters)))
	c := start
	for n := uint64(0); ; n++ {
		if exact && n == max {
			return exts, nil
		}
		if !l.ValidCluster(c) {
			return exts, corruptf("FAT", "cluster chain", -1, c, "reaches a cluster outside the heap (2..%d) after %d clusters from %d", l.MaxCluster(), n, start)
		}
		switch w.Step(uint32(c)) {
		case bounds.Loop:
			// c is returned a second time: the caller sees the cluster
			// the chain shares with itself.
			exts = appendExtent(exts, Extent{c, 1})
			return exts, &FormatError{Structure: "FAT", Field: "cluster chain", Offset: -1, Value: start,
				Msg: fmt.Sprintf("comes back to cluster %d after %d clusters: it loops", c, n), Err: errChainLoop}
		case bounds.Limit:
			if max > uint64(l.Clusters) {
				return exts, &FormatError{Structure: "FAT", Field: "cluster chain", Offset: -1, Value: start,
					Msg: fmt.Sprintf("is longer than the heap's %d clusters: it loops", l.Clusters), Err: errChainLoop}
			}
			return exts, fmt.Errorf("%w: the chain from cluster %d is longer than %d clusters", errChainLong, start, max)
		}
		exts = appendExtent(exts, Extent{c, 1})
		next, err := t.Get(c)
		if err != nil {
			return exts, err
		}
		switch {
		case next == fatEOC:
			if exact && n+1 < max {
				return exts, corruptf("FAT", "cluster chain", -1, start, "ends after %d clusters; %d are needed", n+1, max)
			}
			return exts, nil
		case next == fatBad:
			return exts, corruptf("FAT", "cluster chain", -1, c, "is followed by the bad-cluster mark in the chain from %d", start)
		}
		c = Cluster(next)
	}
}
