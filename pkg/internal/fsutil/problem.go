package fsutil

import (
	"fmt"
	"strings"
)

// ProblemLine formats a checker's problem as one line, as pkg/fat's and
// pkg/exfat's Problem.String do: kind, path, message, and the cluster and
// byte offset where they are known (0 and -1 when not).
func ProblemLine(kind, path, message string, cluster uint32, offset int64, fixed bool) string {
	s := kind + ": "
	if path != "" {
		s += path + ": "
	}
	s += message
	switch {
	case cluster != 0 && offset >= 0:
		s += fmt.Sprintf(" (cluster %d, byte %d)", cluster, offset)
	case cluster != 0:
		s += fmt.Sprintf(" (cluster %d)", cluster)
	case offset >= 0:
		s += fmt.Sprintf(" (byte %d)", offset)
	}
	if fixed {
		s += " [fixed]"
	}
	return s
}

// FormatErrorText writes a format error as pkg/fat's and pkg/exfat's
// FormatError do: "PKG: STRUCTURE: FIELD VALUE at 0xOFF: MSG", each part
// left out when empty (value nil, offset -1).
func FormatErrorText(pkg, structure, field string, value any, offset int64, msg string) string {
	var b strings.Builder
	b.WriteString(pkg + ": " + structure)
	if field != "" {
		b.WriteString(": " + field)
	}
	if value != nil {
		fmt.Fprintf(&b, " %v", value)
	}
	if offset >= 0 {
		fmt.Fprintf(&b, " at 0x%02x", offset)
	}
	if msg != "" {
		b.WriteString(": " + msg)
	}
	return b.String()
}
