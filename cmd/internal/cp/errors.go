package cp

import (
	"errors"
	"strconv"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
)

// errText is an error as the user reads it (cmdutil.ErrText), with the
// copy's own link error.
func errText(err error) string {
	if errors.Is(err, errLink) {
		return errLink.Error()
	}
	return cmdutil.ErrText(err)
}

// quoteName shows a name inside a message, escaped as Go quotes it.
func quoteName(n string) string { return strconv.Quote(n) }

// line is a message for standard error: one line, control characters
// escaped.
func line(s string) string { return cmdutil.Sanitize(s) }
