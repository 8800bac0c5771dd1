package exfat

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// Format writes a new, empty exFAT file system on dev as p describes (see
// Plan for the defaults). p.Size 0 means the whole device; p.SectorSize 0
// means the device's logical sector size. now is not written anywhere
// (exFAT's root holds no times); it only makes the serial number when
// p.Serial is 0, as mkfs.exfat makes one from the clock. Everything is
// checked before the first write.
//
// An old volume's boot sectors are cleared first, durably; then the boot
// regions, FAT region and heap alignment gap are zeroed with the device's
// cheapest means; after a barrier the head of the FAT (with the chains of
// the bitmap, the up-case table and the root directory), the bitmap, the
// up-case table and the root directory go out in one batch, and after
// another barrier the two boot regions: a few large writes.
func Format(dev *fio.Device, p FormatParams, now time.Time) (*BootSector, *Layout, error) {
	if err := fsutil.FitFormat(dev, &p.SectorSize, &p.Size, &p.Serial, p.ZeroSerial, now); err != nil {
		return nil, nil, paramErrorf("%v", err)
	}
	bs, l, err := Plan(p)
	if err != nil {
		return nil, nil, err
	}
	if !dev.Writable() {
		return nil, nil, ErrReadOnly
	}
	img, err := newVolumeImage(bs, l, p)
	if err != nil {
		return nil, nil, err
	}
	// First, and durably, the old volume's boot sectors: while one
	// survives, zeros landing in its data would leave it reading as valid
	// with its files' bytes gone.
	if err := fsutil.WipeOldBoot(dev, l.HeapOffset, looksLikeBootSector); err != nil {
		return nil, nil, fmt.Errorf("exfat: clearing the old boot sector: %w", err)
	}
	if err := dev.Zero(0, l.HeapOffset); err != nil {
		return nil, nil, fmt.Errorf("exfat: zeroing the boot and FAT regions: %w", err)
	}
	// The zeros are durable before anything new is written, and the new
	// FAT, bitmap, up-case table and root before the boot regions, which
	// go last: a cut leaves no boot region naming metadata not yet
	// written (vol.Format gave that order; exfat.Format called alone now
	// keeps it too).
	if err := dev.Barrier(); err != nil {
		return nil, nil, fmt.Errorf("exfat: zeroing the boot and FAT regions: %w", err)
	}
	for i, part := range [][]write{img[1:], img[:1]} {
		b := dev.NewBatch()
		for _, w := range part {
			if err := b.Write(w.off, w.data); err != nil {
				return nil, nil, fmt.Errorf("exfat: writing the new file system: %w", err)
			}
		}
		err := b.Flush()
		if err == nil && i == 0 {
			err = dev.Barrier()
		}
		if err != nil {
			return nil, nil, fmt.Errorf("exfat: writing the new file system: %w", err)
		}
	}
	return bs, l, nil
}

// looksLikeBootSector reports whether a sector where a backup boot sector
// may lie holds one: exFAT's, NTFS's (by their names) or FAT's (by its
// jump and signature, enough here: the whole region is zeroed next). An
// exFAT extended boot sector (no jump) is not one.
func looksLikeBootSector(b []byte) bool {
	fat := (b[0] == 0xEB || b[0] == 0xE9) && b[510] == 0x55 && b[511] == 0xAA
	return IsExFAT(b) || string(b[3:11]) == "NTFS    " || fat
}

// write is one piece of a new volume.
type write struct {
	off  int64
	data []byte
}

// newVolumeImage builds the metadata of an empty volume: the boot regions,
// the FAT's head, and the bitmap, up-case table and root directory
// clusters, each padded to whole clusters.
func newVolumeImage(bs *BootSector, l *Layout, p FormatParams) ([]write, error) {
	label, err := encodeLabelName(p.Label)
	if err != nil {
		return nil, err
	}
	cs := l.ClusterSize
	upcase := DefaultUpcaseBytes()
	bitmapLen := l.BitmapBytes()
	bitmapClusters := roundUp(bitmapLen, cs) / cs
	upcaseClusters := roundUp(int64(len(upcase)), cs) / cs
	sys := []Extent{
		{FirstCluster, uint32(bitmapClusters)},
		{FirstCluster + Cluster(bitmapClusters), uint32(upcaseClusters)},
		{bs.RootCluster, 1},
	}
	used := bitmapClusters + upcaseClusters + 1

	region := EncodeBootRegion(bs)
	boot := append(region, region...)
	if p.Dirty {
		// The main boot sector only: VolumeFlags is outside the checksum.
		d := *bs
		d.SetDirty(true)
		copy(boot, EncodeBootRegion(&d))
	}

	fat := make([]byte, roundUp((2+used)*4, l.SectorSize))
	binary.LittleEndian.PutUint32(fat[0:], fatMedia)
	binary.LittleEndian.PutUint32(fat[4:], fatEOC)
	for _, e := range sys {
		for c := e.Start; c < e.End(); c++ {
			next := uint32(c + 1)
			if c == e.End()-1 {
				next = fatEOC
			}
			binary.LittleEndian.PutUint32(fat[4*int64(c):], next)
		}
	}

	heap := make([]byte, used*cs)
	bm := heap[:bitmapLen]
	for i := int64(0); i < used; i++ {
		bm[i/8] |= 1 << (i % 8)
	}
	copy(heap[bitmapClusters*cs:], upcase)
	root := heap[(bitmapClusters+upcaseClusters)*cs:]
	pos := 0
	encodeLabel(root[pos:], label)
	pos += EntrySize
	if p.GUID != nil {
		g := GUIDEntry{GUID: *p.GUID}
		g.Encode(root[pos:])
		pos += EntrySize
	}
	be := AllocEntry{Type: TypeBitmap, FirstCluster: FirstCluster, DataLength: uint64(bitmapLen)}
	be.Encode(root[pos:])
	pos += EntrySize
	ue := AllocEntry{Type: TypeUpcase, Checksum: UpcaseChecksum(upcase), FirstCluster: sys[1].Start, DataLength: uint64(len(upcase))}
	ue.Encode(root[pos:])

	// The boot regions come first: Format writes them last.
	return []write{
		{0, boot},
		{l.FATOffset, fat},
		{l.HeapOffset, heap},
	}, nil
}
