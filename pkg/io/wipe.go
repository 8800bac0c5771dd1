package io

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Signature is an on-disk structure that WipeSignatures found and cleared.
type Signature struct {
	Name   string `json:"name"`   // what it was, as blkid would name it ("ext4 superblock", "GPT header")
	Offset int64  `json:"offset"` // byte offset in the volume window
	Size   int64  `json:"size"`   // bytes cleared
}

// Where the probed structures live, from the start of the range.
const (
	wipeHead       = 132 << 10 // the bytes read at the start: every probe below lies in them
	extSuperOff    = 1024
	extMagicOff    = 0x38 // uint16 0xEF53, within the superblock
	extLogBlockOff = 0x18 // uint32: block size is 1024 << this
	extPerGroupOff = 0x20 // uint32 blocks per group
	extFirstOff    = 0x14 // uint32 first data block
	btrfsSuperOff  = 64 << 10
	btrfsMagicOff  = 0x40 // "_BHRfS_M" within the superblock
	btrfsSuperLen  = 4096
	isoFirstOff    = 32 << 10 // the first volume descriptor (sector 16 of 2048 bytes)
	isoDescLen     = 2048
	isoMaxDescs    = 32
	mdMagic        = 0xa92b4efc // MD superblock 1.x, at byte 0 (1.1) or 4096 (1.2)
	mdSuperLen     = 1024
)

// isoIDs are the volume descriptor names of ISO 9660 and UDF.
var isoIDs = []string{"CD001", "BEA01", "NSR02", "NSR03", "TEA01", "BOOT2", "CDW02"}

// btrfsMirrors are the byte offsets of btrfs's superblock copies.
var btrfsMirrors = []int64{btrfsSuperOff, 64 << 20, 256 << 30}

// WipeSignatures clears, inside d's volume window and nowhere else, the
// signatures that blkid and wipefs would still find there after a new file
// system is written: FAT, exFAT and NTFS boot sectors and their backups
// (sector 6, sector 12, the last sector), an MBR, GPT headers and their
// entry arrays (LBA 1 and the last LBA, for 512- and 4096-byte sectors),
// ext2/3/4 superblocks (the primary and the backups of groups 1, 3, 5, 7
// and 9), btrfs superblocks and their mirrors, ISO 9660 and UDF volume
// descriptors, swap, LVM2 and MD (1.1, 1.2) headers. Only what is found is
// written, as zeros, in one batch; what was cleared is returned.
func WipeSignatures(d *Device) ([]Signature, error) {
	w := &wiper{d: d}
	if err := w.probe(); err != nil {
		return nil, err
	}
	return w.flush()
}

// wipeGPT clears the GPT headers and entry arrays of the whole disk d.
func wipeGPT(d *Device) ([]Signature, error) {
	w := &wiper{d: d}
	head, err := w.read(0, min(d.size, 8192))
	if err != nil {
		return nil, err
	}
	if err := w.gpt(head); err != nil {
		return nil, err
	}
	return w.flush()
}

type wiper struct {
	d     *Device
	found []Signature
}

func (w *wiper) add(name string, off, n int64) {
	if off < 0 || n <= 0 || off >= w.d.size {
		return
	}
	w.found = append(w.found, Signature{Name: name, Offset: off, Size: min(n, w.d.size-off)})
}

// read returns n bytes at off, or fewer when the window ends first.
func (w *wiper) read(off, n int64) ([]byte, error) {
	if off >= w.d.size || n <= 0 {
		return nil, nil
	}
	b := make([]byte, min(n, w.d.size-off))
	if _, err := w.d.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("io: %s: looking for old signatures: %w", w.d.path, err)
	}
	return b, nil
}

// at returns head[off:off+n], or nil when head is shorter.
func at(head []byte, off, n int64) []byte {
	if off < 0 || off+n > int64(len(head)) {
		return nil
	}
	return head[off : off+n]
}

func (w *wiper) probe() error {
	head, err := w.read(0, wipeHead)
	if err != nil {
		return err
	}
	w.bootSectors(head)
	if err := w.gpt(head); err != nil {
		return err
	}
	if err := w.ext(head); err != nil {
		return err
	}
	if err := w.btrfs(); err != nil {
		return err
	}
	for off := int64(isoFirstOff); off < isoFirstOff+isoMaxDescs*isoDescLen; off += isoDescLen {
		b := at(head, off+1, 5)
		if b == nil || !slices.Contains(isoIDs, string(b)) {
			break
		}
		w.add("ISO 9660/UDF volume descriptor", off, isoDescLen)
	}
	for page := int64(4096); page <= 65536; page *= 2 {
		if b := at(head, page-10, 10); b != nil && (string(b) == "SWAPSPACE2" || string(b) == "SWAP-SPACE") {
			w.add("swap signature", page-10, 10)
		}
	}
	for s := int64(0); s < 4; s++ {
		if b := at(head, s*512, 32); b != nil && string(b[:8]) == "LABELONE" && string(b[24:32]) == "LVM2 001" {
			w.add("LVM2 label", s*512, 512)
		}
	}
	for _, off := range []int64{0, 4096} {
		if b := at(head, off, 4); b != nil && binary.LittleEndian.Uint32(b) == mdMagic {
			w.add("MD RAID superblock", off, mdSuperLen)
		}
	}
	return nil
}

