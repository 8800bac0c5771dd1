package main

import (
	"fmt"
	"io"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
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
// specification gives a card of the disk's size (vol.Alignment).
type alignment struct {
	DiskSize         int64 `json:"disk_size"`
	BU               int64 `json:"sd_bu"`
	PartitionStart   int64 `json:"partition_start"`
	DataStart        int64 `json:"data_start"`
	PartitionAligned bool  `json:"partition_bu_aligned"`
	DataAligned      bool  `json:"data_bu_aligned"`
}

// describe is a FAT volume's description as fsinfo shows it.
func describe(d *vol.Description) *volumeInfo {
	f := d.FAT
	in := &volumeInfo{
		Device:            d.Device,
		VolumeStart:       d.VolumeStart,
		FATType:           d.Type,
		OEMName:           f.OEMName,
		BytesPerSector:    d.BytesPerSector,
		SectorsPerCluster: f.SectorsPerCluster,
		ClusterSize:       d.ClusterSize,
		ReservedSectors:   f.ReservedSectors,
		NumFATs:           d.NumFATs,
		RootEntries:       f.RootEntries,
		TotalSectors:      d.TotalSectors,
		Media:             fmt.Sprintf("0x%02x", f.Media),
		FATSectors:        d.FATSectors,
		SectorsPerTrack:   f.SectorsPerTrack,
		Heads:             f.Heads,
		HiddenSectors:     f.HiddenSectors,
		RootCluster:       d.RootCluster,
		FSInfoSector:      f.FSInfoSector,
		BackupBootSector:  f.BackupBootSector,
		DriveNumber:       fmt.Sprintf("0x%02x", f.DriveNumber),
		VolumeID:          volumeID(d.Serial),
		Label:             d.Label,
		Dirty:             d.Dirty,
		Regions:           regions(d.Regions),
		Clusters:          d.Clusters,
		FreeClusters:      d.FreeClusters,
		BadClusters:       d.BadClusters,
		UsedClusters:      d.Clusters - d.FreeClusters - d.BadClusters,
		FreeBytes:         int64(d.FreeClusters) * d.ClusterSize,
		Alignment:         alignment(d.Alignment),
		Warnings:          d.Warnings,
	}
	if fi := f.FSInfo; fi != nil {
		fc, nc := fi.FreeCount, fi.NextFree
		in.FreeCount, in.NextCluster = &fc, &nc
	}
	return in
}

func volumeID(serial uint32) string { return fmt.Sprintf("%04X-%04X", serial>>16, serial&0xFFFF) }

func regions(rs []vol.Region) []region {
	var out []region
	for _, r := range rs {
		out = append(out, region{Name: r.Name, Offset: r.Offset, Sector: r.Sector, Size: r.Size})
	}
	return out
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
	if n == vol.FSInfoUnknown {
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
