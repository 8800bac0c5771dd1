package exfat

import (
	"errors"

	"github.com/ftools/ftools/pkg/internal/fsattr"
)

// ErrAttr is wrapped by SetAttr's errors for bits that cannot be changed.
var ErrAttr = errors.New("exfat: only the read-only, hidden, system and archive attributes can be changed")

// SetAttr sets the attribute bits in set and clears those in clear on the
// file or directory name (set wins where both name a bit). Only the bits
// in AttrChangeable may be given. The root directory has no entry and so
// no attributes.
func (v *Volume) SetAttr(name string, set, clear Attr) error {
	if err := fsattr.Check(set, clear, ErrAttr); err != nil {
		return pathErr("chattr", name, err)
	}
	parent, r, err := v.changes().Entry("chattr", name)
	if err != nil {
		return err
	}
	a, changed := fsattr.Apply(r.Set.File.Attr, set, clear)
	if !changed {
		return nil
	}
	r.Set.File.Attr = a
	return parent.update(r)
}
