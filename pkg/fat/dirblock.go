package fat

import (
	"fmt"
	"unicode/utf16"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Record is one directory member: optional LFN slots followed by its short
// entry.
type Record struct {
	Name    string // long name if a valid LFN sequence precedes the entry, else Short.Display(NTRes) (Short.Label() for the volume label)
	Short   ShortName
	Entry   DirEntry
	Slot    int // index of the record's first slot (first LFN slot, or the short entry)
	Slots   int // LFN slots + 1
	HasLong bool
}

// DirProblem is an oddity found while parsing a directory, for fverify to
// report: orphaned LFN slots, a bad checksum, a bad sequence, an empty name.
type DirProblem struct {
	Slot int    // index of the slot concerned (the first of a broken LFN sequence)
	Kind string // one of the Problem* constants
	Msg  string
}

// Kinds of DirProblem.
const (
	ProblemOrphanLFN   = "orphan-lfn"   // LFN slots not followed by the short entry they belong to
	ProblemLFNSequence = "lfn-sequence" // bad or out-of-order LFN sequence number
	ProblemLFNChecksum = "lfn-checksum" // LFN checksum does not match the short entry
	ProblemLFNName     = "lfn-name"     // LFN slots hold an empty name, or precede a volume label
)

// pendingLFN is an LFN sequence being collected while parsing.
type pendingLFN struct {
	active bool
	start  int // slot index of the first (last-flagged) slot
	total  int // number of slots announced by the first slot
	expect int // sequence number the next slot must carry
	sum    uint8
	units  [lfnMaxSlots * lfnUnits]uint16
}

// ParseDir parses raw, a directory of a volume of type t (a multiple of 32
// bytes; a trailing partial slot is ignored), up to the end marker (the first slot whose name starts with 0).
// Deleted slots are skipped. LFN slots whose checksum or sequence does not
// match are reported as problems, and the short entry is then returned with
// its short name. The volume label and "." and ".." entries are returned as
// records too. On FAT12/16 an entry's cluster is its low word alone (see
// DirEntry.ClusterFor). It never panics.
func ParseDir(raw []byte, t Type) ([]Record, []DirProblem) {
	var (
		recs  []Record
		probs []DirProblem
		p     pendingLFN
	)
	report := func(slot int, kind, format string, args ...any) {
		probs = append(probs, DirProblem{Slot: slot, Kind: kind, Msg: fmt.Sprintf(format, args...)})
	}
	dropPending := func(why string) {
		if p.active {
			report(p.start, ProblemOrphanLFN, "long name slots %d-%d %s", p.start, p.start+p.total-p.expect-1, why)
		}
		p.active = false
	}
	slots := len(raw) / DirEntrySize
	for i := 0; i < slots; i++ {
		b := raw[i*DirEntrySize : (i+1)*DirEntrySize]
		if b[direntName] == SlotEnd {
			break
		}
		if b[direntName] == SlotDeleted {
			dropPending("followed by a deleted slot")
			continue
		}
		if Attr(b[direntAttr])&attrLongNameMask == AttrLongName {
			parseLFNSlot(&p, i, b, report, dropPending)
			continue
		}
		e := DecodeDirEntry(b)
		e.ClusterFor(t)
		r := Record{Short: ShortName(e.Name), Entry: e, Slot: i, Slots: 1}
		if p.active {
			switch sum := ShortNameChecksum(r.Short); {
			case p.expect != 0:
				report(p.start, ProblemLFNSequence, "long name slots %d-%d lack sequence numbers 1-%d before the short entry %q at slot %d",
					p.start, i-1, p.expect, r.Short.String(), i)
			case p.sum != sum:
				report(p.start, ProblemLFNChecksum, "long name slots %d-%d have checksum %#02x, short entry %q at slot %d needs %#02x",
					p.start, i-1, p.sum, r.Short.String(), i, sum)
			case e.IsLabel():
				report(p.start, ProblemLFNName, "long name slots %d-%d precede the volume label at slot %d", p.start, i-1, i)
			default:
				if name := lfnName(p.units[:p.total*lfnUnits]); name != "" {
					r.Name, r.HasLong, r.Slot, r.Slots = name, true, p.start, p.total+1
				} else {
					report(p.start, ProblemLFNName, "long name slots %d-%d hold an empty name", p.start, i-1)
				}
			}
			p.active = false
		}
		if !r.HasLong {
			if e.IsLabel() {
				r.Name = r.Short.Label()
			} else {
				r.Name = r.Short.Display(e.NTRes)
			}
		}
		recs = append(recs, r)
	}
	dropPending("not followed by a short entry")
	return recs, probs
}

// parseLFNSlot adds LFN slot b at index i to the pending sequence p.
func parseLFNSlot(p *pendingLFN, i int, b []byte, report func(int, string, string, ...any), dropPending func(string)) {
	ord := b[lfnOrd]
	seq := int(ord &^ lfnLastFlag)
	if seq < 1 || seq > lfnMaxSlots {
		dropPending(fmt.Sprintf("followed by slot %d with a bad sequence number", i))
		report(i, ProblemLFNSequence, "long name slot %d: sequence number %#02x at byte 0 out of range 1-%d", i, ord, lfnMaxSlots)
		return
	}
	if ord&lfnLastFlag != 0 {
		dropPending(fmt.Sprintf("interrupted by a new long name at slot %d", i))
		*p = pendingLFN{active: true, start: i, total: seq, expect: seq, sum: b[lfnChecksum]}
	} else if !p.active {
		report(i, ProblemOrphanLFN, "long name slot %d (sequence %d) without a first slot", i, seq)
		return
	} else if seq != p.expect || b[lfnChecksum] != p.sum {
		dropPending(fmt.Sprintf("followed by slot %d with sequence %d checksum %#02x, want %d and %#02x", i, seq, b[lfnChecksum], p.expect, p.sum))
		report(i, ProblemLFNSequence, "long name slot %d (sequence %d) out of order", i, seq)
		return
	}
	// Append into a zero-length window of p.units: it has the capacity, so
	// the slot's 13 units land in place at the position of sequence number seq.
	lfnSlotUnits(p.units[(seq-1)*lfnUnits:(seq-1)*lfnUnits], b)
	p.expect--
}

// lfnName decodes collected units up to the 0x0000 terminator.
func lfnName(units []uint16) string {
	for i, u := range units {
		if u == 0 {
			units = units[:i]
			break
		}
	}
	return string(utf16.Decode(units))
}

// DirEnd returns the index of the end marker (the first slot whose name starts
// with 0), or the number of whole slots in raw if there is none.
func DirEnd(raw []byte) int {
	slots := len(raw) / DirEntrySize
	for i := 0; i < slots; i++ {
		if raw[i*DirEntrySize] == SlotEnd {
			return i
		}
	}
	return slots
}

// FindFreeSlots returns the first index >= from where n consecutive slots are
// free (deleted, or at/after the end marker), or -1 (also for n < 1). A run
// may extend across the end marker into never-used slots. A caller writing a
// record that ends before the last slot at or after the end marker must keep a
// 0 first byte in the slot after it, or zero the rest of the directory, so
// that stale bytes there are not taken as entries.
func FindFreeSlots(raw []byte, n, from int) int { return findFreeSlots(raw, n, from, DirEnd(raw)) }

// findFreeSlots is FindFreeSlots for a directory whose end marker is known
// to be at slot end: it looks at no slot before from.
func findFreeSlots(raw []byte, n, from, end int) int {
	free := func(i int) bool { return i >= end || raw[i*DirEntrySize] == SlotDeleted }
	return fsutil.FreeSlots(len(raw)/DirEntrySize, n, from, 0, free)
}

// EncodeRecord returns the slots for long name long and entry e: LFN slots if
// info.NeedLong, then the short entry with Name = info.Short and NTRes =
// info.NTRes. It refuses a short name starting with 0x00, 0xE5 or a space, an
// entry whose attributes would read as an LFN slot, and (with NeedLong) a long
// name that fails ValidateLongName.
func EncodeRecord(long string, info NameInfo, e DirEntry) ([]byte, error) {
	switch c := info.Short[0]; c {
	case SlotEnd, SlotDeleted, ' ':
		return nil, &nameError{name: long, msg: fmt.Sprintf("short name %q starts with byte %#02x", info.Short.String(), c)}
	}
	if e.Attr&attrLongNameMask == AttrLongName {
		return nil, &nameError{name: long, msg: fmt.Sprintf("attributes %#02x mark an LFN slot", uint8(e.Attr))}
	}
	var slots [][DirEntrySize]byte
	if info.NeedLong {
		if err := ValidateLongName(long); err != nil {
			return nil, err
		}
		var err error
		if slots, err = LongNameSlots(long, ShortNameChecksum(info.Short)); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, (len(slots)+1)*DirEntrySize)
	for i := range slots {
		out = append(out, slots[i][:]...)
	}
	e.Name, e.NTRes = info.Short, info.NTRes
	out = out[:len(out)+DirEntrySize]
	e.Encode(out[len(out)-DirEntrySize:])
	return out, nil
}

// MarkDeleted marks the record's slots deleted (0xE5) in raw. Slots outside
// raw are ignored.
func MarkDeleted(raw []byte, r Record) {
	slots := len(raw) / DirEntrySize
	for i := max(r.Slot, 0); i < r.Slot+r.Slots && i < slots; i++ {
		raw[i*DirEntrySize] = SlotDeleted
	}
}
