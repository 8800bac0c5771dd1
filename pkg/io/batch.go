package io

import (
	"fmt"
	"slices"
)

// Batch collects writes and submits them sorted, merged and aligned. A Batch
// is not safe for concurrent use; use one per writer.
type Batch struct {
	d       *Device
	ents    []entry
	data    []byte // queued bytes, back to back
	pending int64
}

// entry is one queued write: data[pos:pos+n], or ref when the caller's
// bytes are kept (WriteShared), goes to absolute offset off.
type entry struct {
	off int64
	pos int
	n   int
	ref []byte
}

// bytes is what e writes.
func (b *Batch) bytes(e entry) []byte {
	if e.ref != nil {
		return e.ref
	}
	return b.data[e.pos : e.pos+e.n]
}

func (e entry) end() int64 { return e.off + int64(e.n) }

// NewBatch returns an empty batch writing to d.
func (d *Device) NewBatch() *Batch { return &Batch{d: d} }

// Pending is the number of queued bytes.
func (b *Batch) Pending() int64 { return b.pending }

// Write queues p at volume offset off. It copies p, so callers may reuse it.
// When the pending bytes exceed 4*IOSize the batch flushes itself, so memory
// stays bounded; an error then comes from that flush.
func (b *Batch) Write(off int64, p []byte) error { return b.write(off, p, false) }

// WriteShared is Write without the copy: p is kept, and must not change
// until the batch is flushed. A directory's sectors are queued so at a
// commit (nothing changes them before its flush): a folder of 60,000
// names is 6 MiB of entries, which Write copied whole once more. Shared
// bytes count towards the flush at 4*IOSize as copied ones do, so the
// writes are the same.
func (b *Batch) WriteShared(off int64, p []byte) error { return b.write(off, p, true) }

func (b *Batch) write(off int64, p []byte, shared bool) error {
	d := b.d
	if !d.writable {
		return fmt.Errorf("io: %s: write of %d bytes at offset %d: %w", d.path, len(p), off, ErrReadOnly)
	}
	if err := d.check("write", off, int64(len(p))); err != nil {
		return err
	}
	limit := 4 * int64(d.ioSize)
	for len(p) > 0 {
		n := min(len(p), d.ioSize) // bounds the bytes an entry adds to any chunk
		if shared {
			b.ents = append(b.ents, entry{off: d.start + off, n: n, ref: p[:n:n]})
		} else {
			b.ents = append(b.ents, entry{off: d.start + off, pos: len(b.data), n: n})
			b.data = append(b.data, p[:n]...)
		}
		b.pending += int64(n)
		p, off = p[n:], off+int64(n)
		if b.pending > limit {
			if err := b.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Flush sorts the queued writes, merges adjacent and overlapping ones (later
// writes win), widens each merged run to the alignment by reading only the
// partial edge blocks, and submits aligned writes of at most IOSize bytes
// from pooled buffers. Runs that share an aligned block are merged too, so
// no block is written twice. An empty batch does no I/O. The batch is empty
// afterwards, even when an error is returned.
func (b *Batch) Flush() error {
	if len(b.ents) == 0 {
		return nil
	}
	defer b.reset()
	d := b.d
	a := int64(d.Align())
	// Sorting indices by offset keeps queue order (seq) among equal offsets.
	order := make([]int, len(b.ents))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return cmpInt64(b.ents[i].off, b.ents[j].off)
	})
	buf := d.getBuf()
	defer d.putBuf(buf)
	for i := 0; i < len(order); {
		// A group: entries whose byte ranges touch, or whose aligned
		// extents share a block. reads collects the partially covered
		// blocks (the edges of each byte-contiguous sub-run).
		first := b.ents[order[i]]
		gEnd, subStart := first.end(), first.off
		var reads []int64
		addEdge := func(x int64) {
			if x%a != 0 {
				if blk := roundDown(x, a); len(reads) == 0 || reads[len(reads)-1] != blk {
					reads = append(reads, blk)
				}
			}
		}
		j := i + 1
		for ; j < len(order); j++ {
			e := b.ents[order[j]]
			if e.off <= gEnd {
				gEnd = max(gEnd, e.end())
				continue
			}
			if roundDown(e.off, a) >= roundUp(gEnd, a) {
				break
			}
			addEdge(subStart)
			addEdge(gEnd)
			subStart, gEnd = e.off, e.end()
		}
		addEdge(subStart)
		addEdge(gEnd)
		if err := b.writeGroup(buf, order[i:j], roundDown(first.off, a), min(roundUp(gEnd, a), d.rawSize), reads); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// writeGroup writes the absolute span [s, e) chunk by chunk: read the edge
// blocks falling in the chunk, copy in the entries overlapping it in queue
// order, write it.
func (b *Batch) writeGroup(buf []byte, members []int, s, e int64, reads []int64) error {
	d := b.d
	a, step := int64(d.Align()), int64(d.ioSize)
	var win []int
	lo := 0 // members before lo end before the current chunk
	for cs := s; cs < e; cs += step {
		ce := min(cs+step, e)
		chunk := buf[:ce-cs]
		for len(reads) > 0 && reads[0] < ce {
			blk := reads[0]
			if err := d.pread(chunk[blk-cs:min(blk+a, ce)-cs], blk); err != nil {
				return err
			}
			reads = reads[1:]
		}
		// Entries are at most IOSize long, so an entry overlapping this
		// chunk starts after cs-IOSize.
		for lo < len(members) && b.ents[members[lo]].off+step <= cs {
			lo++
		}
		win = win[:0]
		for k := lo; k < len(members) && b.ents[members[k]].off < ce; k++ {
			if b.ents[members[k]].end() > cs {
				win = append(win, members[k])
			}
		}
		slices.Sort(win) // queue order: later writes win
		for _, k := range win {
			en := b.ents[k]
			from, to := max(en.off, cs), min(en.end(), ce)
			copy(chunk[from-cs:to-cs], b.bytes(en)[from-en.off:])
		}
		if err := d.pwrite(chunk, cs); err != nil {
			return err
		}
	}
	return nil
}

func (b *Batch) reset() {
	clear(b.ents) // lets the callers' shared bytes go
	b.ents = b.ents[:0]
	b.data = b.data[:0]
	b.pending = 0
}

func cmpInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
