package fat

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// AttrChangeable holds the attribute bits SetAttr may set or clear: the
// directory and volume-label bits say what an entry is and never change.
const AttrChangeable = AttrReadOnly | AttrHidden | AttrSystem | AttrArchive

// attrLetters lists the attribute bits in the order String prints them.
var attrLetters = []struct {
	bit    Attr
	letter byte
}{
	{AttrReadOnly, 'R'}, {AttrHidden, 'H'}, {AttrSystem, 'S'},
	{AttrVolumeID, 'V'}, {AttrDirectory, 'D'}, {AttrArchive, 'A'},
}

// String lists the set bits as letters in the order R H S V D A: "A" for an
// archived file, "D" for a directory, "RHS" for a protected system file.
// It is "" when no bit is set.
func (a Attr) String() string {
	var b strings.Builder
	for _, l := range attrLetters {
		if a&l.bit != 0 {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

// ErrAttr is wrapped by SetAttr's errors for bits that cannot be changed.
var ErrAttr = errors.New("fat: only the read-only, hidden, system and archive attributes can be changed")

// SetAttr sets the attribute bits in set and clears those in clear on the
// file or directory name (set wins where both name a bit). Only the bits in
// AttrChangeable may be given. The root directory has no entry and so no
// attributes.
func (v *Volume) SetAttr(name string, set, clear Attr) error {
	if (set|clear)&^AttrChangeable != 0 {
		return &fs.PathError{Op: "chattr", Path: "/" + cleanPath(name),
			Err: fmt.Errorf("%w (asked for %#02x)", ErrAttr, uint8((set|clear)&^AttrChangeable))}
	}
	if err := v.begin(); err != nil {
		return err
	}
	if err := v.settleWrite(); err != nil {
		return err
	}
	parent, r, err := v.lookup("chattr", name)
	if err != nil {
		return err
	}
	if r == nil {
		return &fs.PathError{Op: "chattr", Path: "/", Err: fs.ErrPermission}
	}
	a := (r.Entry.Attr &^ clear) | set
	if a == r.Entry.Attr {
		return nil
	}
	r.Entry.Attr = a
	parent.update(r)
	return nil
}
