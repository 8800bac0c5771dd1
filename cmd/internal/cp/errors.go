package cp

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

// errText is an error as the user reads it: without the package's own
// paths (messages name the user's paths) and without package prefixes.
func errText(err error) string {
	var ns *fat.NoSpaceError
	if errors.As(err, &ns) {
		return ns.Error()
	}
	for {
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Err == nil {
			break
		}
		err = pe.Err
	}
	switch {
	case errors.Is(err, errLink):
		return errLink.Error()
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "file exists"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	msg := err.Error()
	for _, prefix := range []string{"fat: ", "io: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// quoteName shows a name inside a message, escaped as Go quotes it.
func quoteName(n string) string { return strconv.Quote(n) }

// line is a message for standard error: one line, control characters
// escaped.
func line(s string) string { return cmdutil.Sanitize(s) }
