package vol

import "github.com/ftools/ftools/pkg/internal/names"

// NameRule is one file system's rule for names going into a volume, the
// one pkg/fat and pkg/exfat follow: Clean drops trailing dots and spaces
// with a note (as Windows and mcopy do) and refuses, with the reason
// (*NameError), characters the file system cannot hold, over-long names
// and DOS device names; Check refuses what Clean would change, as the
// libraries do.
type NameRule = names.FS

// NameError is a name a volume cannot store, with the reason.
type NameError = names.Error

// The two rules, and the longest name in UTF-16 code units.
var (
	FATNames   = names.FAT
	ExFATNames = names.ExFAT
)

const MaxNameUnits = names.MaxUnits

// Names returns the rule for names going into v.
func Names(v Volume) NameRule {
	if AsExFAT(v) != nil {
		return ExFATNames
	}
	return FATNames
}

// IsDeviceName reports whether Windows reads name as a DOS device (CON,
// PRN, AUX, NUL, COM1-9, LPT1-9, with any extension).
func IsDeviceName(name string) bool { return names.IsDevice(name) }
