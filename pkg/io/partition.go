package io

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	goio "io"
	"io/fs"
	"strings"

	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// Layout of sector 0 (MBR or boot sector) and of a GPT header.
const (
	bootSigOff      = 510 // 0x55 0xAA
	bpbJumpOff      = 0   // 0xEB or 0xE9 in a FAT, exFAT or NTFS boot sector
	bpbOEMOff       = 3   // "EXFAT   ", "NTFS    "
	bpbBytesPerSec  = 11  // uint16
	mbrDiskIDOff    = 440 // uint32 disk identifier (the PARTUUID prefix)
	mbrEntriesOff   = 446 // four 16-byte entries
	mbrEntryLen     = 16
	mbrTypeOff      = 4 // within an entry
	gptHeaderLen    = 92
	gptCRCOff       = 16 // uint32, computed with itself zeroed
	gptEntriesLBA   = 72 // uint64
	gptEntryCount   = 80 // uint32
	gptEntrySize    = 84 // uint32
	maxGPTEntrySize = 4096
	maxGPTArray     = 4 << 20 // bytes of partition entries we agree to read
	maxLogical      = 128     // logical partitions followed in an extended one
)

// MBR partition types with a meaning of their own here.
const (
	mbrProtective = 0xEE // the whole disk belongs to a GPT
	mbrExtended   = 0x05 // a container of logical partitions (CHS)
	mbrExtendedL  = 0x0F // the same, LBA
	mbrExtendedLx = 0x85 // the same, Linux
)

func isExtended(t byte) bool { return t == mbrExtended || t == mbrExtendedL || t == mbrExtendedLx }

// Partition is one usable entry of a disk's partition table.
type Partition struct {
	Index    int    // number as Linux gives it: 1-4 primary (MBR) or the GPT slot, 5 and up logical
	Start    int64  // first byte, from the start of the disk
	Size     int64  // bytes
	Table    string // "mbr" or "gpt"
	Type     byte   // MBR partition type (0 in a GPT)
	TypeGUID string // GPT partition type GUID, upper case ("" in an MBR)
	Name     string // GPT partition name
	Problem  string // why the entry cannot be used ("" when it can); Start and Size may then be 0
}

// PartitionTable is what a disk's table holds. Protective (0xEE) and
// extended (container) entries are not partitions and are never listed;
// the logical partitions inside an extended one are.
type PartitionTable struct {
	Kind       string // "mbr" or "gpt"
	SectorSize int    // bytes per sector its LBAs count
	DiskID     string // MBR disk identifier (8 hex digits) or GPT disk GUID
	Partitions []Partition
}

// Named is the table as a sentence names it, with its article: "an MBR
// table", "a GPT table".
func (t *PartitionTable) Named() string {
	if t.Kind == "gpt" {
		return "a GPT table"
	}
	return "an " + strings.ToUpper(t.Kind) + " table"
}

// fatMBRTypes are the MBR types a FAT (or exFAT) volume may carry, hidden
// variants included, and the EFI System Partition.
var fatMBRTypes = map[byte]bool{0x01: true, 0x04: true, 0x06: true, 0x07: true, 0x0B: true, 0x0C: true, 0x0E: true,
	0x11: true, 0x14: true, 0x16: true, 0x1B: true, 0x1C: true, 0x1E: true, 0xEF: true}

// MayHoldFAT reports whether the partition's type is one that FAT or exFAT
// volumes are given (MBR 0x01, 0x04, 0x06, 0x07, 0x0B, 0x0C, 0x0E, their
// hidden variants, 0xEF; GPT Microsoft basic data or EFI System). Only the
// boot sector can tell for sure.
func (p Partition) MayHoldFAT() bool {
	if p.Table == "gpt" {
		return p.TypeGUID == string(gpt.MicrosoftBasicData) || p.TypeGUID == string(gpt.EFISystemPartition)
	}
	return fatMBRTypes[p.Type]
}

// ReadPartitions reads the partition table of an image file or block device
// (the whole disk). It takes no lock and opens read-only. The error wraps
// ErrNoPartition when there is no table: no boot signature, a FAT, exFAT or
// NTFS boot sector in sector 0, or a protective MBR without a valid GPT.
func ReadPartitions(path string) (*PartitionTable, error) {
	d, err := Open(path, Options{NoLock: true, Buffered: true})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.readTable()
}

