package io

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// GPT header and entry fields that moving a partition's end changes.
const (
	gptMyLBA        = 24 // uint64: this header's LBA
	gptAlternateLBA = 32 // uint64: the other header's LBA
	gptLastUsable   = 48 // uint64: last LBA a partition may use
	gptEntriesCRC   = 88 // uint32: CRC32 of the entry array
	gptEntryLastLBA = 40 // uint64, in an entry: its last LBA
	mbrEntryStart   = 8  // uint32
	mbrEntrySize    = 12 // uint32
)

// PartitionRoom says where partition index of the whole disk d starts and
// the furthest its end may move to: the next partition's start (an
// extended partition's, for an MBR), or the end of the disk, less a GPT's
// backup array and header; atEnd says it is the disk's end (an image file
// that grows moves it). Logical partitions are not supported.
func PartitionRoom(d *Device, index int) (start, limit int64, atEnd bool, err error) {
	t, err := d.readTable()
	if err != nil {
		return 0, 0, false, err
	}
	p, err := t.find(d.path, index)
	if err != nil {
		return 0, 0, false, err
	}
	ss := int64(t.SectorSize)
	limit = d.rawSize / ss * ss
	switch t.Kind {
	case "mbr":
		if index > 4 {
			return 0, 0, false, fmt.Errorf("io: %s: partition %d is a logical partition, whose end fresize does not move", d.path, index)
		}
		sec0 := make([]byte, 512)
		if _, err := d.ReadAt(sec0, 0); err != nil {
			return 0, 0, false, err
		}
		for i := range 4 {
			e := sec0[mbrEntriesOff+i*mbrEntryLen:]
			s := int64(binary.LittleEndian.Uint32(e[mbrEntryStart:])) * ss
			if e[mbrTypeOff] != 0 && s > p.Start && s < limit {
				limit = s
			}
		}
		atEnd = limit == d.rawSize/ss*ss
		if max := (int64(p.Start/ss) + 0xFFFFFFFF) * ss; limit > max {
			limit = max
		}
	case "gpt":
		h := make([]byte, ss)
		if _, err := d.ReadAt(h, ss); err != nil {
			return 0, 0, false, err
		}
		// The backup array and header belong at the disk's end, which
		// for a grown image file lies past the old ones.
		limit = (d.rawSize/ss - 1 - int64(gptArraySectors(h, ss))) * ss
		atEnd = true
		for _, q := range t.Partitions {
			if q.Index != index && q.Start > p.Start && q.Start < limit {
				limit, atEnd = q.Start, false
			}
		}
	}
	return p.Start, limit, atEnd, nil
}

// gptArraySectors is the number of sectors a GPT header's entry array
// takes.
func gptArraySectors(h []byte, ss int64) int64 {
	n := int64(binary.LittleEndian.Uint32(h[gptEntryCount:])) * int64(binary.LittleEndian.Uint32(h[gptEntrySize:]))
	return (n + ss - 1) / ss
}

// ResizePartition moves the end of partition index (an MBR primary
// partition or a GPT entry) of the whole disk d so that it holds size
// bytes, within PartitionRoom. A GPT whose backup does not lie at the
// disk's end (an image file that grew) gets its backup array and header
// written there first, flushed, and the primary header then names them.
// Each header is written with its array in one batch and flushed: a cut
// leaves one of the two copies whole, which is what GPT readers fall back
// on.
func ResizePartition(d *Device, index int, size int64) error {
	start, limit, _, err := PartitionRoom(d, index)
	if err != nil {
		return err
	}
	t, err := d.readTable()
	if err != nil {
		return err
	}
	ss := int64(t.SectorSize)
	if size <= 0 || size%ss != 0 || start+size > limit {
		return fmt.Errorf("io: %s: partition %d cannot hold %d bytes: it may end at byte %d at most (the next partition, or the disk's end) and in whole %d-byte sectors", d.path, index, size, limit, ss)
	}
	if t.Kind == "mbr" {
		sec0 := make([]byte, 512)
		if _, err := d.ReadAt(sec0, 0); err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(sec0[mbrEntriesOff+(index-1)*mbrEntryLen+mbrEntrySize:], uint32(size/ss))
		if _, err := d.WriteAt(sec0, 0); err != nil {
			return fmt.Errorf("io: %s: writing the MBR: %w", d.path, err)
		}
		return d.Sync()
	}
	return resizeGPT(d, index, start, size, ss)
}

