package fsutil

import (
	"fmt"

	fio "github.com/ftools/ftools/pkg/io"
)

// FitDevice resolves a format's sector size and size against dev, in
// place: 0 takes the device's logical sector size and its whole size. A
// sector size below the device's, or a size beyond it, is refused with a
// sentence saying so; the codec wraps it as its other format-parameter
// errors.
func FitDevice(dev *fio.Device, sectorSize *int, size *int64) error {
	devSS := dev.SectorSize()
	if *sectorSize == 0 {
		*sectorSize = devSS
	} else if *sectorSize < devSS {
		return fmt.Errorf("sector size %d is smaller than the device's logical sector size %d", *sectorSize, devSS)
	}
	if *size == 0 {
		*size = dev.Size()
	} else if *size > dev.Size() {
		return fmt.Errorf("%d bytes asked but %s holds only %d", *size, dev.Path(), dev.Size())
	}
	return nil
}