// isBootSector reports whether b (sector 0 of a volume) is a FAT, exFAT or
// NTFS boot sector rather than an MBR: boot signature, a jump instruction,
// and a plausible bytes-per-sector field or the exFAT/NTFS name.
func isBootSector(b []byte) bool {
	if len(b) < 512 || b[bootSigOff] != 0x55 || b[bootSigOff+1] != 0xAA {
		return false
	}
	if b[bpbJumpOff] != 0xEB && b[bpbJumpOff] != 0xE9 {
		return false
	}
	if oem := string(b[bpbOEMOff : bpbOEMOff+8]); oem == "EXFAT   " || oem == "NTFS    " {
		return true
	}
	bps := binary.LittleEndian.Uint16(b[bpbBytesPerSec:])
	return bps >= 512 && bps <= 4096 && bps&(bps-1) == 0
}

// readTable reads the MBR or GPT of the whole file or device (d.start must
// still be 0). Errors wrap ErrNoPartition when there is no usable table.
func (d *Device) readTable() (*PartitionTable, error) {
	if d.rawSize < 512 {
		return nil, fmt.Errorf("io: %s: %d bytes, too small for a partition table: %w", d.path, d.rawSize, ErrNoPartition)
	}
	sec0 := make([]byte, 512)
	if _, err := d.ReadAt(sec0, 0); err != nil {
		return nil, err
	}
	if isBootSector(sec0) {
		return nil, fmt.Errorf("io: %s: sector 0 holds a FAT, exFAT or NTFS boot sector, so there is no partition table: %w", d.path, ErrNoPartition)
	}
	if sec0[bootSigOff] != 0x55 || sec0[bootSigOff+1] != 0xAA {
		return nil, fmt.Errorf("io: %s: no MBR or GPT partition table found: %w", d.path, ErrNoPartition)
	}
	mt, err := mbr.Read(&tableReader{d: d}, 512, 512)
	if err != nil {
		return nil, fmt.Errorf("io: %s: sector 0 has a boot signature but no valid MBR (%v): %w", d.path, err, ErrNoPartition)
	}
	for _, p := range mt.Partitions {
		if p.Type == mbrProtective {
			return d.readGPTs()
		}
	}
	return d.readMBR(mt, sec0)
}

// readGPTs reads the GPT behind a protective MBR: with the device's sector
// size, or for an image file with 512 and then 4096 bytes.
func (d *Device) readGPTs() (*PartitionTable, error) {
	sizes := []int{d.sectorSize}
	if !d.blockDev {
		sizes = []int{512, 4096} // an image file does not say which it was made for
	}
	for _, lss := range sizes {
		t, err := d.readGPT(lss)
		if t != nil || err != nil {
			return t, err
		}
	}
	return nil, fmt.Errorf("io: %s: protective MBR (type 0xEE) but no valid GPT behind it: %w", d.path, ErrNoPartition)
}

// readMBR lists the primary partitions of mt and the logical ones of its
// extended partition, in the sector size the table was written for.
func (d *Device) readMBR(mt *mbr.Table, sec0 []byte) (*PartitionTable, error) {
	lss := d.mbrSectorSize(mt)
	t := &PartitionTable{Kind: "mbr", SectorSize: lss, DiskID: fmt.Sprintf("%08x", binary.LittleEndian.Uint32(sec0[mbrDiskIDOff:]))}
	var ext *mbr.Partition
	for _, p := range mt.Partitions {
		switch {
		case p.Type == mbr.Empty || p.Size == 0:
		case isExtended(byte(p.Type)):
			if ext == nil {
				ext = p
			}
		default:
			t.Partitions = append(t.Partitions, d.mbrEntry(p.Index, p, 0, lss))
		}
	}
	if ext != nil {
		d.readLogical(t, ext, lss)
	}
	return t, nil
}

// mbrEntry turns an MBR entry whose start counts from sector base into a
// Partition, checked against the disk.
func (d *Device) mbrEntry(index int, p *mbr.Partition, base int64, lss int) Partition {
	first := base + int64(p.Start)
	e := Partition{Index: index, Table: "mbr", Type: byte(p.Type), Start: first * int64(lss), Size: int64(p.Size) * int64(lss)}
	switch {
	case first == 0:
		e.Problem = "starts at sector 0 (over the table itself)"
	case e.Start+e.Size > d.rawSize:
		e.Problem = fmt.Sprintf("sectors %d+%d end past the end of the disk (%d bytes)", first, p.Size, d.rawSize)
	}
	if e.Problem != "" {
		e.Start, e.Size = 0, 0
	}
	return e
}

