package fat

import (
	"fmt"
	"strings"
)

// ntNoShortName is a DIR_NTRes flag that patched Linux kernels set on an
// entry whose 11 name bytes are no 8.3 name (its long name is the name).
// fsck.fat renames such an entry when it has no long name, and clears the
// flag on "." and "..".
const ntNoShortName = 0x20

// badShortChars are the characters fsck.fat refuses in a short name,
// besides control characters ('.' belongs only to "." and "..").
const badShortChars = "*?<>|\"\\/:."

// badShortName says what is wrong with an on-disk short name, or "": the
// characters fsck.fat refuses (control characters, 0x7f, *?<>|"\/:. and a
// leading space), and lower-case letters, which a short name stores in
// upper case (a lower-case name as shown carries the NT flags instead).
// lower reports whether lower-case letters are all that is wrong.
func badShortName(n ShortName) (msg string, lower bool) {
	if n[0] == ' ' {
		return "starts with a space", false
	}
	for i, c := range n {
		switch {
		case i == 0 && c == SlotKanjiE5:
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("holds control character %#02x at byte %d", c, i), false
		case strings.IndexByte(badShortChars, c) >= 0:
			return fmt.Sprintf("holds %q at byte %d, not allowed in short names", rune(c), i), false
		}
	}
	for i, c := range n {
		if 'a' <= c && c <= 'z' {
			return fmt.Sprintf("holds the lower-case letter %q at byte %d (short names are stored in upper case)", rune(c), i), true
		}
	}
	return "", false
}

// upperShort returns n in upper case with the NT flags that keep it shown
// as it was where a whole part was lower case.
func upperShort(n ShortName, nt uint8) (ShortName, uint8) {
	part := func(b []byte, flag uint8) {
		lower, upper := false, false
		for i, c := range b {
			switch {
			case 'a' <= c && c <= 'z':
				lower = true
				b[i] = c - 'a' + 'A'
			case 'A' <= c && c <= 'Z':
				upper = true
			}
		}
		if lower && !upper {
			nt |= flag
		}
	}
	part(n[:shortBaseLen], NTLowerBase)
	part(n[shortBaseLen:], NTLowerExt)
	return n, nt
}

// checkName checks a member's short name, and plans a bad one renamed:
// one with lower-case letters upper-cased (keeping how it is shown), any
// other FSCK0000.000, FSCK0000.001, ... as fsck.fat names them. A long
// name stays, its checksum fixed, so the member keeps the name it is
// known by.
func (t *treeCheck) checkName(idx int, r *Record) {
	msg, lower := badShortName(r.Short)
	if r.Entry.NTRes&ntNoShortName != 0 && !r.HasLong {
		msg, lower = fmt.Sprintf("has the NT flag %#02x that says it is no short name, and no long name", ntNoShortName), false
	}
	if msg == "" {
		return
	}
	p := t.problem(KindBadName, t.path(idx), 0, t.entryOff(idx), "short name %q %s", r.Short.String(), msg)
	pd := t.dirPlan(int(t.nodes.at(idx).parent))
	if lower {
		// A twin that differs only in case is a duplicate: dirNames renames it.
		up, nt := upperShort(r.Short, r.Entry.NTRes)
		t.fix(p, "store the short name of %s as %q", t.path(idx), up.Display(nt))
		t.renameShort(idx, r, up, nt, true)
		return
	}
	n, ok := pd.uniqueName()
	if !ok {
		t.rep.add(p)
		return
	}
	t.fix(p, "rename the short name of %s to %s", t.path(idx), n.String())
	t.renameShort(idx, r, n, 0, true)
}

// renameShort plans node idx's short name to be n (with NT flags nt);
// its long name is kept with the new checksum, or dropped.
func (t *treeCheck) renameShort(idx int, r *Record, n ShortName, nt uint8, keepLong bool) {
	nd := t.nodes.at(idx)
	pd := t.dirPlan(int(nd.parent))
	short := r.Slot + r.Slots - 1
	b := pd.slot(short)
	copy(b[direntName:], n[:])
	b[direntNTRes] = nt
	r.Short, r.Entry.Name, r.Entry.NTRes = n, n, nt
	switch {
	case r.HasLong && keepLong:
		sum := ShortNameChecksum(n)
		for s := r.Slot; s < short; s++ {
			pd.slot(s)[lfnChecksum] = sum
		}
	case r.HasLong:
		pd.remove(r.Slot, r.Slots-1)
		r.Slot, r.Slots, r.HasLong = short, 1, false
		nd.slot, nd.slots = int32(short), 1
		fallthrough
	default:
		r.Name = n.Display(nt)
		t.rename(idx, r.Name)
	}
}

// dirNames holds the names of the members of one directory checked so
// far, folded as FAT matches them.
type dirNames struct{ seen map[string]int }

func newDirNames() *dirNames { return &dirNames{seen: map[string]int{}} }

// check reports a member whose short or long name another member of the
// directory already has, and plans it renamed: a clashing short name gets
// an FSCK name, a clashing long name is dropped.
func (d *dirNames) check(t *treeCheck, idx int, r *Record) {
	nd := t.nodes.at(idx)
	short := FoldName(r.Short.String())
	long := FoldName(r.Name)
	if prev, ok := d.seen[short]; ok {
		pd := t.dirPlan(int(nd.parent))
		p := Problem{Kind: KindDup, Path: t.path(idx), Paths: []string{t.path(prev), t.path(idx)}, Offset: t.entryOff(idx),
			Message: fmt.Sprintf("short name %q is already used by %s", r.Short.String(), t.path(prev))}
		if n, ok := pd.uniqueName(); ok {
			_, clash := d.seen[long]
			keep := r.HasLong && !clash
			t.fix(p, "rename the short name of %s to %s", t.path(idx), n.String())
			t.renameShort(idx, r, n, 0, keep)
		} else {
			t.rep.add(p)
		}
	} else if prev, ok := d.seen[long]; ok && r.HasLong {
		p := Problem{Kind: KindDup, Path: t.path(idx), Paths: []string{t.path(prev), t.path(idx)}, Offset: t.slotOff(int(nd.parent), r.Slot),
			Message: fmt.Sprintf("long name %q is already used by %s", r.Name, t.path(prev))}
		t.fix(p, "drop the long name of %s, leaving its short name %s", t.path(idx), r.Short.Display(r.Entry.NTRes))
		t.renameShort(idx, r, r.Short, r.Entry.NTRes, false)
	}
	d.seen[FoldName(r.Short.String())] = idx
	d.seen[FoldName(r.Name)] = idx
}
