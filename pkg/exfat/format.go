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
// The boot regions, FAT region and heap alignment gap are zeroed with the
// device's cheapest means; then the two boot regions, the head of the FAT
// (with the chains of the bitmap, the up-case table and the root
// directory), the bitmap, the up-case table and the root directory go out
// in one batch: a few large writes.
func Format(dev *fio.Device, p FormatParams, now time.Time) (*BootSector, *Layout, error) {
	if err := fsutil.FitDevice(dev, &p.SectorSize, &p.Size); err != nil {
		return nil, nil, paramErrorf("%v", err)
	}
	if p.Serial == 0 {
		p.Serial = uint32(now.Nanosecond())<<12 | uint32(now.Unix())
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
	if err := dev.Zero(0, l.HeapOffset); err != nil {
		return nil, nil, fmt.Errorf("exfat: zeroing the boot and FAT regions: %w", err)
	}
	b := dev.NewBatch()
	for _, w := range img {
		if err := b.Write(w.off, w.data); err != nil {
			return nil, nil, fmt.Errorf("exfat: writing the new file system: %w", err)
		}
	}
	if err := b.Flush(); err != nil {
		return nil, nil, fmt.Errorf("exfat: writing the new file system: %w", err)
	}
	return bs, l, nil
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

	return []write{
		{0, boot},
		{l.FATOffset, fat},
		{l.HeapOffset, heap},
	}, nil
}
