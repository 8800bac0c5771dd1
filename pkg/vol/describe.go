package vol

import (
	"fmt"
	"strings"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// Description is what a volume's boot sector, FATs and allocation say of
// it, for either file system: what both have in the common fields, what
// only one has in FAT or ExFAT (the other is nil).
type Description struct {
	Type           string // "FAT12", "FAT16", "FAT32" or "exFAT"
	Device         string // the device's path
	VolumeStart    int64  // byte offset of the volume in the device
	BytesPerSector int
	ClusterSize    int64
	TotalSectors   int64
	NumFATs        int
	FATSectors     int64  // sectors per FAT
	RootCluster    uint32 // 0: FAT12/16's root is no cluster chain
	Serial         uint32 // the volume id (serial number)
	Label          string // FAT: the boot sector's; exFAT: the root's label entry
	Dirty          bool   // the boot sector's dirty bit as it stands
	Regions        []Region
	Clusters       uint32
	FreeClusters   uint32
	BadClusters    uint32 // FAT only: exFAT marks none
	Alignment      Alignment
	Warnings       []string // oddities found while opening the volume

	FAT   *FATDescription   // nil on exFAT
	ExFAT *ExFATDescription // nil on FAT
}

// FATDescription is what only a FAT boot sector holds.
type FATDescription struct {
	OEMName           string
	SectorsPerCluster int
	ReservedSectors   int
	RootEntries       int // FAT12/16's fixed root; 0 on FAT32
	Media             byte
	SectorsPerTrack   int
	Heads             int
	HiddenSectors     uint32
	DriveNumber       byte
	FSInfoSector      int     // FAT32 only; 0 otherwise
	BackupBootSector  int     // FAT32 only; 0 otherwise
	FSInfo            *FSInfo // FAT32's FSINFO as it stands; nil on FAT12/16
}

// ExFATDescription is what only an exFAT boot region holds.
type ExFATDescription struct {
	Revision        uint16 // major in the high byte
	PartitionOffset uint64 // sectors, as the boot sector records it
	BitmapCluster   uint32
	BitmapBytes     uint64
	UpcaseCluster   uint32
	UpcaseBytes     uint64
	UpcaseChecksum  uint32
	VolumeGUID      string // "" when the volume has none
	MediaFailure    bool
	PercentInUse    *uint8 // nil when the volume does not keep it (0xFF)
}

// Region is one part of the volume, as fsck.fat -v prints them.
type Region struct {
	Name   string
	Offset int64 // bytes from the volume's start
	Sector int64 // the same in sectors
	Size   int64
}

// Alignment says whether the volume lines up with the erase blocks (BU)
// the SD specification gives a card of the disk's size, counted from the
// disk's start (on a partition device, as sysfs places it).
type Alignment struct {
	DiskSize         int64
	BU               int64
	PartitionStart   int64 // the volume's first byte
	DataStart        int64 // the data area's (exFAT: the cluster heap's)
	PartitionAligned bool
	DataAligned      bool
}

// Describe describes v. Call it before Close: the FAT is read then.
func Describe(v Volume) (d *Description, err error) {
	err = within(v, "describe", func(v Volume) error {
		switch v := v.(type) {
		case FAT:
			d = describeFAT(v.Volume)
			return nil
		case ExFAT:
			d, err = describeExFAT(v.Volume)
			return err
		}
		return fmt.Errorf("vol: Describe: %T is neither FAT nor exFAT", v)
	})
	return d, err
}

// BootDirty reports whether v's boot sector has the dirty bit set now:
// after Close, as Close left it (cleared when this session set it).
func BootDirty(v Volume) bool {
	switch v := unguarded(v).(type) {
	case FAT:
		return v.BootSector().Dirty()
	case ExFAT:
		return v.BootSector().Dirty()
	}
	return false
}

// alignment places the volume, and its data starting data bytes in, on
// the card's erase blocks of bu(disk size) bytes.
func alignment(dev *fio.Device, data int64, bu func(disk int64) int64) Alignment {
	start, disk := dev.Start(), dev.DiskSize()
	if place, err := fio.BlockDiskPlace(dev.Path()); err == nil && place.Partition {
		start, disk = start+place.Start, place.DiskSize
	}
	b := bu(disk)
	data += start
	return Alignment{DiskSize: disk, BU: b, PartitionStart: start, DataStart: data,
		PartitionAligned: start%b == 0, DataAligned: data%b == 0}
}

func (d *Description) add(name string, off, size, sector int64) {
	d.Regions = append(d.Regions, Region{Name: name, Offset: off, Sector: off / sector, Size: size})
}

// sized is a description with the sizes both layouts give alike.
func sized(dev *fio.Device, sector, cluster, total, fatSize int64, fats int, clusters uint32) *Description {
	return &Description{Device: dev.Path(), VolumeStart: dev.Start(), ClusterSize: cluster, TotalSectors: total / sector,
		NumFATs: fats, FATSectors: fatSize / sector, Clusters: clusters}
}

func describeFAT(v *fat.Volume) *Description {
	bs, l, dev := v.BootSector(), v.Layout(), v.Device()
	d := sized(dev, l.SectorSize, l.ClusterSize, l.TotalSize, l.FATSize, l.NumFATs, l.Clusters)
	d.Type, d.BytesPerSector = l.Type.String(), int(bs.BytesPerSector)
	d.Serial, d.Label, d.Dirty = bs.VolumeID, bs.Label(), bs.Dirty()
	d.FreeClusters, d.Warnings = v.FreeClusters(), append([]string{}, v.Warnings()...)
	d.FAT = &FATDescription{
		OEMName:           strings.TrimRight(string(bs.OEMName[:]), " \x00"),
		SectorsPerCluster: int(bs.SectorsPerCluster),
		ReservedSectors:   int(bs.ReservedSectors),
		RootEntries:       int(bs.RootEntries),
		Media:             bs.Media,
		SectorsPerTrack:   int(bs.SectorsPerTrack),
		Heads:             int(bs.Heads),
		HiddenSectors:     bs.HiddenSectors,
		DriveNumber:       bs.DriveNumber,
	}
	if l.Type == fat.FAT32 {
		d.RootCluster = uint32(l.RootCluster)
		d.FAT.FSInfoSector = int(bs.FSInfoSector)
		d.FAT.BackupBootSector = int(bs.BackupBootSector)
	}
	d.BadClusters = v.BadClusters()
	if fi := v.FSInfo(); fi != nil {
		c := *fi
		d.FAT.FSInfo = &c
	}
	d.Alignment = alignment(dev, l.DataOffset, fat.SDBoundaryUnit)
	d.add("boot sector", 0, l.SectorSize, l.SectorSize)
	if l.Type == fat.FAT32 {
		d.add("FSINFO", l.FSInfoOffset, l.SectorSize, l.SectorSize)
		if l.BackupBootOffset != 0 {
			d.add("backup boot sector", l.BackupBootOffset, l.SectorSize, l.SectorSize)
		}
	}
	for i := 0; i < l.NumFATs; i++ {
		d.add(fmt.Sprintf("FAT %d", i+1), l.FATCopyOffset(i), l.FATSize, l.SectorSize)
	}
	if l.Type != fat.FAT32 {
		d.add("root directory", l.RootDirOffset, l.RootDirSize, l.SectorSize)
	}
	d.add("data area", l.DataOffset, l.TotalSize-l.DataOffset, l.SectorSize)
	return d
}

// exfatBU is the SD erase block of an SDXC card, and for smaller cards
// the FAT table's.
func exfatBU(disk int64) int64 {
	if bu := exfat.SDBoundaryUnit(disk); bu != 0 {
		return bu
	}
	return fat.SDBoundaryUnit(disk)
}

func describeExFAT(v *exfat.Volume) (*Description, error) {
	bs, l, dev := v.BootSector(), v.Layout(), v.Device()
	bm, up := v.SystemEntries()
	label, err := v.Label()
	if err != nil {
		return nil, err
	}
	d := sized(dev, l.SectorSize, l.ClusterSize, l.TotalSize, l.FATSize, l.NumFATs, l.Clusters)
	d.Type, d.BytesPerSector, d.RootCluster = "exFAT", int(l.SectorSize), uint32(l.RootCluster)
	d.Serial, d.Label, d.Dirty = bs.SerialNumber, label, bs.Dirty()
	d.FreeClusters, d.Warnings = v.FreeClusters(), append([]string{}, v.Warnings()...)
	d.ExFAT = &ExFATDescription{
		Revision:        bs.Revision,
		PartitionOffset: bs.PartitionOffset,
		BitmapCluster:   uint32(bm.FirstCluster),
		BitmapBytes:     bm.DataLength,
		UpcaseCluster:   uint32(up.FirstCluster),
		UpcaseBytes:     up.DataLength,
		UpcaseChecksum:  up.Checksum,
		MediaFailure:    bs.VolumeFlags&exfat.FlagMediaFailure != 0,
	}
	if g, ok := v.VolumeGUID(); ok {
		d.ExFAT.VolumeGUID = exfat.FormatGUID(g)
	}
	if bs.PercentInUse != exfat.PercentUnknown {
		p := bs.PercentInUse
		d.ExFAT.PercentInUse = &p
	}
	d.Alignment = alignment(dev, l.HeapOffset, exfatBU)
	ss := l.SectorSize
	d.add("boot region", 0, 12*ss, ss)
	d.add("backup boot region", l.BackupBootOffset, 12*ss, ss)
	for i := 0; i < l.NumFATs; i++ {
		d.add(fmt.Sprintf("FAT %d", i+1), l.FATCopyOffset(i), l.FATSize, ss)
	}
	d.add("cluster heap", l.HeapOffset, l.HeapEnd()-l.HeapOffset, ss)
	if l.ValidCluster(bm.FirstCluster) {
		d.add("allocation bitmap", l.ClusterOffset(bm.FirstCluster), int64(bm.DataLength), ss)
	}
	if l.ValidCluster(up.FirstCluster) {
		d.add("up-case table", l.ClusterOffset(up.FirstCluster), int64(up.DataLength), ss)
	}
	if l.ValidCluster(l.RootCluster) {
		d.add("root directory", l.ClusterOffset(l.RootCluster), l.ClusterSize, ss)
	}
	return d, nil
}
