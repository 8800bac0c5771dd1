package exfat

import (
	"encoding/binary"
	"fmt"
)

// Label returns the volume label from the root directory's label entry;
// "" when there is none or it is empty.
func (v *Volume) Label() (string, error) {
	s, _, err := v.RootLabel()
	return s, err
}

// RootLabel returns the volume label and whether the root holds a label
// entry with at least one character.
func (v *Volume) RootLabel() (string, bool, error) {
	root := v.root()
	i := root.sysIndex(TypeLabel)
	if i < 0 {
		return "", false, nil
	}
	e := root.sys[i]
	u, err := decodeLabel(e.raw, root.entryOffset(e.slot))
	if err != nil {
		return "", false, err
	}
	return decodeName(u), len(u) > 0, nil
}

// SetLabel sets the volume label: at most 11 UTF-16 code units, case kept,
// no control characters. "" empties the label, as exfatlabel does: the
// entry stays with no characters. A root without a label entry gets one in
// its first free entry.
func (v *Volume) SetLabel(s string) error {
	u, err := encodeLabelName(s)
	if err != nil {
		return err
	}
	if err := v.begin(); err != nil {
		return err
	}
	ent := make([]byte, EntrySize)
	encodeLabel(ent, u)
	return v.root().setSys(ent)
}

// VolumeGUID returns the volume GUID and whether the root holds a GUID
// entry.
func (v *Volume) VolumeGUID() ([16]byte, bool) {
	root := v.root()
	if i := root.sysIndex(TypeGUID); i >= 0 {
		return DecodeGUIDEntry(root.sys[i].raw).GUID, true
	}
	return [16]byte{}, false
}

// SetVolumeGUID sets (or, with nil, deletes) the volume GUID entry.
// Note that fsck.exfat before exfatprogs 1.2.2 reports a GUID entry as an
// unknown entry.
func (v *Volume) SetVolumeGUID(g *[16]byte) error {
	if err := v.begin(); err != nil {
		return err
	}
	root := v.root()
	i := root.sysIndex(TypeGUID)
	if g == nil {
		if i >= 0 {
			root.clearSlots(root.sys[i].slot, 1)
			root.sys = append(root.sys[:i], root.sys[i+1:]...)
		}
		return nil
	}
	ent := make([]byte, EntrySize)
	e := GUIDEntry{GUID: *g}
	e.Encode(ent)
	return root.setSys(ent)
}

// setSys rewrites the root's system entry of ent's type in place, or
// stores ent in a free entry when there is none.
func (d *dir) setSys(ent []byte) error {
	if i := d.sysIndex(ent[0]); i >= 0 {
		d.sys[i].raw = ent
		copy(d.raw[d.sys[i].slot*EntrySize:], ent)
		d.markDirty(d.sys[i].slot, 1)
		return nil
	}
	slot, err := d.put(ent)
	if err != nil {
		return err
	}
	d.sys = append(d.sys, sysEntry{slot: slot, raw: ent})
	return nil
}

// SetSerial changes the volume serial number in the main and backup boot
// regions (the number is covered by the boot checksum, so both checksum
// sectors are rewritten), as exfatlabel -i does.
func (v *Volume) SetSerial(serial uint32) error {
	if err := v.begin(); err != nil {
		return err
	}
	ss := int(v.layout.SectorSize)
	for _, off := range []int64{0, v.layout.BackupBootOffset} {
		region := make([]byte, bootRegionSectors*ss)
		if _, err := v.dev.ReadAt(region, off); err != nil {
			return fmt.Errorf("exfat: reading the boot region at byte %d: %w", off, err)
		}
		binary.LittleEndian.PutUint32(region[offSerial:], serial)
		sealBootRegion(region, ss)
		b := v.dev.NewBatch()
		if err := b.Write(off+offSerial, region[offSerial:offSerial+4]); err != nil {
			return err
		}
		if err := b.Write(off+int64(checksumSector*ss), region[checksumSector*ss:]); err != nil {
			return err
		}
		if err := b.Flush(); err != nil {
			return fmt.Errorf("exfat: writing the boot region at byte %d: %w", off, err)
		}
		if off == 0 {
			copy(v.raw[offSerial:], region[offSerial:offSerial+4])
			// The backup changes only once the main region is durable:
			// a cut between leaves one good region.
			if err := v.barrier(); err != nil {
				return err
			}
		}
	}
	v.boot.SerialNumber = serial
	return nil
}

// sysIndex is the index in d.sys of the first entry of type t, or -1.
func (d *dir) sysIndex(t byte) int {
	for i, s := range d.sys {
		if s.typ() == t {
			return i
		}
	}
	return -1
}

// entryOffset is the byte offset on the volume of entry slot.
func (d *dir) entryOffset(slot int) int64 { return entryOffsetIn(d.v.layout, d.exts, slot) }

// entryOffsetIn is the byte offset on the volume of entry slot of a
// directory whose clusters are exts, -1 when it lies past them.
func entryOffsetIn(l *Layout, exts []Extent, slot int) int64 {
	off, err := fileOffset(l, exts, int64(slot*EntrySize))
	if err != nil {
		return -1
	}
	return off
}
