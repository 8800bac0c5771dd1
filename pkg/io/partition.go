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

// Layout of sector 0 (MBR or FAT boot sector) and of a GPT header.
const (
	bootSigOff      = 510 // 0x55 0xAA
	bpbJumpOff      = 0   // 0xEB or 0xE9 in a FAT boot sector
	bpbBytesPerSec  = 11  // uint16
	gptHeaderLen    = 92
	gptCRCOff       = 16 // uint32, computed with itself zeroed
	gptEntriesLBA   = 72 // uint64
	gptEntryCount   = 80 // uint32
	gptEntrySize    = 84 // uint32
	maxGPTEntrySize = 4096
	maxGPTArray     = 4 << 20 // bytes of partition entries we agree to read
)

// partEntry is one used partition slot, in absolute bytes.
type partEntry struct {
	index       int
	start, size int64
	bad         string // why the entry cannot be used, "" if fine
}

// partTable is what readTable found.
type partTable struct {
	kind       string // "mbr" or "gpt"
	sectorSize int    // the logical sector size its LBAs count
	parts      []partEntry
}

// isFATBootSector reports whether sector 0 looks like a FAT boot sector
// rather than an MBR: boot signature, a jump instruction and a plausible
// bytes-per-sector field.
func isFATBootSector(b []byte) bool {
	if len(b) < 512 || b[bootSigOff] != 0x55 || b[bootSigOff+1] != 0xAA {
		return false
	}
	if b[bpbJumpOff] != 0xEB && b[bpbJumpOff] != 0xE9 {
		return false
	}
	bps := binary.LittleEndian.Uint16(b[bpbBytesPerSec:])
	return bps >= 512 && bps <= 4096 && bps&(bps-1) == 0
}

// readTable reads the MBR or GPT of the whole file or device (d.start must
// still be 0). Errors wrap ErrNoPartition when there is no usable table.
func (d *Device) readTable() (*partTable, error) {
	if d.rawSize < 512 {
		return nil, fmt.Errorf("io: %s: %d bytes, too small for a partition table: %w", d.path, d.rawSize, ErrNoPartition)
	}
	sec0 := make([]byte, 512)
	if _, err := d.ReadAt(sec0, 0); err != nil {
		return nil, err
	}
	if isFATBootSector(sec0) {
		return nil, fmt.Errorf("io: %s: sector 0 holds a FAT boot sector, so there is no partition table: %w", d.path, ErrNoPartition)
	}
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
	if sec0[bootSigOff] != 0x55 || sec0[bootSigOff+1] != 0xAA {
		return nil, fmt.Errorf("io: %s: no MBR or GPT partition table found: %w", d.path, ErrNoPartition)
	}
	mt, err := mbr.Read(&tableReader{d: d}, d.sectorSize, d.sectorSize)
	if err != nil {
		return nil, fmt.Errorf("io: %s: sector 0 has a boot signature but no valid MBR (%v): %w", d.path, err, ErrNoPartition)
	}
	// go-diskfs v1.9.4 reports MBR starts in 512-byte units whatever the
	// sector size, so use the raw LBAs with the device's sector size.
	lss := int64(d.sectorSize)
	t := &partTable{kind: "mbr", sectorSize: d.sectorSize}
	for _, p := range mt.Partitions {
		if p.Type == mbr.Empty || p.Size == 0 {
			continue
		}
		e := partEntry{index: p.Index, start: int64(p.Start) * lss, size: int64(p.Size) * lss}
		switch {
		case p.Start == 0:
			e.bad = "starts at sector 0 (over the table itself)"
		case e.start+e.size > d.rawSize:
			e.bad = fmt.Sprintf("sectors %d+%d end past the end of the disk (%d bytes)", p.Start, p.Size, d.rawSize)
		}
		t.parts = append(t.parts, e)
	}
	return t, nil
}

// readGPT returns the GPT read with logical sector size lss, nil if there is
// none. The headers go-diskfs would trust are checked first, so that a
// corrupt count cannot make it allocate or loop without bound.
func (d *Device) readGPT(lss int) (*partTable, error) {
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
	t := &partTable{kind: "gpt", sectorSize: lss}
	for _, p := range gt.Partitions {
		e := partEntry{index: p.Index}
		switch {
		case p.End < p.Start || p.Start == 0:
			e.bad = fmt.Sprintf("first LBA %d, last LBA %d", p.Start, p.End)
		case p.End >= uint64(n):
			e.bad = fmt.Sprintf("last LBA %d is past the end (%d sectors)", p.End, n)
		default:
			e.start, e.size = int64(p.Start)*int64(lss), int64(p.End-p.Start+1)*int64(lss)
		}
		t.parts = append(t.parts, e)
	}
	return t, nil
}

// checkGPTHeader rejects a header that is valid (signature and CRC) but
// whose entry array is implausible. Invalid headers pass: go-diskfs rejects
// them before it allocates anything.
func checkGPTHeader(h []byte, rawSize int64, lss int) error {
	if !bytes.Equal(h[:8], []byte("EFI PART")) {
		return nil
	}
	c := bytes.Clone(h[:gptHeaderLen])
	want := binary.LittleEndian.Uint32(c[gptCRCOff:])
	clear(c[gptCRCOff : gptCRCOff+4])
	if crc32.ChecksumIEEE(c) != want {
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

// find returns partition n, or an error naming the table and what it holds.
func (t *partTable) find(path string, n int) (partEntry, error) {
	var idx []string
	for _, p := range t.parts {
		if p.index == n {
			if p.bad != "" {
				return partEntry{}, fmt.Errorf("io: %s: %s partition %d is unusable: %s: %w", path, t.kind, n, p.bad, ErrNoPartition)
			}
			return p, nil
		}
		idx = append(idx, fmt.Sprint(p.index))
	}
	return partEntry{}, fmt.Errorf("io: %s: partition %d not found: %s table (sector size %d) holds %d partitions [%s]: %w",
		path, n, strings.ToUpper(t.kind), t.sectorSize, len(t.parts), strings.Join(idx, " "), ErrNoPartition)
}

// tableReader lets go-diskfs read the whole file or device through d.
type tableReader struct {
	d   *Device
	pos int64
}

func (r *tableReader) ReadAt(p []byte, off int64) (int, error) {
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
		off += r.d.rawSize
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
