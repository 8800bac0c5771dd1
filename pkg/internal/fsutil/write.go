package fsutil

import (
	"io/fs"
	"path"
)

// NewEntry starts a change that makes (or replaces) the entry name, the
// same way for both codecs: begin starts the change (the codec refuses a
// read-only or closed volume and marks it dirty), settle makes room in its
// directory cache, then parentOf resolves the directory that holds name
// (which need not exist) and name's last element. op names the operation
// for errors.
func NewEntry[D any](op, name string, begin, settle func() error, parentOf func(op, name string) (D, string, error)) (D, string, error) {
	var noD D
	if err := begin(); err != nil {
		return noD, "", err
	}
	if err := settle(); err != nil {
		return noD, "", err
	}
	return parentOf(op, name)
}

// MkdirAll makes the directory name and any missing parents, parents
// first, with mkdir; name is a cleaned path (CleanPath). lookup resolves a
// path (the root has the zero record) and isDir says whether a record is a
// directory: an existing directory is no error, an existing file is
// (notDir, naming it).
func MkdirAll[D any, R comparable](name string, lookup func(op, name string) (D, R, error), isDir func(R) bool, notDir error, mkdir func(name string) error) error {
	if name == "." {
		return nil
	}
	var noR R
	if _, r, err := lookup("mkdir", name); err == nil {
		if r != noR && !isDir(r) {
			return &fs.PathError{Op: "mkdir", Path: "/" + name, Err: notDir}
		}
		return nil
	}
	if parent := path.Dir(name); parent != "." {
		if err := MkdirAll(parent, lookup, isDir, notDir, mkdir); err != nil {
			return err
		}
	}
	return mkdir(name)
}
