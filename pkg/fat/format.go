package fat

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// Format writes a new, empty FAT file system on dev as p describes (see
// Plan for the defaults). p.Size 0 means the whole device; p.SectorSize 0
// means the device's logical sector size. now stamps the label's directory
// entry. Everything is checked before the first write.
//
// The old volume's boot sectors are zeroed first, and made durable by a
// barrier (a flush under --sync close and file), so that a cut never leaves
// the old volume readable over changed data. Then only what must be zero
// is zeroed (reserved sectors, FATs, the FAT12/16 root directory or the
// FAT32 root cluster), with dev.Zero's cheapest means; after a barrier,
// FSINFO, its
// backup, the first FAT entries and the label go out in one batch, and
// after another barrier the boot sector and its backup.
func Format(dev *fio.Device, p FormatParams, now time.Time) (*BootSector, *Layout, error) {
	if err := fsutil.FitFormat(dev, &p.SectorSize, &p.Size, &p.VolumeID, p.ZeroVolumeID, now); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidParams, err)
	}
	bs, l, err := Plan(p)
	if err != nil {
		return nil, nil, err
	}
	if !dev.Writable() {
		return nil, nil, ErrReadOnly
	}

	// Zero the metadata area, and the FAT32 root cluster with it when it is
	// the first cluster (as always here).
	zeroEnd := l.DataOffset
	rootN := uint32(1)
	if l.Type == FAT32 {
		rootN = uint32(max(p.RootClusters, 1))
		if int64(rootN) > int64(l.Clusters) {
			return nil, nil, fmt.Errorf("%w: a root directory of %d clusters on a volume of %d", ErrInvalidParams, rootN, l.Clusters)
		}
		zeroEnd = l.ClusterOffset(l.RootCluster) + int64(rootN)*l.ClusterSize
	}
	// First, and durably, the old volume's boot sectors: while the old
	// boot sector survives, zeros that land in the old volume's data
	// (the new FATs may lie there) would leave it reading as valid with
	// its files' bytes gone.
	if err := fsutil.WipeOldBoot(dev, zeroEnd, looksLikeBootSector); err != nil {
		return nil, nil, fmt.Errorf("fat: clearing the old boot sector: %w", err)
	}
	if err := dev.Zero(0, zeroEnd); err != nil {
		return nil, nil, fmt.Errorf("fat: zeroing the metadata area: %w", err)
	}
	// The zeros (which take the old boot sector and its backup) are
	// durable before anything new is written: a cut can then never leave
	// the old boot sector over new metadata.
	if err := dev.Barrier(); err != nil {
		return nil, nil, fmt.Errorf("fat: zeroing the metadata area: %w", err)
	}

	b := dev.NewBatch()
	ss := l.SectorSize
	sector := make([]byte, ss)
	backup := sector
	if p.Dirty && l.Type != FAT12 {
		backup = make([]byte, ss)
		bs.Encode(backup)
		bs.SetDirty(true)
	}
	bs.Encode(sector)
	queue := func(off int64, p []byte) {
		if err == nil {
			err = b.Write(off, p)
		}
	}
	if l.Type == FAT32 {
		fi := &FSInfo{FreeCount: l.Clusters - rootN, NextFree: uint32(l.RootCluster) + rootN - 1}
		info := make([]byte, ss)
		fi.Encode(info)
		queue(l.FSInfoOffset, info)
		if l.BackupBootOffset != 0 && l.BackupBootOffset+ss < l.FATCopyOffset(0) {
			// FSINFO's backup follows the backup boot sector when that
			// is not the last reserved sector.
			queue(l.BackupBootOffset+ss, info)
		}
	}

	head := fatHead(l, bs.Media, rootN)
	for i := 0; i < l.NumFATs; i++ {
		queue(l.FATCopyOffset(i), head)
	}

	if bs.VolumeLabel != blankLabel {
		e := DirEntry{Name: bs.VolumeLabel, Attr: AttrVolumeID}
		e.SetTimes(now, now, now)
		e.CreateTime, e.CreateDate, e.CreateTenth, e.AccessDate = 0, 0, 0, 0
		ent := make([]byte, DirEntrySize)
		e.Encode(ent)
		root := l.RootDirOffset
		if l.Type == FAT32 {
			root = l.ClusterOffset(l.RootCluster)
		}
		queue(root, ent)
	}
	if err == nil {
		err = b.Flush()
	}
	// The boot sectors go last, after a barrier: until they are durable
	// the device holds no boot sector at all (the zeroing took the old
	// one), so a cut leaves nothing a reader takes for the new volume
	// with the old one's leftovers in it.
	if err == nil {
		err = dev.Barrier()
	}
	queue(0, sector)
	if l.Type == FAT32 && l.BackupBootOffset != 0 {
		queue(l.BackupBootOffset, backup)
	}
	if err == nil {
		err = b.Flush()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("fat: writing the new file system: %w", err)
	}
	return bs, l, nil
}

// looksLikeBootSector reports whether b holds a FAT boot sector, or an
// exFAT or NTFS one (by their names).
func looksLikeBootSector(b []byte) bool {
	if _, err := DecodeBootSector(b); err == nil {
		return true
	}
	name := string(b[3:11])
	return name == "EXFAT   " || name == "NTFS    "
}

// blankLabel is the label field of a volume without a label.
var blankLabel = [11]byte{'N', 'O', ' ', 'N', 'A', 'M', 'E', ' ', ' ', ' ', ' '}

// fatHead returns the first bytes of a new FAT: entry 0 holds the media
// byte, entry 1 the end-of-chain mark, and on FAT32 entries 2 on chain
// the root directory's root clusters.
func fatHead(l *Layout, media uint8, root uint32) []byte {
	switch l.Type {
	case FAT12:
		v0, v1 := uint32(0xF00)|uint32(media), uint32(0xFFF)
		packed := v0 | v1<<12
		return []byte{byte(packed), byte(packed >> 8), byte(packed >> 16)}
	case FAT16:
		h := make([]byte, 4)
		binary.LittleEndian.PutUint16(h[0:], 0xFF00|uint16(media))
		binary.LittleEndian.PutUint16(h[2:], 0xFFFF)
		return h
	default:
		h := make([]byte, 8+4*int(root))
		binary.LittleEndian.PutUint32(h[0:], 0x0FFFFF00|uint32(media))
		binary.LittleEndian.PutUint32(h[4:], 0x0FFFFFFF)
		for i := uint32(0); i < root; i++ {
			next := uint32(FirstCluster) + i + 1
			if i == root-1 {
				next = 0x0FFFFFFF
			}
			binary.LittleEndian.PutUint32(h[8+4*i:], next)
		}
		return h
	}
}
