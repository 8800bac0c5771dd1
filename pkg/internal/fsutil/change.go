package fsutil

import "io/fs"

// ChangeEntry resolves the entry a change (remove, set attributes, ...)
// applies to, the same way for both codecs: begin starts the change (the
// codec refuses a read-only or closed volume and marks it dirty) and
// settle makes room in its directory cache before lookup resolves name;
// the root, which has no entry to change, is refused (fs.ErrPermission).
// op names the operation for errors.
func ChangeEntry[D, R comparable](op, name string, begin, settle func() error, lookup func(op, name string) (D, R, error)) (D, R, error) {
	var noD D
	var noR R
	if err := begin(); err != nil {
		return noD, noR, err
	}
	if err := settle(); err != nil {
		return noD, noR, err
	}
	d, r, err := lookup(op, name)
	if err != nil {
		return noD, noR, err
	}
	if r == noR {
		return noD, noR, &fs.PathError{Op: op, Path: "/", Err: fs.ErrPermission}
	}
	return d, r, nil
}
