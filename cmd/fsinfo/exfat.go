package main

import (
	"fmt"
	"io"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

// exfatInfo is what fsinfo shows of an exFAT volume; its JSON form is
// --json's output. The keys it shares with a FAT volume's mean the same.
type exfatInfo struct {
	Device         string    `json:"device"`
	VolumeStart    int64     `json:"volume_start"`
	FATType        string    `json:"fat_type"` // "exFAT"
	Revision       string    `json:"revision"`
	BytesPerSector int       `json:"bytes_per_sector"`
	ClusterSize    int64     `json:"cluster_size"`
	TotalSectors   int64     `json:"total_sectors"`
	PartitionStart int64     `json:"partition_offset"` // sectors, as the boot sector records it
	NumFATs        int       `json:"fats"`
	FATSectors     int64     `json:"fat_sectors"`
	RootCluster    uint32    `json:"root_cluster"`
	BitmapCluster  uint32    `json:"bitmap_cluster"`
	BitmapBytes    uint64    `json:"bitmap_bytes"`
	UpcaseCluster  uint32    `json:"upcase_cluster"`
	UpcaseBytes    uint64    `json:"upcase_bytes"`
	UpcaseChecksum string    `json:"upcase_checksum"`
	VolumeID       string    `json:"volume_id"`
	VolumeGUID     string    `json:"volume_guid,omitempty"`
	Label          string    `json:"label"`
	Dirty          bool      `json:"dirty"`
	MediaFailure   bool      `json:"media_failure"`
	PercentInUse   *uint8    `json:"percent_in_use"` // as the boot sector records it; null when not kept
	Regions        []region  `json:"regions"`
	Clusters       uint32    `json:"clusters"`
	FreeClusters   uint32    `json:"free_clusters"`
	UsedClusters   uint32    `json:"used_clusters"`
	FreeBytes      int64     `json:"free_bytes"`
	Alignment      alignment `json:"alignment"`
	Warnings       []string  `json:"warnings"`
	cmdutil.Outcome
}

// describeExFAT is an exFAT volume's description as fsinfo shows it: the
// boot regions, FAT, cluster heap, allocation bitmap, up-case table and
// root directory, the free clusters and the SD erase-block alignment.
func describeExFAT(d *vol.Description) *exfatInfo {
	x := d.ExFAT
	in := &exfatInfo{
		Device:         d.Device,
		VolumeStart:    d.VolumeStart,
		FATType:        d.Type,
		Revision:       fmt.Sprintf("%d.%02d", x.Revision>>8, x.Revision&0xFF),
		BytesPerSector: d.BytesPerSector,
		ClusterSize:    d.ClusterSize,
		TotalSectors:   d.TotalSectors,
		PartitionStart: int64(x.PartitionOffset),
		NumFATs:        d.NumFATs,
		FATSectors:     d.FATSectors,
		RootCluster:    d.RootCluster,
		BitmapCluster:  x.BitmapCluster,
		BitmapBytes:    x.BitmapBytes,
		UpcaseCluster:  x.UpcaseCluster,
		UpcaseBytes:    x.UpcaseBytes,
		UpcaseChecksum: fmt.Sprintf("0x%08X", x.UpcaseChecksum),
		VolumeID:       volumeID(d.Serial),
		VolumeGUID:     x.VolumeGUID,
		Label:          d.Label,
		Dirty:          d.Dirty,
		MediaFailure:   x.MediaFailure,
		PercentInUse:   x.PercentInUse,
		Regions:        regions(d.Regions),
		Clusters:       d.Clusters,
		FreeClusters:   d.FreeClusters,
		UsedClusters:   d.Clusters - min(d.FreeClusters, d.Clusters),
		FreeBytes:      int64(d.FreeClusters) * d.ClusterSize,
		Alignment:      alignment(d.Alignment),
		Warnings:       d.Warnings,
	}
	return in
}

func (in *exfatInfo) print(w io.Writer) {
	p := func(k string, format string, a ...any) {
		fmt.Fprintf(w, "%-22s %s\n", k+":", fmt.Sprintf(format, a...))
	}
	p("device", "%s (volume at byte %d)", in.Device, in.VolumeStart)
	p("file system", "exFAT, revision %s", in.Revision)
	p("bytes per sector", "%d", in.BytesPerSector)
	p("cluster size", "%d bytes", in.ClusterSize)
	p("total sectors", "%d", in.TotalSectors)
	p("partition offset", "%d sectors", in.PartitionStart)
	p("FATs", "%d of %d sectors", in.NumFATs, in.FATSectors)
	p("root cluster", "%d", in.RootCluster)
	p("allocation bitmap", "cluster %d, %d bytes", in.BitmapCluster, in.BitmapBytes)
	p("up-case table", "cluster %d, %d bytes, checksum %s", in.UpcaseCluster, in.UpcaseBytes, in.UpcaseChecksum)
	p("volume id", "%s", in.VolumeID)
	if in.VolumeGUID != "" {
		p("volume GUID", "%s", in.VolumeGUID)
	}
	label := in.Label
	if label == "" {
		label = "(none)"
	}
	p("label", "%s", label)
	p("dirty", "%s", yesNo(in.Dirty))
	if in.MediaFailure {
		p("media failure", "yes (the media reported failures)")
	}
	fmt.Fprintln(w, "regions (from the volume's start):")
	for _, r := range in.Regions {
		fmt.Fprintf(w, "  %-20s starts at byte %d (sector %d), %d bytes\n", r.Name, r.Offset, r.Sector, r.Size)
	}
	p("clusters", "%d total, %d free, %d used", in.Clusters, in.FreeClusters, in.UsedClusters)
	p("free space", "%d bytes", in.FreeBytes)
	if in.PercentInUse != nil {
		p("percent in use", "%d%% (boot sector)", *in.PercentInUse)
	} else {
		p("percent in use", "not kept (0xFF)")
	}
	a := in.Alignment
	p("SD erase blocks", "BU %d bytes for a %d-byte card; from the card's start: volume starts at byte %d (%s), cluster heap at byte %d (%s)",
		a.BU, a.DiskSize, a.PartitionStart, aligned(a.PartitionAligned), a.DataStart, aligned(a.DataAligned))
	for _, wmsg := range in.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wmsg)
	}
}
