package fat

import (
	"fmt"
	"strings"
)

// labelBadChars are the bytes fsck.fat refuses in a volume label.
const labelBadChars = "\"*+,./:;<=>?[\\]|"

// badLabel says what makes an 11-byte label one fsck.fat refuses, or "":
// control characters (and, as fsck.fat 4.2 reads the bytes as signed,
// every byte from 0x80 up), the characters "*+,./:;<=>?[\]|, a label of
// only spaces, or a leading space. Lower case is allowed (fsck.fat
// refuses it only with -U): lower reports it.
func badLabel(b ShortName) (msg string, lower bool) {
	if b[0] == SlotKanjiE5 {
		b[0] = SlotDeleted
	}
	for i, c := range b {
		switch {
		case c < 0x20 || c >= 0x80:
			return fmt.Sprintf("holds byte %#02x at %d", c, i), false
		case strings.IndexByte(labelBadChars, c) >= 0:
			return fmt.Sprintf("holds %q at %d", rune(c), i), false
		}
	}
	switch {
	case string(b[:]) == "           ":
		return "is all spaces", false
	case b[0] == ' ':
		return "starts with a space", false
	}
	for _, c := range b {
		if 'a' <= c && c <= 'z' {
			return "", true
		}
	}
	return "", false
}

// checkLabel checks the boot sector's label against the root directory's
// label entry, and plans them made consistent the way fsck.fat -a does:
// an invalid label is removed; a label only in the boot sector is removed
// from it (no system shows it); a label only in the root, or one that
// differs, is copied into the boot sector (the root's is the one shown).
func (t *treeCheck) checkLabel() {
	p, bs := t.plan, t.v.boot
	if bs.BootSig != ExtBootSig {
		return // no label field in the boot sector
	}
	boot := ShortName(bs.VolumeLabel)
	if p.bootLabel != nil {
		boot = ShortName(*p.bootLabel)
	}
	off := int64(ext16 + relVolumeLabel)
	if bs.Is32 {
		off = ext32 + relVolumeLabel
	}
	setBoot := func(n ShortName) {
		b := [11]byte(n)
		p.bootLabel = &b
		boot = n
	}
	vol := func(kind, format string, args ...any) Problem {
		pr := t.problem(kind, "", 0, off, format, args...)
		return pr
	}
	noName := ShortName([]byte(noLabel))
	if msg, lower := badLabel(boot); msg != "" && boot != noName {
		t.fix(vol(KindLabel, "the boot sector's label %q %s", boot.Label(), msg), "set the boot sector's label to NO NAME")
		setBoot(noName)
	} else if lower {
		t.rep.warnf("the boot sector's label %q has lower-case letters, which some systems do not show", boot.Label())
	}
	lab := t.label
	if lab != nil {
		if msg, lower := badLabel(lab.name); msg != "" {
			t.fix(t.problem(KindLabel, "/", 0, lab.off, "the root directory's label %q %s", lab.name.Label(), msg),
				"delete the root directory's label entry and set the boot sector's label to NO NAME")
			t.dirPlan(0).remove(lab.slot, 1)
			setBoot(noName)
			return
		} else if lower {
			t.rep.warnf("the volume label %q has lower-case letters, which some systems do not show", lab.name.Label())
		}
	}
	rootName := lab != nil && lab.name != noName
	switch {
	case lab == nil && boot != noName:
		t.fix(vol(KindLabel, "the boot sector's label is %q but the root directory has no label entry", boot.Label()),
			"set the boot sector's label to NO NAME, as the root directory has none")
		setBoot(noName)
	case rootName && boot != lab.name:
		t.fix(vol(KindLabel, "the boot sector's label is %q but the root directory's is %q", boot.Label(), lab.name.Label()),
			"copy the root directory's label %q into the boot sector", lab.name.Label())
		setBoot(lab.name)
	}
}
