package exfat

import (
	"unicode/utf16"
)

// FormatParams describes the volume Plan should lay out. Zero values ask
// for mkfs.exfat's choice (exfatprogs 1.2).
type FormatParams struct {
	Size        int64 // bytes available for the volume (required by Plan; Format: 0 -> the whole device)
	SectorSize  int   // 0 -> 512; else 512, 1024, 2048 or 4096
	ClusterSize int64 // bytes; 0 -> 4 KiB up to 256 MiB, 32 KiB up to 32 GiB, else 128 KiB
	// Align is the boundary the FAT and the cluster heap start on, in bytes
	// from the start of the disk (mkfs.exfat -b); 0 -> 1 MiB, halved until
	// the volume holds it when the volume is too small for 1 MiB.
	Align int64
	// PartitionOffset is the volume's byte offset on its disk: recorded in
	// the boot sector, and the origin of Align, as mkfs.exfat aligns to the
	// disk rather than the partition.
	PartitionOffset int64
	Serial          uint32    // volume serial number (Format makes one from its clock for 0)
	ZeroSerial      bool      // write a Serial of 0 as 0
	Label           string    // at most 11 UTF-16 code units; "" -> no label
	GUID            *[16]byte // volume GUID entry; nil -> none
	// FATOffset, FATLength and HeapOffset, when not 0, fix the regions (in
	// sectors from the volume's start) instead of computing them: the SD
	// layout (PlanSD) sizes them itself. The FAT must hold an entry for
	// every cluster.
	FATOffset  uint32
	FATLength  uint32
	HeapOffset uint32
	// Dirty formats the volume with VolumeDirty set in the main boot
	// sector (the backup keeps it clear, as the specification has the
	// backup's flags unchanged), for a writer that fills the new volume and
	// clears it when done: see fat.FormatParams.Dirty.
	Dirty bool
}

// Defaults and limits of mkfs.exfat (exfatprogs 1.2.0, mkfs/mkfs.c and
// lib/libexfat.c).
const (
	defaultAlign     = 1 << 20
	minVolume        = 1 << 20 // the specification's least VolumeLength
	maxClusterSize   = 32 << 20
	bootRegionsBytes = 24 // sectors of the main and backup boot regions
)

// defaultClusterSize is mkfs.exfat's cluster size for a volume of size bytes.
func defaultClusterSize(size int64) int64 {
	switch {
	case size <= 256<<20:
		return 4 << 10
	case size <= 32<<30:
		return 32 << 10
	}
	return 128 << 10
}

func roundUp(x, a int64) int64 { return (x + a - 1) / a * a }

func isPow2(x int64) bool { return x > 0 && x&(x-1) == 0 }

