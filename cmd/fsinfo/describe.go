package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// region is one part of the volume, as fsck.fat -v prints them.
type region struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	Sector int64  `json:"sector"`
	Size   int64  `json:"size"`
}

// volumeInfo is everything fsinfo shows; its JSON form is --json's output.
type volumeInfo struct {
	Device            string    `json:"device"`
	VolumeStart       int64     `json:"volume_start"`
	FATType           string    `json:"fat_type"`
	OEMName           string    `json:"oem_name"`
	BytesPerSector    int       `json:"bytes_per_sector"`
	SectorsPerCluster int       `json:"sectors_per_cluster"`
	ClusterSize       int64     `json:"cluster_size"`
	ReservedSectors   int       `json:"reserved_sectors"`
	NumFATs           int       `json:"fats"`
	RootEntries       int       `json:"root_entries"`
	TotalSectors      int64     `json:"total_sectors"`
	Media             string    `json:"media"`
	FATSectors        int64     `json:"fat_sectors"`
	SectorsPerTrack   int       `json:"sectors_per_track"`
	Heads             int       `json:"heads"`
	HiddenSectors     uint32    `json:"hidden_sectors"`
	RootCluster       uint32    `json:"root_cluster,omitempty"`
	FSInfoSector      int       `json:"fsinfo_sector,omitempty"`
	BackupBootSector  int       `json:"backup_boot_sector,omitempty"`
	DriveNumber       string    `json:"drive_number"`
	VolumeID          string    `json:"volume_id"`
	Label             string    `json:"label"`
	Dirty             bool      `json:"dirty"`
	Regions           []region  `json:"regions"`
	Clusters          uint32    `json:"clusters"`
	FreeClusters      uint32    `json:"free_clusters"`
	UsedClusters      uint32    `json:"used_clusters"`
	BadClusters       uint32    `json:"bad_clusters"`
	FreeBytes         int64     `json:"free_bytes"`
	FreeCount         *uint32   `json:"free_count"`
	NextCluster       *uint32   `json:"next_cluster"`
	Alignment         alignment `json:"alignment"`
	Warnings          []string  `json:"warnings"`
	Changes           []change  `json:"changes"` // what --next-cluster, --free-count and --recount set
	cmdutil.Outcome
}

// alignment says whether the volume lines up with the erase blocks the SD
// specification gives a card of the disk's size.
type alignment struct {
	DiskSize         int64 `json:"disk_size"`
	BU               int64 `json:"sd_bu"`
	PartitionStart   int64 `json:"partition_start"`
	DataStart        int64 `json:"data_start"`
	PartitionAligned bool  `json:"partition_bu_aligned"`
	DataAligned      bool  `json:"data_bu_aligned"`
}

func describe(v *fat.Volume) *volumeInfo {
	bs, l, dev := v.BootSector(), v.Layout(), v.Device()
	in := &volumeInfo{
		Device:            dev.Path(),
		VolumeStart:       dev.Start(),
		FATType:           l.Type.String(),
		OEMName:           strings.TrimRight(string(bs.OEMName[:]), " \x00"),
		BytesPerSector:    int(bs.BytesPerSector),
		SectorsPerCluster: int(bs.SectorsPerCluster),
		ClusterSize:       l.ClusterSize,
		ReservedSectors:   int(bs.ReservedSectors),
		NumFATs:           l.NumFATs,
		RootEntries:       int(bs.RootEntries),
		TotalSectors:      l.TotalSize / l.SectorSize,
		Media:             fmt.Sprintf("0x%02x", bs.Media),
		FATSectors:        l.FATSize / l.SectorSize,
		SectorsPerTrack:   int(bs.SectorsPerTrack),
		Heads:             int(bs.Heads),
		HiddenSectors:     bs.HiddenSectors,
		DriveNumber:       fmt.Sprintf("0x%02x", bs.DriveNumber),
		VolumeID:          fmt.Sprintf("%04X-%04X", bs.VolumeID>>16, bs.VolumeID&0xFFFF),
		Label:             bs.Label(),
		Dirty:             bs.Dirty(),
		Clusters:          l.Clusters,
		FreeClusters:      v.FreeClusters(),
		Warnings:          append([]string{}, v.Warnings()...),
	}
	if l.Type == fat.FAT32 {
		in.RootCluster = uint32(l.RootCluster)
		in.FSInfoSector = int(bs.FSInfoSector)
		in.BackupBootSector = int(bs.BackupBootSector)
	}
	in.BadClusters = v.BadClusters()
	in.UsedClusters = l.Clusters - in.FreeClusters - in.BadClusters
	in.FreeBytes = int64(in.FreeClusters) * l.ClusterSize
	if fi := v.FSInfo(); fi != nil {
		fc, nc := fi.FreeCount, fi.NextFree
		in.FreeCount, in.NextCluster = &fc, &nc
	}
	// Erase blocks belong to the whole card: on a partition device
	// (/dev/sdb1) count from the disk's start, as sysfs places it.
	start, disk := dev.Start(), dev.DiskSize()
	if place, err := fio.BlockDiskPlace(dev.Path()); err == nil && place.Partition {
		start, disk = start+place.Start, place.DiskSize
	}
	bu := fat.SDBoundaryUnit(disk)
	data := start + l.DataOffset
	in.Alignment = alignment{DiskSize: disk, BU: bu, PartitionStart: start, DataStart: data,
		PartitionAligned: start%bu == 0, DataAligned: data%bu == 0}
	add := func(name string, off, size int64) {
		in.Regions = append(in.Regions, region{Name: name, Offset: off, Sector: off / l.SectorSize, Size: size})
	}
	add("boot sector", 0, l.SectorSize)
	if l.Type == fat.FAT32 {
		add("FSINFO", l.FSInfoOffset, l.SectorSize)
		if l.BackupBootOffset != 0 {
			add("backup boot sector", l.BackupBootOffset, l.SectorSize)
		}
	}
	for i := 0; i < l.NumFATs; i++ {
		add(fmt.Sprintf("FAT %d", i+1), l.FATCopyOffset(i), l.FATSize)
	}
	if l.Type != fat.FAT32 {
		add("root directory", l.RootDirOffset, l.RootDirSize)
	}
	add("data area", l.DataOffset, l.TotalSize-l.DataOffset)
	return in
}

