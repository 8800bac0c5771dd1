package main

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
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

// showExFAT prints an exFAT volume: the boot regions, FAT, cluster heap,
// allocation bitmap, up-case table and root directory, the free clusters
// and the SD erase-block alignment. Nothing is written.
func showExFAT(c *cli.Context, spec string, dev *fio.Device, stdout, stderr io.Writer) error {
	v, err := exfat.Open(dev)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	in, err := describeExFAT(v)
	if err != nil {
		return fmt.Errorf("%s: %s", spec, cmdutil.ErrText(err))
	}
	var boot []byte
	if c.Bool(cmdutil.FlagVerbose) {
		boot = make([]byte, v.Layout().SectorSize)
		if _, err := dev.ReadAt(boot, 0); err != nil {
			return fmt.Errorf("%s: reading the boot sector: %s", spec, cmdutil.ErrText(err))
		}
	}
	if err := v.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if err := dev.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if !c.Bool(cmdutil.FlagJSON) {
		in.print(stdout)
		if boot != nil {
			fmt.Fprintf(stdout, "boot sector (%d bytes):\n%s", len(boot), hex.Dump(boot))
		}
	}
	return cmdutil.Finish(c, stdout, stderr, in, dev.Stats, nil)
}

func describeExFAT(v *exfat.Volume) (*exfatInfo, error) {
	bs, l, dev := v.BootSector(), v.Layout(), v.Device()
	bm, up := v.SystemEntries()
	label, err := v.Label()
	if err != nil {
		return nil, err
	}
	in := &exfatInfo{
		Device:         dev.Path(),
		VolumeStart:    dev.Start(),
		FATType:        "exFAT",
		Revision:       fmt.Sprintf("%d.%02d", bs.Revision>>8, bs.Revision&0xFF),
		BytesPerSector: int(l.SectorSize),
		ClusterSize:    l.ClusterSize,
		TotalSectors:   l.TotalSize / l.SectorSize,
		PartitionStart: int64(bs.PartitionOffset),
		NumFATs:        l.NumFATs,
		FATSectors:     l.FATSize / l.SectorSize,
		RootCluster:    uint32(l.RootCluster),
		BitmapCluster:  uint32(bm.FirstCluster),
		BitmapBytes:    bm.DataLength,
		UpcaseCluster:  uint32(up.FirstCluster),
		UpcaseBytes:    up.DataLength,
		UpcaseChecksum: fmt.Sprintf("0x%08X", up.Checksum),
		VolumeID:       fmt.Sprintf("%04X-%04X", bs.SerialNumber>>16, bs.SerialNumber&0xFFFF),
		Label:          label,
		Dirty:          bs.Dirty(),
		MediaFailure:   bs.VolumeFlags&exfat.FlagMediaFailure != 0,
		Clusters:       l.Clusters,
		FreeClusters:   v.FreeClusters(),
		Warnings:       append([]string{}, v.Warnings()...),
	}
	if g, ok := v.VolumeGUID(); ok {
		in.VolumeGUID = exfat.FormatGUID(g)
	}
	if bs.PercentInUse != exfat.PercentUnknown {
		p := bs.PercentInUse
		in.PercentInUse = &p
	}
	in.UsedClusters = l.Clusters - min(in.FreeClusters, l.Clusters)
	in.FreeBytes = int64(in.FreeClusters) * l.ClusterSize
	// Erase blocks belong to the whole card: on a partition device
	// (/dev/sdb1) count from the disk's start, as sysfs places it.
	start, disk := dev.Start(), dev.DiskSize()
	if place, err := fio.BlockDiskPlace(dev.Path()); err == nil && place.Partition {
		start, disk = start+place.Start, place.DiskSize
	}
	bu := exfat.SDBoundaryUnit(disk) // SDXC; smaller cards have the FAT table's BU
	if bu == 0 {
		bu = fat.SDBoundaryUnit(disk)
	}
	data := start + l.HeapOffset
	in.Alignment = alignment{DiskSize: disk, BU: bu, PartitionStart: start, DataStart: data,
		PartitionAligned: start%bu == 0, DataAligned: data%bu == 0}
	add := func(name string, off, size int64) {
		in.Regions = append(in.Regions, region{Name: name, Offset: off, Sector: off / l.SectorSize, Size: size})
	}
	add("boot region", 0, 12*l.SectorSize)
	add("backup boot region", l.BackupBootOffset, 12*l.SectorSize)
	for i := 0; i < l.NumFATs; i++ {
		add(fmt.Sprintf("FAT %d", i+1), l.FATCopyOffset(i), l.FATSize)
	}
	add("cluster heap", l.HeapOffset, l.HeapEnd()-l.HeapOffset)
	if l.ValidCluster(bm.FirstCluster) {
		add("allocation bitmap", l.ClusterOffset(bm.FirstCluster), int64(bm.DataLength))
	}
	if l.ValidCluster(up.FirstCluster) {
		add("up-case table", l.ClusterOffset(up.FirstCluster), int64(up.DataLength))
	}
	if l.ValidCluster(l.RootCluster) {
		add("root directory", l.ClusterOffset(l.RootCluster), l.ClusterSize)
	}
	return in, nil
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