func log2(x int64) uint8 {
	var n uint8
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

// Plan computes the boot sector and layout of a new volume as mkfs.exfat
// lays it out:
//
//   - the FAT starts at the first Align boundary (counted from the disk's
//     start) at or after sector 24, past the two boot regions;
//   - the FAT is 4 bytes for every cluster the whole volume could hold,
//     rounded up to the cluster size; one FAT;
//   - the cluster heap starts at the first Align boundary after the FAT;
//   - clusters fill the rest; the allocation bitmap takes cluster 2 on, the
//     up-case table the clusters after it, the root directory one cluster
//     after that.
//
// The serial number and label are taken as given; nothing depends on the
// clock, so the same parameters give the same bytes.
func Plan(p FormatParams) (*BootSector, *Layout, error) {
	ss := int64(p.SectorSize)
	if ss == 0 {
		ss = 512
	}
	if !isPow2(ss) || ss < 512 || ss > 4096 {
		return nil, nil, paramErrorf("sector size %d is not 512, 1024, 2048 or 4096", ss)
	}
	sectors := p.Size / ss
	if sectors*ss < minVolume {
		return nil, nil, paramErrorf("%d bytes is below exFAT's smallest volume of 1 MiB", p.Size)
	}
	cs := p.ClusterSize
	if cs == 0 {
		cs = defaultClusterSize(p.Size)
	}
	if !isPow2(cs) || cs < ss || cs > maxClusterSize {
		return nil, nil, paramErrorf("cluster size %d is not a power of two between the sector size %d and 32 MiB", cs, ss)
	}
	if p.PartitionOffset < 0 || p.PartitionOffset%ss != 0 {
		return nil, nil, paramErrorf("partition offset %d is not a multiple of the %d-byte sector", p.PartitionOffset, ss)
	}
	if _, err := encodeLabelName(p.Label); err != nil {
		return nil, nil, err
	}
	var fatOff, fatLen, heap int64
	if p.FATOffset != 0 || p.FATLength != 0 || p.HeapOffset != 0 {
		fatOff, fatLen, heap = int64(p.FATOffset)*ss, int64(p.FATLength)*ss, int64(p.HeapOffset)*ss
	} else {
		var err error
		if fatOff, fatLen, heap, err = alignRegions(p, ss, cs); err != nil {
			return nil, nil, err
		}
	}
	if heap >= sectors*ss {
		return nil, nil, paramErrorf("the cluster heap would start at byte %d, past the volume's %d bytes", heap, sectors*ss)
	}
	clusters := (sectors*ss - heap) / cs
	if fit := fatLen/4 - 2; clusters > fit {
		clusters = fit
	}
	if clusters > MaxClusterCount {
		return nil, nil, paramErrorf("%d clusters of %d bytes are more than exFAT's %d; choose larger clusters", clusters, cs, int64(MaxClusterCount))
	}
	bitmapClusters := (clusters + 7) / 8
	bitmapClusters = (bitmapClusters + cs - 1) / cs
	upcaseClusters := (int64(DefaultUpcaseSize) + cs - 1) / cs
	if clusters < bitmapClusters+upcaseClusters+1 {
		return nil, nil, paramErrorf("%d clusters of %d bytes cannot hold the allocation bitmap, the up-case table and the root directory", clusters, cs)
	}
	bs := &BootSector{
		PartitionOffset:   uint64(p.PartitionOffset / ss),
		VolumeLength:      uint64(sectors),
		FATOffset:         uint32(fatOff / ss),
		FATLength:         uint32(fatLen / ss),
		ClusterHeapOffset: uint32(heap / ss),
		ClusterCount:      uint32(clusters),
		RootCluster:       FirstCluster + Cluster(bitmapClusters+upcaseClusters),
		SerialNumber:      p.Serial,
		Revision:          revision100,
		SectorShift:       log2(ss),
		ClusterShift:      log2(cs / ss),
		NumberOfFATs:      1,
		DriveSelect:       0x80,
	}
	used := bitmapClusters + upcaseClusters + 1
	bs.PercentInUse = uint8(used * 100 / clusters)
	l, err := bs.Layout()
	if err != nil {
		return nil, nil, paramErrorf("the planned boot sector is invalid: %v", err)
	}
	return bs, l, nil
}

// alignRegions places the FAT and the heap on Align boundaries as
// mkfs.exfat does, halving a default alignment that the volume is too small
// for.
func alignRegions(p FormatParams, ss, cs int64) (fatOff, fatLen, heap int64, err error) {
	align, fixed := p.Align, p.Align != 0
	if !fixed {
		align = defaultAlign
	}
	if !isPow2(align) || align < ss {
		return 0, 0, 0, paramErrorf("alignment %d is not a power of two of at least the sector size %d", align, ss)
	}
	size := p.Size / ss * ss
	po := p.PartitionOffset
	for {
		fatOff = roundUp(po+bootRegionsBytes*ss, align) - po
		// 4 bytes for every cluster the whole volume could hold: more
		// than the heap needs, so the clusters always fit (Plan clamps).
		fatLen = roundUp(size/cs*4, cs)
		heap = roundUp(po+fatOff+fatLen, align) - po
		if heap+3*cs <= size || fixed || align == ss {
			return fatOff, fatLen, heap, nil
		}
		align /= 2
	}
}

// encodeLabelName checks a volume label and converts it to UTF-16.
func encodeLabelName(label string) ([]uint16, error) {
	u := utf16.Encode([]rune(label))
	if len(u) > MaxLabelLength {
		return nil, paramErrorf("label %q is %d UTF-16 code units long; exFAT allows %d", label, len(u), MaxLabelLength)
	}
	for _, c := range u {
		if c < 0x20 {
			return nil, paramErrorf("label %q holds the control character %#02x", label, c)
		}
	}
	return u, nil
}
