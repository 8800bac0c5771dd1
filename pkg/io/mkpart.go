package io

import (
	"encoding/binary"
	"errors"
	"fmt"
	goio "io"
	"io/fs"
	"sort"
	"time"

	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// TableSpec describes the one-partition table fmkfs writes.
type TableSpec struct {
	Kind     string // "mbr" or "gpt"
	Start    int64  // partition start in bytes (a multiple of the sector size)
	Size     int64  // partition size in bytes
	MBRType  byte   // MBR partition type (see fat.MBRType)
	DiskID   uint32 // MBR disk identifier, used as given (PARTUUID is its hex form, "-01")
	DiskGUID string // GPT disk GUID; "" for a random one
	PartGUID string // GPT partition GUID; "" for a random one
	ESP      bool   // GPT: an EFI System Partition (type and name), else Microsoft basic data
	Name     string // GPT: the partition's name; "" for "FAT" (or the ESP's)
}

// GPT partition names fmkfs gives.
const (
	espName  = "EFI System Partition"
	dataName = "FAT"
)

// gptEntriesBytes is the GPT partition array: 128 entries of 128 bytes.
const gptEntriesBytes = 128 * 128

// PartitionSpan returns the size in bytes of the largest partition that
// starts at byte start and fits a table of the given kind on a disk of
// diskSize bytes with sectorSize-byte logical sectors.
func PartitionSpan(kind string, diskSize, sectorSize, start int64) (int64, error) {
	if sectorSize <= 0 || start%sectorSize != 0 {
		return 0, fmt.Errorf("partition start %d is not a multiple of the %d-byte sector", start, sectorSize)
	}
	sectors := diskSize / sectorSize
	first := start / sectorSize
	var n int64
	switch kind {
	case "mbr":
		n = sectors - first
		if n > 0xFFFFFFFF {
			n = 0xFFFFFFFF
		}
		if first > 0xFFFFFFFF {
			return 0, errors.New("an MBR cannot address a partition that far")
		}
	case "gpt":
		// The backup header takes the last sector, the backup array the
		// sectors before it.
		lastUsable := sectors - 1 - gptEntriesBytes/sectorSize - 1
		n = lastUsable - first + 1
	default:
		return 0, fmt.Errorf("unknown partition table kind %q: use mbr or gpt", kind)
	}
	if n < 64 {
		return 0, fmt.Errorf("%d bytes is too small for a %s partition starting at byte %d", diskSize, kind, start)
	}
	return n * sectorSize, nil
}

// WritePartitionTable writes a partition table with one partition to the
// whole device d, through one batch (so --stats counts it). Sector 0 is
// rewritten whole, so that no old boot sector or MBR entry survives under
// the table, and the GPT headers and entry arrays of an older GPT (at
// either sector size) are cleared first, so that only the new table is
// there to be read.
func WritePartitionTable(d *Device, s TableSpec) error {
	ss := int64(d.SectorSize())
	if s.Start%ss != 0 || s.Size%ss != 0 || s.Size <= 0 {
		return fmt.Errorf("partition at byte %d of %d bytes is not whole %d-byte sectors", s.Start, s.Size, ss)
	}
	if s.Start < ss || s.Start+s.Size > d.Size() {
		return fmt.Errorf("partition at byte %d of %d bytes does not fit the %d-byte disk after its table", s.Start, s.Size, d.Size())
	}
	rec := &tableWriter{size: d.Size(), writes: map[int64][]byte{0: make([]byte, ss)}}
	var err error
	switch s.Kind {
	case "mbr":
		t := &mbr.Table{
			LogicalSectorSize:  int(ss),
			PhysicalSectorSize: int(ss),
			Partitions: []*mbr.Partition{{
				Type:  mbr.Type(s.MBRType),
				Start: uint32(s.Start / ss),
				Size:  uint32(s.Size / ss),
			}},
		}
		if s.Start/ss > 0xFFFFFFFF || s.Size/ss > 0xFFFFFFFF {
			return fmt.Errorf("an MBR cannot hold a partition at sector %d of %d sectors: use a GPT", s.Start/ss, s.Size/ss)
		}
		err = t.Write(rec, d.Size())
		binary.LittleEndian.PutUint32(rec.writes[0][mbrDiskIDOff:], s.DiskID)
	case "gpt":
		typ, name := gpt.MicrosoftBasicData, dataName
		if s.Name != "" {
			name = s.Name
		}
		if s.ESP {
			typ, name = gpt.EFISystemPartition, espName
		}
		t := &gpt.Table{
			LogicalSectorSize:  int(ss),
			PhysicalSectorSize: int(ss),
			ProtectiveMBR:      true,
			GUID:               s.DiskGUID,
			Partitions: []*gpt.Partition{{
				Index: 1,
				Start: uint64(s.Start / ss),
				End:   uint64((s.Start+s.Size)/ss - 1),
				Type:  typ,
				Name:  name,
				GUID:  s.PartGUID,
			}},
		}
		err = t.Write(rec, d.Size())
		if last := d.Size()/ss - 1; err == nil && last > 0xFFFFFFFF {
			// The protective entry's size saturates on disks over 2 TiB.
			binary.LittleEndian.PutUint32(rec.writes[0][mbrEntriesOff+12:], 0xFFFFFFFF)
		}
	default:
		return fmt.Errorf("unknown partition table kind %q: use mbr or gpt", s.Kind)
	}
	if err != nil {
		return fmt.Errorf("partition table: %w", err)
	}
	if _, err := wipeGPT(d); err != nil {
		return err
	}
	b := d.NewBatch()
	offs := make([]int64, 0, len(rec.writes))
	for off := range rec.writes {
		offs = append(offs, off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	for _, off := range offs {
		if err := b.Write(off, rec.writes[off]); err != nil {
			return fmt.Errorf("writing the partition table: %w", err)
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("writing the partition table: %w", err)
	}
	return nil
}

// tableWriter collects the writes go-diskfs makes for a table, so that they
// reach the device through our batch instead of straight to a file. Writes
// at the same offset replace each other; a write inside the zeroed sector 0
// is merged into it.
type tableWriter struct {
	size   int64
	pos    int64
	writes map[int64][]byte
}

func (w *tableWriter) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > w.size {
		return 0, fmt.Errorf("partition table write at byte %d past the end (%d)", off, w.size)
	}
	if s0 := w.writes[0]; off+int64(len(p)) <= int64(len(s0)) {
		copy(s0[off:], p)
		return len(p), nil
	}
	w.writes[off] = append([]byte(nil), p...)
	return len(p), nil
}

func (w *tableWriter) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	return len(p), nil
}

func (w *tableWriter) Read(p []byte) (int, error) {
	n, err := w.ReadAt(p, w.pos)
	w.pos += int64(n)
	return n, err
}

func (w *tableWriter) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case goio.SeekStart:
		w.pos = off
	case goio.SeekCurrent:
		w.pos += off
	case goio.SeekEnd:
		w.pos = w.size + off
	}
	return w.pos, nil
}

