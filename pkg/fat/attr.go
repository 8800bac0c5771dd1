package fat

import (
	"errors"
	"io/fs"

	"github.com/ftools/ftools/pkg/internal/fsattr"
)

// AttrChangeable holds the attribute bits SetAttr may set or clear: the
// directory and volume-label bits say what an entry is and never change.
const AttrChangeable = Attr(fsattr.Changeable)

// String lists the set bits as letters in the order R H S V D A: "A" for an
// archived file, "D" for a directory, "RHS" for a protected system file.
// It is "" when no bit is set.
func (a Attr) String() string { return fsattr.String(fsattr.Attr(a), 0xFF) }

// ErrAttr is wrapped by SetAttr's errors for bits that cannot be changed.
var ErrAttr = errors.New("fat: only the read-only, hidden, system and archive attributes can be changed")

// SetAttr sets the attribute bits in set and clears those in clear on the
// file or directory name (set wins where both name a bit). Only the bits in
// AttrChangeable may be given. The root directory has no entry and so no
// attributes.
func (v *Volume) SetAttr(name string, set, clear Attr) error {
	if err := fsattr.Check(fsattr.Attr(set), fsattr.Attr(clear), ErrAttr); err != nil {
		return &fs.PathError{Op: "chattr", Path: "/" + cleanPath(name), Err: err}
	}
	parent, r, err := v.changes().Entry("chattr", name)
	if err != nil {
		return err
	}
	if a, changed := fsattr.Apply(fsattr.Attr(r.Entry.Attr), fsattr.Attr(set), fsattr.Attr(clear)); changed {
		r.Entry.Attr = Attr(a)
		parent.update(r)
	}
	return nil
}
