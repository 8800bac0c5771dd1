package exfat

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrAttr is wrapped by SetAttr's errors for bits that cannot be changed.
var ErrAttr = errors.New("exfat: only the read-only, hidden, system and archive attributes can be changed")

// SetAttr sets the attribute bits in set and clears those in clear on the
// file or directory name (set wins where both name a bit). Only the bits
// in AttrChangeable may be given. The root directory has no entry and so
// no attributes.
func (v *Volume) SetAttr(name string, set, clear Attr) error {
	if (set|clear)&^AttrChangeable != 0 {
		return pathErr("chattr", name, fmt.Errorf("%w (asked for %#02x)", ErrAttr, uint16((set|clear)&^AttrChangeable)))
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
	a := (r.Set.File.Attr &^ clear) | set
	if a == r.Set.File.Attr {
		return nil
	}
	r.Set.File.Attr = a
	return parent.update(r)
}