// readLogical follows the chain of extended boot records of ext and adds
// its logical partitions as 5, 6, ... The chain is bounded, must stay
// inside the extended partition and never revisit a record.
func (d *Device) readLogical(t *PartitionTable, ext *mbr.Partition, lss int) {
	base, end := int64(ext.Start), int64(ext.Start)+int64(ext.Size)
	seen := map[int64]bool{}
	for lba, n := base, 5; n < 5+maxLogical; n++ {
		if seen[lba] || lba < base || lba >= end || (lba+1)*int64(lss) > d.rawSize {
			return
		}
		seen[lba] = true
		et, err := mbr.Read(&tableReader{d: d, base: lba * int64(lss)}, 512, 512)
		if err != nil {
			return
		}
		var next int64 = -1
		for i, p := range et.Partitions {
			switch {
			case p.Type == mbr.Empty || p.Size == 0:
			case i == 0 && !isExtended(byte(p.Type)):
				e := d.mbrEntry(n, p, lba, lss)
				if e.Problem == "" && e.Start+e.Size > end*int64(lss) {
					e.Start, e.Size, e.Problem = 0, 0, "logical partition ends past its extended partition"
				}
				t.Partitions = append(t.Partitions, e)
			case i == 1 && isExtended(byte(p.Type)):
				next = base + int64(p.Start)
			}
		}
		if next < 0 {
			return
		}
		lba = next
	}
}

// mbrSectorSize is the sector size an MBR's LBAs count: the device's, or
// for an image file 512 unless the first partition's start holds a boot
// sector of 4096-byte sectors only when read in 4096-byte units (an image
// made on a 4Kn disk or a loop device with -b 4096).
func (d *Device) mbrSectorSize(mt *mbr.Table) int {
	if d.blockDev {
		return d.sectorSize
	}
	for _, p := range mt.Partitions {
		if p.Type == mbr.Empty || p.Size == 0 || isExtended(byte(p.Type)) {
			continue
		}
		at := func(lss int64) []byte {
			b := make([]byte, 512)
			off := int64(p.Start) * lss
			if off <= 0 || off+512 > d.rawSize {
				return nil
			}
			if _, err := d.ReadAt(b, off); err != nil {
				return nil
			}
			return b
		}
		if b := at(512); b != nil && isBootSector(b) {
			return 512
		}
		b := at(4096)
		fits := (int64(p.Start)+int64(p.Size))*4096 <= d.rawSize
		if b != nil && fits && isBootSector(b) && binary.LittleEndian.Uint16(b[bpbBytesPerSec:]) == 4096 {
			return 4096
		}
		break
	}
	return 512
}

// readGPT returns the GPT read with logical sector size lss, nil if there is
// none. The headers go-diskfs would trust are checked first, so that a
// corrupt count cannot make it allocate or loop without bound.
func (d *Device) readGPT(lss int) (*PartitionTable, error) {
	n := d.rawSize / int64(lss)
	if n < 3 {
		return nil, nil
	}
	for _, lba := range []int64{1, n - 1} {
		h := make([]byte, gptHeaderLen)
		if _, err := d.ReadAt(h, lba*int64(lss)); err != nil {
			return nil, err
		}
		if err := checkGPTHeader(h, d.rawSize, lss); err != nil {
			return nil, fmt.Errorf("io: %s: GPT header at LBA %d (sector size %d): %v: %w", d.path, lba, lss, err, ErrNoPartition)
		}
	}
	gt, err := gpt.Read(&tableReader{d: d}, lss, lss)
	if err != nil {
		return nil, nil
	}
	t := &PartitionTable{Kind: "gpt", SectorSize: lss, DiskID: gt.GUID}
	for _, p := range gt.Partitions {
		e := Partition{Index: p.Index, Table: "gpt", TypeGUID: strings.ToUpper(string(p.Type)), Name: p.Name}
		switch {
		case p.End < p.Start || p.Start == 0:
			e.Problem = fmt.Sprintf("first LBA %d, last LBA %d", p.Start, p.End)
		case p.End >= uint64(n):
			e.Problem = fmt.Sprintf("last LBA %d is past the end (%d sectors)", p.End, n)
		default:
			e.Start, e.Size = int64(p.Start)*int64(lss), int64(p.End-p.Start+1)*int64(lss)
		}
		t.Partitions = append(t.Partitions, e)
	}
	return t, nil
}

