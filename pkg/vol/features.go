package vol

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
)

// Errors both file systems return for the same cause. ErrNotDir and
// ErrNotEmpty are the errno values both packages use (errors.Is finds
// them in any *fs.PathError either returns).
var (
	ErrNotDir   error = syscall.ENOTDIR
	ErrNotEmpty error = syscall.ENOTEMPTY
	// ErrFileTooLarge: a FAT file holds at most 4 GiB - 1 bytes (see
	// FileSizeError).
	ErrFileTooLarge = fat.ErrFileTooLarge
)

// FileSizeError returns ErrFileTooLarge when the file system of v cannot
// hold a file of n bytes (FAT: over 4 GiB - 1), else nil. exFAT's limit
// lies past any volume: there the free space limits a file first, and
// allocation says so with ErrNoSpace.
func FileSizeError(v Volume, n int64) error {
	if AsFAT(v) != nil && n > fat.MaxFileSize {
		return ErrFileTooLarge
	}
	return nil
}

// IsExFATVolume reports whether v is an exFAT volume.
func IsExFATVolume(v Volume) bool { return AsExFAT(v) != nil }

// MayBeShortName reports whether name could be the short (8.3) name of
// an entry on v, which a lookup of name finds as it finds long names:
// never on exFAT, which has none; on FAT, only a name of at most 12
// characters.
func MayBeShortName(v Volume, name string) bool {
	return !IsExFATVolume(v) && fat.MayBeShortName(name)
}

// FoldName is FAT's case fold, the one both file systems' names clash
// under for a host that folds case (see Volume.FoldName for a volume's
// own).
func FoldName(name string) string { return fat.FoldName(name) }

// The OEM code page of FAT's short names and labels (exFAT names are
// UTF-16 and have none). The code page is one setting for the process.
const DefaultCodePage = fat.DefaultCodePage

// CodePages lists the code pages SetCodePage takes, in increasing order.
func CodePages() []int { return fat.CodePages() }

// SetCodePage makes n the code page of the FAT volumes opened from now on.
func SetCodePage(n int) error { return fat.SetCodePage(n) }

// AllocPolicy is how a FAT volume places the clusters of new files (see
// pkg/fat's AllocPolicy); exFAT gives every file one contiguous run where
// the volume has one, as AllocContiguous does.
type AllocPolicy = fat.AllocPolicy

const (
	AllocContiguous = fat.AllocContiguous
	AllocFirstFit   = fat.AllocFirstFit
)

// FSInfo is FAT32's FSINFO sector: the free count and the next free
// cluster hint, each FSInfoUnknown when not kept.
type FSInfo = fat.FSInfo

// FSInfoUnknown is FSINFO's "not known".
const FSInfoUnknown = fat.FSInfoUnknown

// FATFeatures is the optional interface of what FAT volumes have and
// exFAT volumes have not: FSINFO, allocation policies other than
// contiguous, and the label copy in the boot sector. The FAT adapter
// implements it; test for it with a type assertion:
//
//	if f, ok := v.(vol.FATFeatures); ok { f.SetAllocPolicy(vol.AllocFirstFit) }
type FATFeatures interface {
	Volume
	// SetAllocPolicy sets how new files' clusters are placed.
	SetAllocPolicy(p AllocPolicy)
	// FSInfo is the FSINFO sector as it stands (nil: FAT12/16 have none).
	FSInfo() *FSInfo
	// SetNextCluster and SetFreeCount set FSINFO's fields; Recount
	// counts the free clusters and writes the count and a valid hint.
	SetNextCluster(n uint32) error
	SetFreeCount(n uint32) error
	Recount() error
	// BootLabel is the label the boot sector holds (the root
	// directory's entry holds the other copy: see Label).
	BootLabel() string
	// BadClusters counts the clusters the FAT marks bad.
	BadClusters() uint32
}

var _ FATFeatures = FAT{}

// BootLabel is the label the boot sector holds.
func (v FAT) BootLabel() string { return v.BootSector().Label() }

// ProbeBootSector names the file system whose boot sector b (the first
// 512 bytes or more of a volume) holds: "FAT12", "FAT16", "FAT32" or
// "exFAT", with the label a FAT boot sector holds (trailing spaces
// dropped; exFAT keeps its label in the root directory only), or an
// error when b holds neither or does not decode.
func ProbeBootSector(b []byte) (typ, label string, err error) {
	if len(b) < 512 {
		return "", "", fmt.Errorf("boot sector: %d bytes, want 512: %w", len(b), fat.ErrNotFAT)
	}
	if exfat.IsExFAT(b) {
		if _, err := exfat.DecodeBootSector(b); err != nil {
			return "", "", err
		}
		return "exFAT", "", nil
	}
	bs, err := fat.DecodeBootSector(b)
	if err != nil {
		return "", "", err
	}
	l, err := bs.Layout()
	if err != nil {
		return "", "", err
	}
	return l.Type.String(), strings.TrimSpace(bs.Label()), nil
}
