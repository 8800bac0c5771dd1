package fsutil

import (
	"io/fs"
	"strings"
)

// CheckFSName refuses a name that io/fs does not allow (fs.ValidPath), or
// that holds a backslash (FAT's other separator) or starts with "::" (the
// toolkit's mark of a volume path), allowing only a trailing slash (the
// name must be a directory). The error is an *fs.PathError wrapping
// fs.ErrInvalid, with op and name.
func CheckFSName(op, name string) error {
	n := name
	if len(n) > 1 {
		n = strings.TrimSuffix(n, "/")
	}
	if !fs.ValidPath(n) || strings.Contains(n, `\`) || strings.HasPrefix(n, "::") {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}