func (w *tableWriter) Stat() (fs.FileInfo, error) { return tableInfo{w.size}, nil }
func (w *tableWriter) Close() error               { return nil }

type tableInfo struct{ size int64 }

func (i tableInfo) Name() string       { return "disk" }
func (i tableInfo) Size() int64        { return i.size }
func (i tableInfo) Mode() fs.FileMode  { return 0o600 }
func (i tableInfo) ModTime() time.Time { return time.Time{} }
func (i tableInfo) IsDir() bool        { return false }
func (i tableInfo) Sys() any           { return nil }

// Add returns the sum of two sets of statistics (for commands that open
// more than one device, or the same one twice); the I/O mode and policy are
// t's.
func (s Stats) Add(t Stats) Stats {
	s.WriteRequests += t.WriteRequests
	s.WriteBytes += t.WriteBytes
	s.ReadRequests += t.ReadRequests
	s.ReadBytes += t.ReadBytes
	s.Flushes += t.Flushes
	s.ZeroRequests += t.ZeroRequests
	s.ZeroBytes += t.ZeroBytes
	s.DiscardRequests += t.DiscardRequests
	s.DiscardBytes += t.DiscardBytes
	s.MaxReadsInFlight = max(s.MaxReadsInFlight, t.MaxReadsInFlight)
	s.Elapsed += t.Elapsed
	s.Direct, s.Align, s.Fallback, s.Policy = t.Direct, t.Align, t.Fallback, t.Policy
	return s
}
