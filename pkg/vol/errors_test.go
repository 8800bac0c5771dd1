package vol

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
)

// The two codecs' errors are one set: a full exFAT volume is
// fat.ErrNoSpace as well as exfat.ErrNoSpace, either codec's
// *NoSpaceError is the other's, and their texts keep each package's
// prefix.
func TestCodecErrorsAreOneSet(t *testing.T) {
	full := fmt.Errorf("copying /a: %w", &exfat.NoSpaceError{Need: 4096, Free: 0})
	for _, target := range []error{fat.ErrNoSpace, exfat.ErrNoSpace} {
		if !errors.Is(full, target) {
			t.Errorf("errors.Is(%q, %q) is false", full, target)
		}
	}
	var ns *fat.NoSpaceError
	if !errors.As(full, &ns) || ns.Need != 4096 || NoSpace(full) == nil {
		t.Errorf("an exFAT NoSpaceError is not fat's: %v", full)
	}
	for _, pair := range [][2]error{
		{fat.ErrCorrupt, exfat.ErrCorrupt},
		{fat.ErrInvalidParams, exfat.ErrInvalidParams},
		{fat.ErrDirFull, exfat.ErrDirFull},
	} {
		if !errors.Is(pair[0], pair[1]) || !errors.Is(pair[1], pair[0]) {
			t.Errorf("%q and %q are not one kind", pair[0], pair[1])
		}
	}
	if errors.Is(fat.ErrNotFAT, exfat.ErrNotExFAT) || errors.Is(fat.ErrCorrupt, fat.ErrNoSpace) {
		t.Error("errors of different kinds match")
	}
	if !IsFull(fmt.Errorf("x: %w", fat.ErrDirFull)) || !IsFull(full) || IsFull(exfat.ErrCorrupt) {
		t.Error("IsFull")
	}
	if got := fat.ErrNoSpace.Error() + "|" + exfat.ErrDirFull.Error(); got != "fat: no space left on volume|exfat: directory is full" {
		t.Errorf("texts: %s", got)
	}
}

// Bytes that hold neither file system say so first, then why the boot
// sector is not FAT's.
func TestOpenNotAVolume(t *testing.T) {
	b := make([]byte, 1<<20)
	copy(b, "root:x:0:0:root:/root:/bin/bash\n")
	_, err := OpenBytes(b)
	if !errors.Is(err, fat.ErrNotFAT) || !strings.HasPrefix(err.Error(), "not a FAT or exFAT volume: ") {
		t.Fatalf("OpenBytes of text: %v", err)
	}
}