// checkGPTHeader rejects a header that is valid (signature and CRC) but
// whose entry array is implausible. Invalid headers pass: go-diskfs rejects
// them before it allocates anything.
func checkGPTHeader(h []byte, rawSize int64, lss int) error {
	if !validGPTHeader(h) {
		return nil
	}
	size := binary.LittleEndian.Uint32(h[gptEntrySize:])
	count := binary.LittleEndian.Uint32(h[gptEntryCount:])
	lba := binary.LittleEndian.Uint64(h[gptEntriesLBA:])
	switch {
	case size < 128 || size > maxGPTEntrySize || size%128 != 0:
		return fmt.Errorf("partition entry size %d at 0x%x: want a multiple of 128 up to %d", size, gptEntrySize, maxGPTEntrySize)
	case uint64(count)*uint64(size) > maxGPTArray:
		return fmt.Errorf("%d entries of %d bytes at 0x%x: more than %d bytes", count, size, gptEntryCount, maxGPTArray)
	case lba > uint64(rawSize)/uint64(lss) || lba*uint64(lss)+uint64(count)*uint64(size) > uint64(rawSize):
		return fmt.Errorf("entry array at LBA %d (0x%x) lies past the end of the disk", lba, gptEntriesLBA)
	}
	return nil
}

// validGPTHeader reports whether h starts with a GPT header whose CRC holds.
func validGPTHeader(h []byte) bool {
	if len(h) < gptHeaderLen || !bytes.Equal(h[:8], []byte("EFI PART")) {
		return false
	}
	c := bytes.Clone(h[:gptHeaderLen])
	want := binary.LittleEndian.Uint32(c[gptCRCOff:])
	clear(c[gptCRCOff : gptCRCOff+4])
	return crc32.ChecksumIEEE(c) == want
}

// find returns partition n, or an error naming the table and what it holds.
func (t *PartitionTable) find(path string, n int) (Partition, error) {
	var idx []string
	for _, p := range t.Partitions {
		if p.Index == n {
			if p.Problem != "" {
				return Partition{}, fmt.Errorf("io: %s: %s partition %d is unusable: %s: %w", path, strings.ToUpper(t.Kind), n, p.Problem, ErrNoPartition)
			}
			return p, nil
		}
		idx = append(idx, fmt.Sprint(p.Index))
	}
	held := fmt.Sprintf("%d partitions", len(t.Partitions))
	if len(t.Partitions) == 1 {
		held = "1 partition"
	}
	return Partition{}, fmt.Errorf("io: %s: partition %d not found: %s table (sector size %d) holds %s [%s]: %w",
		path, n, strings.ToUpper(t.Kind), t.SectorSize, held, strings.Join(idx, " "), ErrNoPartition)
}

// tableReader lets go-diskfs read the whole file or device through d, from
// byte base on (an extended boot record is read as an MBR at its sector).
type tableReader struct {
	d    *Device
	base int64
	pos  int64
}

func (r *tableReader) ReadAt(p []byte, off int64) (int, error) {
	off += r.base
	if off < 0 || off >= r.d.rawSize {
		return 0, goio.EOF
	}
	n := int(min(int64(len(p)), r.d.rawSize-off))
	if _, err := r.d.ReadAt(p[:n], off); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, goio.EOF
	}
	return n, nil
}

func (r *tableReader) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	return n, err
}

func (r *tableReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case goio.SeekStart:
	case goio.SeekCurrent:
		off += r.pos
	case goio.SeekEnd:
		off += r.d.rawSize - r.base
	default:
		return 0, errors.New("io: seek: bad whence")
	}
	if off < 0 {
		return 0, errors.New("io: seek: negative position")
	}
	r.pos = off
	return off, nil
}

func (r *tableReader) Stat() (fs.FileInfo, error) { return nil, errors.ErrUnsupported }
func (r *tableReader) Close() error               { return nil }
