package fat

import (
	"bytes"
	"fmt"
)

// rootMove is one step of sorting the fixed root in place: record rec
// (an index into the sorted records) is copied from slot from to slot to.
type rootMove struct{ rec, from, to int }

// sortFixedRoot puts the FAT12/16 fixed root's records (recs, sorted,
// with the slots they hold now) in order from slot 0, in place: the root
// cannot move. Each move writes the record's copy where it goes (a place
// no live record holds), barrier, then marks the old slots deleted,
// barrier; a record in the way is first moved to free slots further on.
// A cut therefore leaves every record whole at least once: at worst one
// record twice (the copy made, the old not yet deleted), which fverify
// --repair removes. Finally the slots after the last record are zeroed.
// The moves are planned in memory first: a root with too few free slots
// to make room is refused before anything is written. On return recs'
// slots are their new ones.
func (v *Volume) sortFixedRoot(raw []byte, recs []Record) (bool, error) {
	total := len(raw) / DirEntrySize
	used := recordsBytes(recs) / DirEntrySize
	end := total
	for i := 0; i < total; i++ {
		if raw[i*DirEntrySize] == SlotEnd {
			end = i
			break
		}
	}
	moves, err := planRootMoves(recs, total)
	if err != nil {
		return false, err
	}
	tail := false
	for i := used; i < end; i++ {
		tail = tail || raw[i*DirEntrySize] != SlotEnd
	}
	if len(moves) == 0 && !tail {
		return false, nil
	}
	l := v.layout
	ss := int(l.SectorSize)
	write := func(from, to int) error { // slots [from, to)
		a := from * DirEntrySize / ss * ss
		b := min((to*DirEntrySize+ss-1)/ss*ss, len(raw))
		v.metaWritten = true
		if _, err := v.dev.WriteAt(raw[a:b], l.RootDirOffset+int64(a)); err != nil {
			return fmt.Errorf("fat: writing the root directory: %w", err)
		}
		return nil
	}
	// Slots past the end marker become deleted ones, so that a record
	// moved there is seen (once, with the barrier, before it is).
	if len(moves) > 0 && end < total && needsTail(moves, end) {
		for i := end; i < total; i++ {
			raw[i*DirEntrySize] = SlotDeleted
		}
		if err := write(end, total); err != nil {
			return false, err
		}
		if err := v.barrier(); err != nil {
			return false, err
		}
	}
	for _, m := range moves {
		n := recs[m.rec].Slots * DirEntrySize
		copy(raw[m.to*DirEntrySize:m.to*DirEntrySize+n], raw[m.from*DirEntrySize:m.from*DirEntrySize+n])
		if err := write(m.to, m.to+recs[m.rec].Slots); err != nil {
			return false, err
		}
		if err := v.barrier(); err != nil {
			return false, err
		}
		for i := m.from; i < m.from+recs[m.rec].Slots; i++ {
			raw[i*DirEntrySize] = SlotDeleted
		}
		if err := write(m.from, m.from+recs[m.rec].Slots); err != nil {
			return false, err
		}
		if err := v.barrier(); err != nil {
			return false, err
		}
		recs[m.rec].Slot = m.to
	}
	if used < total && !bytes.Equal(raw[used*DirEntrySize:], make([]byte, len(raw)-used*DirEntrySize)) {
		clear(raw[used*DirEntrySize:])
		if err := write(used, total); err != nil {
			return false, err
		}
		if err := v.barrier(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// needsTail reports whether a move writes at or after slot end.
func needsTail(moves []rootMove, end int) bool {
	for _, m := range moves {
		if m.to >= end {
			return true
		}
	}
	return false
}

// planRootMoves plans sortFixedRoot's moves: recs in their new order, at
// their present slots, in a root of total slots. It changes nothing.
func planRootMoves(recs []Record, total int) ([]rootMove, error) {
	occ := make([]int32, total) // record index + 1 at each slot, 0: free
	cur := make([]int, len(recs))
	for i := range recs {
		cur[i] = recs[i].Slot
		for s := recs[i].Slot; s < recs[i].Slot+recs[i].Slots; s++ {
			occ[s] = int32(i + 1)
		}
	}
	var moves []rootMove
	move := func(r, to int) {
		n := recs[r].Slots
		for s := cur[r]; s < cur[r]+n; s++ {
			occ[s] = 0
		}
		for s := to; s < to+n; s++ {
			occ[s] = int32(r + 1)
		}
		moves = append(moves, rootMove{rec: r, from: cur[r], to: to})
		cur[r] = to
	}
	// freeRun finds n free slots at or after from that avoid [a, b).
	freeRun := func(n, from, a, b int) int {
		run := 0
		for s := from; s < total; s++ {
			if occ[s] != 0 || (s >= a && s < b) {
				run = 0
				continue
			}
			if run++; run == n {
				return s - n + 1
			}
		}
		return -1
	}
	t := 0
	for i := range recs {
		n := recs[i].Slots
		if cur[i] != t {
			// Clear [t, t+n): of this record first (its own run is the
			// longest to place while most slots are free), then of the
			// others in the way.
			evacuate := func(q int) error {
				to := freeRun(recs[q].Slots, t, t, t+n)
				if to < 0 {
					free := 0
					for _, o := range occ {
						if o == 0 {
							free++
						}
					}
					return fmt.Errorf("%w: the root directory has too few free slots to reorder it safely: an entry in the way needs %d free slots together to wait in, outside the %d being cleared for the entry that goes there, and the %d of the root's %d slots that are free now (with the entries already waiting in theirs) are not placed so (each entry moves through free slots, never held only in memory); remove a file from the root first", ErrDirFull, recs[q].Slots, n, free, total)
				}
				move(q, to)
				return nil
			}
			if cur[i] < t+n {
				if err := evacuate(i); err != nil {
					return nil, err
				}
			}
			for s := t; s < t+n; s++ {
				if q := int(occ[s]) - 1; q >= 0 {
					if err := evacuate(q); err != nil {
						return nil, err
					}
				}
			}
			move(i, t)
		}
		t += n
	}
	return moves, nil
}
