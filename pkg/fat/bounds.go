package fat

import (
	"fmt"

	fio "github.com/ftools/ftools/pkg/io"
)

// limitToVolume keeps every access to dev inside the smaller of the volume
// its boot sector describes and the window dev was opened on (a partition,
// or the rest of the disk). A volume larger than its window is refused for
// writing, since its last clusters lie over whatever follows, and reported
// for reading; a window larger than the volume is shrunk to it and
// reported when they differ by more than mkfs.fat's own rounding (it
// drops the sectors past the last whole track of up to 63 sectors).
func limitToVolume(dev *fio.Device, l *Layout) (warning string, err error) {
	switch {
	case l.TotalSize > dev.Size():
		msg := fmt.Sprintf("the boot sector says the volume has %d bytes but %s holds only %d from byte %d", l.TotalSize, dev.Path(), dev.Size(), dev.Start())
		if dev.Writable() {
			return "", fmt.Errorf("%w: %s: refusing to write, which could reach past its end; read it, or make the file system again to fit", ErrCorrupt, msg)
		}
		return msg, nil
	case l.TotalSize < dev.Size():
		gap := dev.Size() - l.TotalSize
		if err := dev.Limit(l.TotalSize); err != nil {
			return "", err
		}
		if gap > max(64*l.SectorSize, l.ClusterSize) {
			return fmt.Sprintf("the volume ends at byte %d, %d bytes before the end of its partition or device; nothing past it is written", dev.Start()+l.TotalSize, gap), nil
		}
	}
	return "", nil
}
