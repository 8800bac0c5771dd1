package fsutil

import (
	"io/fs"
	"os"
	"strings"
)

// Move is a rename's two ends, resolved the same way on both codecs: the
// entry moved (Rec, in From) and where it goes (Base in To), with the
// user's paths for errors.
type Move[D, R comparable] struct {
	From D
	Rec  R
	To   D
	Base string

	OldPath, NewPath string
}

// StartMove starts a rename of oldName to newName: the change starts
// and finds the entry (the root is refused: see ChangeEntry), then
// newName's directory (which must exist) and last element are resolved.
// What rename(2) refuses of the names alone is refused here for both
// codecs: "." or ".." as the new last element (fs.ErrInvalid), and a new
// name ending in "/" for an entry that is not a directory (notDir);
// isDir says what the entry is.
func StartMove[D, R comparable](oldName, newName string, c Changes[D, R], isDir func(R) bool, notDir error) (*Move[D, R], error) {
	m := &Move[D, R]{OldPath: "/" + CleanPath(oldName), NewPath: "/" + CleanPath(newName)}
	var err error
	if m.From, m.Rec, err = c.Entry("rename", oldName); err != nil {
		return nil, err
	}
	if last := lastElem(newName); last == "." || last == ".." {
		return nil, m.Err(fs.ErrInvalid)
	}
	if m.To, m.Base, err = c.Parent("rename", newName); err != nil {
		return nil, err
	}
	if NamesDir(newName) && !isDir(m.Rec) {
		return nil, m.Err(notDir)
	}
	return m, nil
}

// lastElem is name's last element as the user wrote it, before cleaning
// folds "d/.." into its parent.
func lastElem(name string) string {
	name = strings.TrimRight(strings.ReplaceAll(name, "\\", "/"), "/")
	return name[strings.LastIndexByte(name, '/')+1:]
}

// Err is err about this rename, naming both paths.
func (m *Move[D, R]) Err(err error) error {
	return &os.LinkError{Op: "rename", Old: m.OldPath, New: m.NewPath, Err: err}
}

// Target is the entry the move would replace, found by lookup in To: none
// when that is the moved entry itself under another case of its name
// (the entry is rewritten, not replaced); same reports a rename to the
// very name it has (name gives a record's name), which changes nothing.
func (m *Move[D, R]) Target(lookup func(D, string) R, name func(R) string) (target R, same bool) {
	var none R
	target = lookup(m.To, m.Base)
	if target == m.Rec {
		return none, m.Base == name(m.Rec)
	}
	return target, false
}

// CheckReplace says whether the moved entry (a directory when dir) may
// replace target (a directory when targetDir), as rename(2) decides: a
// directory only an empty directory (empty reads it), a file only a file.
// The errors are the codec's.
func CheckReplace(dir, targetDir bool, empty func() (bool, error), notDir, isDir, notEmpty error) error {
	switch {
	case dir && !targetDir:
		return notDir
	case !dir && targetDir:
		return isDir
	case targetDir:
		ok, err := empty()
		if err != nil {
			return err
		}
		if !ok {
			return notEmpty
		}
	}
	return nil
}
