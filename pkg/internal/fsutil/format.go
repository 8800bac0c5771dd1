package fsutil

import (
	"fmt"
	"slices"
	"time"

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

// WipeOldBoot zeroes what a volume made before keeps as its boot sector,
// inside [0, end): sector 0 unless it is zero already, and a boot sector
// (isBoot says which sectors are: the codec knows FAT's, exFAT's and
// NTFS's by their names) found where backups live (sectors 6 and 12, for
// every sector size the device allows). Then it makes the zeros durable (a
// barrier), so that no later write lands while a reader still finds the
// old volume. On a new image it writes nothing; after WipeSignatures, which
// zeroed the same sectors, it only flushes. Both codecs' Format call it
// before zeroing their metadata.
func WipeOldBoot(dev *fio.Device, end int64, isBoot func(sector []byte) bool) error {
	ss := max(int64(dev.SectorSize()), 512)
	head := make([]byte, min(end, 13*4096))
	if _, err := dev.ReadAt(head, 0); err != nil {
		return err
	}
	b := dev.NewBatch()
	var err error
	wipe := func(off int64) {
		if err == nil && off+ss <= end {
			err = b.Write(off, make([]byte, ss))
		}
	}
	if slices.ContainsFunc(head[:min(ss, int64(len(head)))], func(c byte) bool { return c != 0 }) {
		wipe(0)
	}
	for s := ss; s <= 4096; s *= 2 {
		for _, sec := range []int64{6, 12} {
			if off := sec * s; off+512 <= int64(len(head)) && isBoot(head[off:off+512]) {
				wipe(off)
			}
		}
	}
	if err == nil {
		err = b.Flush()
	}
	if err != nil {
		return err
	}
	return dev.Barrier()
}

// FitFormat is what both Formats do first: FitDevice, then a serial
// number made from now (NewSerial) when *serial is 0 and keepZero does
// not say 0 was meant.
func FitFormat(dev *fio.Device, sectorSize *int, size *int64, serial *uint32, keepZero bool, now time.Time) error {
	if err := FitDevice(dev, sectorSize, size); err != nil {
		return err
	}
	if *serial == 0 && !keepZero {
		*serial = NewSerial(now)
	}
	return nil
}

// NewSerial is the serial number (volume id) both Formats give a volume
// whose parameters leave it 0: made from the clock, as mkfs.fat and
// mkfs.exfat make theirs, so that two volumes made apart differ.
func NewSerial(now time.Time) uint32 {
	return uint32(now.Nanosecond())<<12 | uint32(now.Unix())
}
