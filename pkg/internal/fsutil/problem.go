package fsutil

import "fmt"

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

// CutShort is the problem of a volume whose boot sector describes more
// bytes than hold it (an image cut short, a partition too small): its
// files that lie wholly inside can be read, the others cannot.
func CutShort(volume int64, device string, holds int64) string {
	return fmt.Sprintf("the boot sector says the volume has %d bytes but %s holds only %d: files with data past that cannot be read", volume, device, holds)
}