// bootSectors finds FAT, exFAT and NTFS boot sectors (or an MBR) at the
// start, their backups at sector 6 (FAT32) and 12 (exFAT) for every sector
// size, and NTFS's backup in the last sector.
func (w *wiper) bootSectors(head []byte) {
	if b := at(head, 0, 512); b != nil && b[bootSigOff] == 0x55 && b[bootSigOff+1] == 0xAA {
		w.add(bootName(b), 0, 512)
	}
	for ss := int64(512); ss <= 4096; ss *= 2 {
		if b := at(head, 6*ss, 512); b != nil && isBootSector(b) && int64(binary.LittleEndian.Uint16(b[bpbBytesPerSec:])) == ss {
			w.add("FAT backup boot sector", 6*ss, 512)
		}
		if b := at(head, 12*ss, 512); b != nil && isBootSector(b) && string(b[bpbOEMOff:bpbOEMOff+8]) == "EXFAT   " {
			w.add("exFAT backup boot sector", 12*ss, 512)
		}
	}
}

func bootName(b []byte) string {
	switch {
	case string(b[bpbOEMOff:bpbOEMOff+8]) == "EXFAT   ":
		return "exFAT boot sector"
	case string(b[bpbOEMOff:bpbOEMOff+8]) == "NTFS    ":
		return "NTFS boot sector"
	case isBootSector(b):
		return "FAT boot sector"
	}
	return "MBR"
}

// gpt finds GPT headers at LBA 1 and in the last sector, for 512- and
// 4096-byte sectors, with the entry arrays they name, and the NTFS backup
// boot sector in the last sector.
func (w *wiper) gpt(head []byte) error {
	for _, lss := range []int64{512, 4096} {
		if h := at(head, lss, gptHeaderLen); h != nil && bytes.Equal(h[:8], []byte("EFI PART")) {
			w.add("GPT header", lss, lss)
			w.gptArray(h, lss)
		}
	}
	tailLen := min(w.d.size, 4096)
	tail, err := w.read(w.d.size-tailLen, tailLen)
	if err != nil {
		return err
	}
	for _, lss := range []int64{512, 4096} {
		off := w.d.size - lss
		if off < 2*lss {
			continue
		}
		h := at(tail, tailLen-lss, 512)
		if h == nil {
			continue
		}
		switch {
		case bytes.Equal(h[:8], []byte("EFI PART")):
			w.add("GPT backup header", off, lss)
			w.gptArray(h, lss)
		case isBootSector(h) && string(h[bpbOEMOff:bpbOEMOff+8]) == "NTFS    ":
			w.add("NTFS backup boot sector", off, 512)
		}
	}
	return nil
}

// gptArray adds the entry array a GPT header names, when it lies inside
// the window and has a plausible size.
func (w *wiper) gptArray(h []byte, lss int64) {
	lba := binary.LittleEndian.Uint64(h[gptEntriesLBA:])
	n := int64(binary.LittleEndian.Uint32(h[gptEntryCount:])) * int64(binary.LittleEndian.Uint32(h[gptEntrySize:]))
	if n <= 0 || n > maxGPTArray || lba > uint64(w.d.size/lss) {
		return
	}
	off := int64(lba) * lss
	if off+n <= w.d.size {
		w.add("GPT partition entries", off, n)
	}
}

// ext finds the ext2/3/4 superblock and the backups a sparse file system
// keeps in groups 1, 3, 5, 7 and 9.
func (w *wiper) ext(head []byte) error {
	sb := at(head, extSuperOff, 1024)
	if sb == nil || binary.LittleEndian.Uint16(sb[extMagicOff:]) != 0xEF53 {
		return nil
	}
	w.add("ext2/3/4 superblock", extSuperOff, 1024)
	logBS := binary.LittleEndian.Uint32(sb[extLogBlockOff:])
	perGroup := int64(binary.LittleEndian.Uint32(sb[extPerGroupOff:]))
	first := int64(binary.LittleEndian.Uint32(sb[extFirstOff:]))
	if logBS > 6 || perGroup <= 0 || perGroup > 1<<20 {
		return nil
	}
	bs := int64(1024) << logBS
	for _, g := range []int64{1, 3, 5, 7, 9} {
		off := (first + g*perGroup) * bs // the group's first block holds the copy
		b, err := w.read(off, 1024)
		if err != nil {
			return err
		}
		if len(b) < 1024 {
			break
		}
		if binary.LittleEndian.Uint16(b[extMagicOff:]) == 0xEF53 {
			w.add("ext2/3/4 backup superblock", off, 1024)
		}
	}
	return nil
}

// btrfs finds the btrfs superblock and its mirrors.
func (w *wiper) btrfs() error {
	for _, off := range btrfsMirrors {
		b, err := w.read(off+btrfsMagicOff, 8)
		if err != nil {
			return err
		}
		if string(b) == "_BHRfS_M" {
			w.add("btrfs superblock", off, btrfsSuperLen)
		}
	}
	return nil
}

// flush writes zeros over everything found, in one batch.
func (w *wiper) flush() ([]Signature, error) {
	if len(w.found) == 0 {
		return nil, nil
	}
	b := w.d.NewBatch()
	for _, s := range w.found {
		if err := b.Write(s.Offset, make([]byte, s.Size)); err != nil {
			return nil, fmt.Errorf("io: %s: clearing the old %s at byte %d: %w", w.d.path, s.Name, s.Offset, err)
		}
	}
	if err := b.Flush(); err != nil {
		return nil, fmt.Errorf("io: %s: clearing old signatures: %w", w.d.path, err)
	}
	return w.found, nil
}
