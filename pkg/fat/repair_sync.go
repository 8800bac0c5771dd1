package fat

import "bytes"

// syncFAT copies the planned FAT into the volume's table: every sector
// where FAT 1, or a copy that differs from it, is not what the plan wants
// gets the planned bytes in FAT 1's windows, marked changed, so that the
// commit writes those sectors to every copy in one batch.
//
// The tables are streamed from the disk a chunk at a time (syncChunk of
// each), so memory does not grow with the FAT: a 2 TiB FAT32's tables are
// 256 MiB each. When more windows change than stay in memory
// (syncResident), the table writes the changed ones early
// (fatCache.spill), in phaseData after the data queued before, with the links held for phaseEntries at their old
// values. So the sectors that hold such links are synced first: a spill
// writes the whole sector around a held entry, which must then already be
// as planned. A spill writes only synced sectors, so the sectors still to
// come read from the disk as they were.
func (p *plan) syncFAT() error {
	v, l := p.v, p.v.layout
	// Fewer windows stay while syncing: a spill queues every changed one,
	// for every copy, in a batch that copies them.
	defer func(n int) { v.table.maxRes = n }(v.table.maxRes)
	v.table.maxRes = min(v.table.maxRes, syncResident)
	s := &fatSync{p: p, src: p.baseCopy()}
	if p.copies != nil {
		s.differ = p.copies.differ
	}
	if pt, ok := p.tb.(*planTable); ok {
		s.changes = pt
	}
	// The sectors that hold entries: a FAT larger than its clusters need
	// has sectors past the table's last window, which the check does not
	// compare either (readFATCopies).
	ss := l.SectorSize
	size := min((fatBytes(l.Type, l.Clusters)+ss-1)/ss*ss, l.FATSize)
	chunk := size
	if l.Type == FAT32 {
		// FAT12 and FAT16 tables are one window, which is never dropped.
		chunk = min(syncChunk, size)
		s.early = map[int64]bool{}
		for _, c := range p.links {
			sec := 4 * int64(c) / ss * ss
			if !s.early[sec] {
				if err := s.sync(sec, ss, nil); err != nil {
					return err
				}
				s.early[sec] = true
			}
		}
	}
	for pos := int64(0); pos < size; pos += chunk {
		if err := s.sync(pos, min(chunk, size-pos), s.early); err != nil {
			return err
		}
	}
	v.table.recount()
	v.freeCount()
	return nil
}

// syncResident is how many FAT windows stay in memory while syncFAT runs:
// when more change, they are written in batches of about 2 MiB per copy.
const syncResident = 32

// syncChunk is how much of each FAT copy syncFAT reads at a time (a
// variable so that tests can make it small; a multiple of the sector size).
var syncChunk int64 = copyChunk

// fatSync is syncFAT's state: where the planned table's bytes come from
// and the buffers the chunks are read into.
type fatSync struct {
	p       *plan
	src     int        // the FAT copy the plan starts from (0: FAT 1)
	differ  []int      // copies that differ from FAT 1
	changes *planTable // the planned entries, nil if none
	early   map[int64]bool

	fat1, want []byte
	copies     [][]byte
}

// baseCopy is the FAT copy (0-based) the plan's table starts from.
func (p *plan) baseCopy() int {
	if p.copies != nil {
		for i, tb := range p.copies.tables {
			if tb == p.base {
				return i
			}
		}
	}
	return 0
}

// sync syncs bytes [pos, pos+n) of the table, sector by sector, leaving
// out the sectors in skip (synced already).
func (s *fatSync) sync(pos, n int64, skip map[int64]bool) error {
	v, l := s.p.v, s.p.v.layout
	fat1 := s.buf(&s.fat1, n)
	if err := v.ReadFAT(0, fat1, pos); err != nil {
		return err
	}
	want := s.buf(&s.want, n)
	if s.src == 0 {
		copy(want, fat1)
	} else if err := v.ReadFAT(s.src, want, pos); err != nil {
		return err
	}
	s.plan(want, pos)
	for len(s.copies) < len(s.differ) {
		s.copies = append(s.copies, nil)
	}
	copies := make([][]byte, len(s.differ))
	for k, i := range s.differ {
		copies[k] = s.buf(&s.copies[k], n)
		if err := v.ReadFAT(i, copies[k], pos); err != nil {
			return err
		}
	}
	ss := l.SectorSize
	for a := int64(0); a < n; a += ss {
		if skip[pos+a] {
			continue
		}
		e := min(a+ss, n)
		diff := !bytes.Equal(fat1[a:e], want[a:e])
		for _, b := range copies {
			diff = diff || !bytes.Equal(b[a:e], want[a:e])
		}
		if diff {
			v.table.put(pos+a, want[a:e])
		}
	}
	return nil
}

// plan sets the planned entries that lie in raw, the bytes of the table
// from byte pos on (pos is 0 unless the table is a FAT32), as Table.Set
// stores them.
func (s *fatSync) plan(raw []byte, pos int64) {
	if s.changes == nil {
		return
	}
	var tb Table
	first := Cluster(0)
	total := s.changes.Entries()
	switch s.changes.Type() {
	case FAT12:
		tb = &table12{tableBase{raw: raw, entries: total}}
	case FAT16:
		tb = &table16{tableBase{raw: raw, entries: total}}
	default:
		first = Cluster(pos / 4)
		tb = &table32{tableBase{raw: raw, entries: min(uint32(len(raw)/4), total-min(uint32(first), total))}}
	}
	s.changes.each(first, first+Cluster(tb.Entries()), func(c, val Cluster) {
		tb.Set(c-first, val)
	})
}

// buf returns n bytes of *b, made (aligned for the device) when too small.
func (s *fatSync) buf(b *[]byte, n int64) []byte {
	if int64(cap(*b)) < n {
		*b = s.p.v.dev.AlignedBuffer(int(n))
	}
	return (*b)[:n]
}
