package fat

import "fmt"

// checkLongNames checks the long name slots of directory idx up to its end
// marker: a slot's cluster and reserved (type) fields must be 0, and every
// slot must belong to the record after it. Slots that do not (ParseDir
// leaves them out of recs) are classed by what broke them and planned
// deleted: the member after them keeps its short name, which is the name
// every system shows it by already. Fields are zeroed as fsck.fat does.
func (t *treeCheck) checkLongNames(idx int, raw []byte, recs []Record) {
	end := DirEnd(raw)
	attached := make(map[int]bool)
	for _, r := range recs {
		if r.HasLong {
			for s := r.Slot; s < r.Slot+r.Slots-1; s++ {
				attached[s] = true
			}
		}
	}
	dirPath := t.path(idx)
	for i := 0; i < end; {
		b := raw[i*DirEntrySize : (i+1)*DirEntrySize]
		if b[0] == SlotDeleted || Attr(b[direntAttr])&attrLongNameMask != AttrLongName {
			i++
			continue
		}
		if attached[i] {
			t.lfnFields(idx, i, b)
			i++
			continue
		}
		j := i
		for j+1 < end && !attached[j+1] && isLiveLFN(raw[(j+1)*DirEntrySize:]) {
			j++
		}
		kind, why := classifyStray(raw, i, j, end)
		t.fix(t.problem(kind, dirPath, 0, t.slotOff(idx, i), "long name slots %d-%d %s", i, j, why),
			"delete long name slots %d-%d of %s", i, j, dirPath)
		t.dirPlan(idx).remove(i, j-i+1)
		i = j + 1
	}
}

// isLiveLFN reports whether slot b is a long name slot not deleted.
func isLiveLFN(b []byte) bool {
	return b[0] != SlotDeleted && b[0] != SlotEnd && Attr(b[direntAttr])&attrLongNameMask == AttrLongName
}

// lfnFields reports and plans zeroed a long name slot's cluster field
// (bytes 26-27) or reserved type byte (12): Windows ignores a long name
// whose slots have them set, fsck.fat zeroes them.
func (t *treeCheck) lfnFields(idx, i int, b []byte) {
	c := uint16(b[lfnCluster]) | uint16(b[lfnCluster+1])<<8
	if c == 0 && b[lfnType] == 0 {
		return
	}
	dirPath := t.path(idx)
	t.fix(t.problem(KindLFNFields, dirPath, 0, t.slotOff(idx, i), "long name slot %d has cluster field %#04x and type byte %#02x, not 0", i, c, b[lfnType]),
		"zero the cluster and type fields of long name slot %d of %s", i, dirPath)
	s := t.dirPlan(idx).slot(i)
	s[lfnType], s[lfnCluster], s[lfnCluster+1] = 0, 0, 0
}

// classifyStray says why long name slots from..to, which belong to no
// record, are stray: what follows them and whether they form a sequence.
func classifyStray(raw []byte, from, to, end int) (kind, why string) {
	next := to + 1
	switch {
	case next >= end:
		return KindLFNOrphan, "are not followed by a short entry"
	case raw[next*DirEntrySize] == SlotDeleted:
		return KindLFNDeleted, fmt.Sprintf("are left over from the deleted entry at slot %d", next)
	}
	short := ShortName(raw[next*DirEntrySize : next*DirEntrySize+shortNameLen])
	first := raw[from*DirEntrySize:]
	sum := first[lfnChecksum]
	seq := int(first[lfnOrd] & lfnSeqMask)
	sameSum, ordered := true, true
	for k := from; k <= to; k++ {
		b := raw[k*DirEntrySize:]
		sameSum = sameSum && b[lfnChecksum] == sum
		want := seq - (k - from)
		ordered = ordered && int(b[lfnOrd]&lfnSeqMask) == want && (k == from || b[lfnOrd]&lfnLastFlag == 0)
	}
	last := int(raw[to*DirEntrySize+lfnOrd] & lfnSeqMask)
	switch {
	case !ordered || seq > lfnMaxSlots || last != 1:
		return KindLFNSequence, fmt.Sprintf("before %q at slot %d do not count down to 1", short.String(), next)
	case !sameSum:
		return KindLFNChecksum, fmt.Sprintf("before %q at slot %d do not all carry the same checksum", short.String(), next)
	case first[lfnOrd]&lfnLastFlag == 0:
		return KindLFNUnfinished, fmt.Sprintf("before %q at slot %d lack their first slots (the start of the name was overwritten)", short.String(), next)
	case sum != ShortNameChecksum(short):
		return KindLFNChecksum, fmt.Sprintf("have checksum %#02x, but the short entry %q at slot %d needs %#02x", sum, short.String(), next, ShortNameChecksum(short))
	}
	return KindLFNName, fmt.Sprintf("before %q at slot %d hold no usable name (empty, or before a volume label)", short.String(), next)
}