// resizeGPT sets entry index's last LBA in both arrays, moving the backup
// to the disk's end when it is not there.
func resizeGPT(d *Device, index int, start, size, ss int64) error {
	h := make([]byte, ss)
	if _, err := d.ReadAt(h, ss); err != nil {
		return err
	}
	if !validGPTHeader(h) {
		return fmt.Errorf("io: %s: the primary GPT header is not valid: repair the table first", d.path)
	}
	arr := make([]byte, gptArraySectors(h, ss)*ss)
	arrLBA := int64(binary.LittleEndian.Uint64(h[gptEntriesLBA:]))
	if _, err := d.ReadAt(arr, arrLBA*ss); err != nil {
		return err
	}
	esz := int64(binary.LittleEndian.Uint32(h[gptEntrySize:]))
	if int64(index)*esz > int64(len(arr)) {
		return fmt.Errorf("io: %s: GPT entry %d is past the array", d.path, index)
	}
	entry := arr[int64(index-1)*esz:]
	binary.LittleEndian.PutUint64(entry[gptEntryLastLBA:], uint64((start+size)/ss-1))
	n := int64(len(arr)) / ss
	last := d.rawSize/ss - 1
	lastUsable := last - n - 1
	arrCRC := crc32.ChecksumIEEE(arr[:int64(binary.LittleEndian.Uint32(h[gptEntryCount:]))*esz])
	// The backup: at the disk's end, naming the primary.
	b := make([]byte, ss)
	copy(b, h)
	le := binary.LittleEndian
	le.PutUint64(b[gptMyLBA:], uint64(last))
	le.PutUint64(b[gptAlternateLBA:], 1)
	le.PutUint64(b[gptLastUsable:], uint64(lastUsable))
	le.PutUint64(b[gptEntriesLBA:], uint64(last-n))
	le.PutUint32(b[gptEntriesCRC:], arrCRC)
	sealGPTHeader(b)
	batch := d.NewBatch()
	if err := errors.Join(batch.Write((last-n)*ss, arr), batch.Write(last*ss, b), batch.Flush()); err != nil {
		return fmt.Errorf("io: %s: writing the backup GPT: %w", d.path, err)
	}
	if err := d.Sync(); err != nil {
		return err
	}
	le.PutUint64(h[gptAlternateLBA:], uint64(last))
	le.PutUint64(h[gptLastUsable:], uint64(lastUsable))
	le.PutUint32(h[gptEntriesCRC:], arrCRC)
	sealGPTHeader(h)
	batch = d.NewBatch()
	if err := errors.Join(batch.Write(arrLBA*ss, arr), batch.Write(ss, h), batch.Flush()); err != nil {
		return fmt.Errorf("io: %s: writing the primary GPT: %w", d.path, err)
	}
	if err := d.Sync(); err != nil {
		return err
	}
	// The protective MBR covers the disk (saturated past 2 TiB).
	sec0 := make([]byte, 512)
	if _, err := d.ReadAt(sec0, 0); err != nil {
		return err
	}
	if sec0[mbrEntriesOff+mbrTypeOff] == mbrProtective {
		le.PutUint32(sec0[mbrEntriesOff+mbrEntrySize:], uint32(min(last, 0xFFFFFFFF)))
		if _, err := d.WriteAt(sec0, 0); err != nil {
			return err
		}
		return d.Sync()
	}
	return nil
}

// sealGPTHeader sets a header's CRC.
func sealGPTHeader(h []byte) {
	binary.LittleEndian.PutUint32(h[gptCRCOff:], 0)
	binary.LittleEndian.PutUint32(h[gptCRCOff:], crc32.ChecksumIEEE(h[:gptHeaderLen]))
}