func (in *volumeInfo) print(w io.Writer) {
	p := func(k string, format string, a ...any) {
		fmt.Fprintf(w, "%-22s %s\n", k+":", fmt.Sprintf(format, a...))
	}
	p("device", "%s (volume at byte %d)", in.Device, in.VolumeStart)
	p("FAT type", "%s", in.FATType)
	p("OEM name", "%q", in.OEMName)
	p("bytes per sector", "%d", in.BytesPerSector)
	p("sectors per cluster", "%d (%d bytes per cluster)", in.SectorsPerCluster, in.ClusterSize)
	p("reserved sectors", "%d", in.ReservedSectors)
	p("FATs", "%d of %d sectors", in.NumFATs, in.FATSectors)
	if in.FATType != "FAT32" {
		p("root entries", "%d", in.RootEntries)
	}
	p("total sectors", "%d", in.TotalSectors)
	p("media", "%s", in.Media)
	p("geometry", "%d heads, %d sectors per track, %d hidden sectors", in.Heads, in.SectorsPerTrack, in.HiddenSectors)
	if in.FATType == "FAT32" {
		p("root cluster", "%d", in.RootCluster)
		p("FSINFO sector", "%d", in.FSInfoSector)
		p("backup boot sector", "%d", in.BackupBootSector)
	}
	p("drive number", "%s", in.DriveNumber)
	p("volume id", "%s", in.VolumeID)
	label := in.Label
	if label == "" {
		label = "(none)"
	}
	p("label", "%s", label)
	p("dirty", "%s", yesNo(in.Dirty))
	fmt.Fprintln(w, "regions (from the volume's start):")
	for _, r := range in.Regions {
		fmt.Fprintf(w, "  %-20s starts at byte %d (sector %d), %d bytes\n", r.Name, r.Offset, r.Sector, r.Size)
	}
	p("clusters", "%d total, %d free, %d used, %d bad", in.Clusters, in.FreeClusters, in.UsedClusters, in.BadClusters)
	p("free space", "%d bytes", in.FreeBytes)
	if in.FreeCount != nil {
		p("FSINFO free count", "%s", hint(*in.FreeCount))
		p("FSINFO next cluster", "%s", hint(*in.NextCluster))
	} else if in.FATType != "FAT32" {
		p("FSINFO", "none (%s has no FSINFO sector)", in.FATType)
	}
	a := in.Alignment
	// The SD specification asks the data area to start on a BU boundary
	// (for FAT32 the partition too: it starts at one BU); a FAT12/16
	// partition starts wherever that puts it.
	start := fmt.Sprintf("volume starts at byte %d", a.PartitionStart)
	if in.FATType == "FAT32" {
		start += " (" + aligned(a.PartitionAligned) + ")"
	}
	p("SD erase blocks", "BU %d bytes for a %d-byte card; from the card's start: data area at byte %d (%s), %s",
		a.BU, a.DiskSize, a.DataStart, aligned(a.DataAligned), start)
	for _, wmsg := range in.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wmsg)
	}
}

func hint(n uint32) string {
	if n == fat.FSInfoUnknown {
		return "unknown (0xffffffff)"
	}
	return fmt.Sprint(n)
}

func aligned(b bool) string {
	if b {
		return "aligned"
	}
	return "not aligned: the SD specification asks for a BU boundary"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
