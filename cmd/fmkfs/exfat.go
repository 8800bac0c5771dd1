package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/exfat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// exfatOnlyFAT are the flags that shape a FAT and mean nothing to exFAT,
// with why: fmkfs --type exfat refuses them rather than ignore them.
var exfatOnlyFAT = []struct{ flag, why string }{
	{"fat", "chooses FAT12, FAT16 or FAT32"},
	{"reserved", "sizes FAT's reserved region; exFAT's boot regions are fixed"},
	{"fats", "exFAT volumes ftools makes have one FAT (two are TexFAT's)"},
	{"root-entries", "sizes FAT12/16's fixed root directory; exFAT's root is a cluster chain"},
	{"media", "sets FAT's media byte, which exFAT has not"},
	{"drive-number", "sets FAT's BIOS drive number, which exFAT keeps at 0x80"},
	{"geometry", "sets FAT's CHS geometry, which exFAT has not"},
	{"heads", "sets FAT's CHS geometry, which exFAT has not"},
	{"sectors-per-track", "sets FAT's CHS geometry, which exFAT has not"},
	{"hidden", "sets FAT's hidden sectors; exFAT records the partition's offset, which fmkfs takes from the table or device"},
	{"fat-spare", "sizes FAT's FATs for growth; fresize grows exFAT within the gap fmkfs leaves before its cluster heap"},
	{"no-align", "turns off FAT's alignment; exFAT's FAT and cluster heap are always aligned, as mkfs.exfat aligns them"},
	{"backup-sector", "places FAT32's backup boot sector; exFAT's backup boot region is always at sector 12"},
	{"boot-message", "writes FAT's boot code"},
	{"mbr", "writes mkfs.fat's fake MBR into a FAT boot sector"},
	{"esp", "makes an EFI System Partition, which firmware reads as FAT only"},
	{cmdutil.FlagCodePage, "is the code page of FAT's short names and labels; exFAT's names and label are UTF-16"},
}

// fsType reads --type: "fat" (the default) or "exfat".
func fsType(c *cli.Context) (string, error) {
	switch t := strings.ToLower(c.String("type")); t {
	case "fat", "vfat", "msdos":
		return "fat", nil
	case "exfat":
		return "exfat", nil
	default:
		return "", fmt.Errorf("--type %q: give fat (FAT12, FAT16 or FAT32, with --fat) or exfat", c.String("type"))
	}
}

// exfatRequest refuses the flags exFAT has no use for and returns the
// exFAT parameters the command line gives: label, serial number (--volume-id,
// --invariant or SOURCE_DATE_EPOCH, as for FAT), sector and cluster size.
func exfatRequest(c *cli.Context, p fmtCommon, asked bool) (*exfat.FormatParams, error) {
	for _, f := range exfatOnlyFAT {
		if asked && c.IsSet(f.flag) {
			return nil, fmt.Errorf("--%s %s: it cannot be combined with --type exfat", f.flag, f.why)
		}
	}
	x := &exfat.FormatParams{Label: c.String("label"), Serial: p.serial, ZeroSerial: p.serial == 0, SectorSize: p.sectorSize}
	cs := int64(p.clusterSize)
	if n := c.Int("sectors-per-cluster"); n != 0 && asked {
		ss := int64(p.sectorSize)
		if ss == 0 {
			ss = 512
		}
		cs = int64(n) * ss
	}
	if cs != 0 && (cs < 512 || cs > 32<<20 || cs&(cs-1) != 0) {
		return nil, fmt.Errorf("--cluster-size %d: exFAT clusters are a power of two from the sector size to 32 MiB", cs)
	}
	x.ClusterSize = cs
	return x, nil
}

// fmtCommon is what both formats take from the FAT parameters parsed
// already.
type fmtCommon struct {
	serial      uint32
	sectorSize  int
	clusterSize int
}

// planSDExFAT lays an SDXC card out as the SD specification does (see
// exfat.PlanSD) and turns t.x into the partition's format parameters.
func planSDExFAT(diskSize int64, t *tableOptions) (fio.TableSpec, error) {
	l, err := exfat.PlanSD(diskSize / 512)
	if err != nil {
		if errors.Is(err, exfat.ErrSDCapacity) && diskSize <= 32<<30 {
			return fio.TableSpec{}, fmt.Errorf("--sd --type exfat: the SD specification formats cards of 32 GiB and less (SDSC, SDHC) FAT, and only SDXC cards, over 32 GiB, exFAT; this one holds %d bytes: leave --type out for the standard's FAT layout, or leave --sd out for an exFAT laid out as mkfs.exfat lays it out", diskSize)
		}
		return fio.TableSpec{}, err
	}
	q := l.Params
	q.Label, q.Serial = t.x.Label, t.x.Serial
	if err := planExFATFits(q, t.from); err != nil {
		return fio.TableSpec{}, err
	}
	*t.x = q
	t.sd.xlayout = l
	return fio.TableSpec{Kind: "mbr", Start: l.PartitionStart * 512, Size: l.PartitionSize * 512, MBRType: l.MBRType, DiskID: t.ids.mbr}, nil
}

// planExFATPartition plans an exFAT volume of size bytes in fmkfs's one
// partition (at partStart) and returns the table's spec: MBR type 0x07,
// or a GPT Microsoft basic data partition named "exFAT".
func planExFATPartition(size, lss int64, t *tableOptions) (fio.TableSpec, error) {
	q := *t.x
	q.Size, q.PartitionOffset = size, partStart
	if q.SectorSize == 0 {
		q.SectorSize = int(lss)
	}
	if err := planExFATFits(q, t.from); err != nil {
		return fio.TableSpec{}, err
	}
	return fio.TableSpec{Kind: t.kind, Start: partStart, Size: size, MBRType: 0x07,
		DiskID: t.ids.mbr, DiskGUID: t.ids.diskGUID, PartGUID: t.ids.partGUID, Name: "exFAT"}, nil
}

// isExFAT reports whether the request makes exFAT: --type exfat, or --sd
// on an SDXC card (decided when the table was planned).
func (r *request) isExFAT() bool {
	if r.table.sd != nil {
		return r.table.sd.xlayout != nil
	}
	return r.exfat
}

// formatExFAT clears the old signatures inside the volume's range and
// makes the exFAT file system there.
func formatExFAT(c *cli.Context, r *request, dev *fio.Device) (*exfat.BootSector, *exfat.Layout, []fio.Signature, error) {
	p := *r.x
	if r.blocks != 0 {
		if r.blocks > dev.Size() {
			return nil, nil, nil, fmt.Errorf("BLOCK-COUNT %d (%d bytes) is more than %s holds from byte %d (%d bytes); give a smaller count", r.blocks/1024, r.blocks, r.path, dev.Start(), dev.Size())
		}
		p.Size = r.blocks
	}
	if p.Size == 0 {
		p.Size = dev.Size()
	}
	if p.SectorSize == 0 {
		p.SectorSize = dev.SectorSize()
	}
	if r.table.sd == nil {
		// mkfs.exfat records where the volume starts on its disk, and
		// aligns the FAT and the heap to the disk.
		place, err := fio.BlockDiskPlace(r.path)
		if err != nil {
			return nil, nil, nil, err
		}
		p.PartitionOffset = place.Start + dev.Start()
	}
	if err := r.from.exfatFits(p); err != nil {
		return nil, nil, nil, err
	}
	p.Dirty = r.from != nil // clean once filled (see format)
	f, err := vol.Format(dev, vol.FormatOptions{ExFAT: &p, Now: formatClock(c), Discard: !r.disc.off, SecureErase: r.disc.secure})
	r.disc.res = f.Discard
	return f.ExFATBoot, f.ExFATLayout, f.Wiped, err
}

// mkfsExFAT formats dev exFAT and reports as mkfs does for FAT: res
// holds what the table step filled in, total its statistics.
func mkfsExFAT(c *cli.Context, r *request, dev *fio.Device, res *result, total fio.Stats, stdout, stderr io.Writer) error {
	bs, l, wiped, err := formatExFAT(c, r, dev)
	var fillErr error
	if err == nil && r.from != nil {
		res.From, fillErr = fill(r, res.Target, dev, stderr)
		if !isExit1(fillErr) {
			err, fillErr = fillErr, nil
		}
	}
	if err := closeFormatted(r, dev, wiped, err, res, &total, stderr); err != nil {
		return err
	}
	res.VolumeStart, res.VolumeSize = dev.Start(), l.TotalSize
	res.FATType = "exFAT"
	res.SectorSize, res.ClusterSize, res.Clusters = l.SectorSize, l.ClusterSize, l.Clusters
	res.FATSize, res.DataOffset, res.Hidden = l.FATSize, l.HeapOffset, uint32(bs.PartitionOffset)
	res.VolumeID = fmt.Sprintf("%04X-%04X", bs.SerialNumber>>16, bs.SerialNumber&0xFFFF)
	res.Label = r.x.Label
	if sd := r.table.sd; sd != nil && sd.xlayout != nil {
		data := dev.Start() + l.HeapOffset
		res.SD = &sdResult{BU: sd.xlayout.BU, PartitionSector: sd.xlayout.PartitionStart, MBRType: sd.xlayout.MBRType,
			DataStart: data, DataAligned: data%sd.xlayout.BU == 0}
	}
	if !c.Bool(cmdutil.FlagJSON) {
		if c.Bool(cmdutil.FlagVerbose) {
			printExFATLayout(stdout, r.path, bs, l)
		}
		fmt.Fprintf(stdout, "%s: exFAT, %d clusters of %d bytes, volume id %s", res.Target, l.Clusters, l.ClusterSize, res.VolumeID)
		printResultTail(stdout, res)
		printFilled(stdout, r, res.From)
	}
	return cmdutil.Finish(c, stdout, stderr, res, func() fio.Stats { return total }, fillErr)
}

// printExFATLayout says what was made, region by region, as -v does for
// FAT.
func printExFATLayout(w io.Writer, target string, bs *exfat.BootSector, l *exfat.Layout) {
	fmt.Fprintf(w, "%s: exFAT revision %d.%02d, logical sector size %d, cluster size %d,\n", target, bs.Revision>>8, bs.Revision&0xFF, l.SectorSize, l.ClusterSize)
	fmt.Fprintf(w, "volume of %d sectors at sector %d of the disk;\n", l.TotalSize/l.SectorSize, bs.PartitionOffset)
	fmt.Fprintf(w, "FAT at sector %d, %d sectors; cluster heap at sector %d, %s;\n", bs.FATOffset, bs.FATLength, bs.ClusterHeapOffset, cmdutil.Plural(int(l.Clusters), "cluster"))
	fmt.Fprintf(w, "root directory at cluster %d; volume serial number %08x.\n", bs.RootCluster, bs.SerialNumber)
}

// planExFATFits plans the exFAT q makes and, with --from, checks that
// the trees fit it.
func planExFATFits(q exfat.FormatParams, from *fromRequest) error {
	if _, _, err := exfat.Plan(q); err != nil {
		return err
	}
	return from.exfatFits(q)
}
