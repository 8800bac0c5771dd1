package fat

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Label returns the volume label: the root directory's label entry when
// there is one (that is what Windows, Linux and mtools show), else the boot
// sector's. Both are decoded from the OEM code page (850 unless
// SetCodePage chose another), as mkfs.fat and mlabel write them. It is "" for a volume without a label.
func (v *Volume) Label() (string, error) {
	root, err := v.rootDir()
	if err != nil {
		return "", err
	}
	if r := root.labelRecord(); r != nil {
		return decodeLabel(r.Entry.Name), nil
	}
	return v.boot.Label(), nil
}

// RootLabel returns the label entry of the root directory, and false when
// there is none.
func (v *Volume) RootLabel() (string, bool, error) {
	root, err := v.rootDir()
	if err != nil {
		return "", false, err
	}
	if r := root.labelRecord(); r != nil {
		return decodeLabel(r.Entry.Name), true, nil
	}
	return "", false, nil
}

// SetLabel sets the volume label in the boot sector (and the FAT32 backup
// boot sector) and in the root directory's label entry, which it creates
// when missing. The label is upper-cased and must fit 11 bytes without the
// characters mkfs.fat refuses; "" (or only spaces) removes the label: the
// entry is deleted and the boot sector says "NO NAME".
// The label is checked as encodeLabel checks it (ASCII only).
func (v *Volume) SetLabel(s string) error {
	raw, err := encodeLabel(s, true)
	if err != nil {
		return err
	}
	if err := v.begin(); err != nil {
		return err
	}
	root, err := v.rootDir()
	if err != nil {
		return err
	}
	clearing := string(raw[:]) == noLabel
	r := root.labelRecord()
	switch {
	case clearing && r != nil:
		root.remove(r)
	case !clearing && r != nil:
		root.shorts.Remove(r.Short)
		r.Short, r.Entry.Name = labelShort(raw), labelShort(raw)
		r.Name = decodeLabel(r.Entry.Name)
		now := v.Now()
		r.Entry.ModDate, r.Entry.ModTime, _ = ToDOSTime(now)
		root.shorts.Add(r.Short)
		root.update(r)
	case !clearing:
		e := DirEntry{Name: labelShort(raw), Attr: AttrVolumeID}
		now := v.Now()
		e.SetTimes(now, now, now)
		if err := root.addLabel(e); err != nil {
			return err
		}
	}
	if v.boot.BootSig == ExtBootSig {
		v.boot.VolumeLabel = raw
		v.labelDirty = true
	}
	return nil
}

// writeLabel puts the label into the boot sector and, on FAT32, into the
// backup boot sector, once the root directory's label entry is durable
// (Commit): the entry is what readers show, and fsck.fat copies it into
// the boot sector, so a cut leaves either label whole. A boot sector
// without the extended signature has no label field; only the root entry
// holds the label then.
func (v *Volume) writeLabel() error {
	if !v.labelDirty {
		return nil
	}
	v.labelDirty = false
	v.metaWritten = true
	raw := v.boot.VolumeLabel
	if err := v.writeBoot(); err != nil {
		return err
	}
	off := v.layout.BackupBootOffset
	if v.layout.Type != FAT32 || off == 0 {
		return nil
	}
	b := make([]byte, v.layout.SectorSize)
	if _, err := v.dev.ReadAt(b, off); err != nil {
		return fmt.Errorf("fat: reading the backup boot sector at byte %d: %w", off, err)
	}
	bs, err := DecodeBootSector(b)
	if err != nil || bs.BootSig != v.boot.BootSig {
		// A damaged backup is fverify's to report; leave it as it is.
		return nil
	}
	bs.VolumeID = v.boot.VolumeID
	if bs.BootSig == ExtBootSig {
		bs.VolumeLabel = raw
	}
	bs.EncodeOver(b)
	if _, err := v.dev.WriteAt(b, off); err != nil {
		return fmt.Errorf("fat: writing the backup boot sector at byte %d: %w", off, err)
	}
	return nil
}

// SetVolumeID sets the volume serial number (volume id) in the boot
// sector and the FAT32 backup boot sector, as mlabel -N does; like the
// label, it is written when the volume is committed.
func (v *Volume) SetVolumeID(id uint32) error {
	if v.boot.BootSig != ExtBootSig && v.boot.BootSig != extBootSigOld {
		return &FormatError{Structure: "boot sector", Field: "extended boot signature", Offset: -1,
			Value: fmt.Sprintf("%#02x", v.boot.BootSig), Msg: "the boot sector has no volume id field", Err: ErrCorrupt}
	}
	if err := v.begin(); err != nil {
		return err
	}
	v.boot.VolumeID = id
	v.labelDirty = true
	return nil
}

// encodeLabel encodes the label in the OEM code page (850 unless
// SetCodePage chose another, as mkfs.fat --codepage), upper-cased when
// upper says so (SetLabel, as mlabel; Plan keeps the case, as mkfs.fat
// does), refusing what mkfs.fat refuses. Every label ftools writes goes
// through it.
//
// Labels are ASCII only: code page 850 could hold more, but fsck.fat 4.2
// (and mkfs.fat) compare the label's bytes as signed chars, so every byte
// from 0x80 up counts as a control character and fsck removes the label.
func encodeLabel(s string, upper bool) ([11]byte, error) {
	var out [11]byte
	copy(out[:], noLabel)
	if strings.TrimRight(s, " ") == "" {
		return out, nil
	}
	up := s
	if upper {
		up = strings.ToUpper(s)
	}
	if n := utf8.RuneCountInString(up); n > 11 {
		return out, paramErrorf("label %q has %d characters: at most 11 fit", s, n)
	}
	enc, err := oem().NewEncoder().String(up)
	if err != nil {
		return out, paramErrorf("label %q has characters code page %d cannot hold", s, CodePage())
	}
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return out, paramErrorf("label %q holds %q: only ASCII characters make a label fsck.fat accepts", s, c)
		}
	}
	if enc[0] == ' ' {
		return out, paramErrorf("label %q starts with a space", s)
	}
	for i := 0; i < len(enc); i++ {
		if c := enc[i]; c < 0x20 || strings.IndexByte(`*?.,;:/\|+=<>[]"`, c) >= 0 {
			return out, paramErrorf("label %q holds %q: control characters and *?.,;:/\\|+=<>[]\" are not allowed", s, rune(c))
		}
	}
	copy(out[:], enc+"           ")
	return out, nil
}

// labelShort is the label as a directory entry name: a first byte of 0xE5
// (Õ in code page 850) is stored as 0x05, since 0xE5 marks a deleted slot.
func labelShort(raw [11]byte) ShortName {
	if raw[0] == SlotDeleted {
		raw[0] = SlotKanjiE5
	}
	return ShortName(raw)
}

// decodeLabel decodes a label entry's name from the OEM code page without
// its trailing spaces.
func decodeLabel(n [11]byte) string {
	if n[0] == SlotKanjiE5 {
		n[0] = SlotDeleted
	}
	return decodeOEMLabel(n[:])
}

// labelRecord is the directory's volume label entry, or nil.
func (d *dir) labelRecord() *Record {
	for _, r := range d.recs {
		if r != nil && r.Entry.IsLabel() {
			return r
		}
	}
	return nil
}

// addLabel stores a volume label entry (one slot, no long name) in the
// first free slot, growing the directory where it can.
func (d *dir) addLabel(e DirEntry) error {
	pos, err := d.freeRun(1)
	if err != nil {
		return err
	}
	d.dropOrphansBefore(pos)
	e.Encode(d.raw[pos*DirEntrySize:])
	d.markDirty(pos, 1)
	if pos+1 > d.end {
		d.end = pos + 1
		if d.end < len(d.raw)/DirEntrySize {
			clear(d.raw[d.end*DirEntrySize : (d.end+1)*DirEntrySize])
			d.markDirty(d.end, 1)
		}
	}
	if pos == d.hint {
		d.hint = pos + 1
	}
	r := &Record{Name: decodeLabel(e.Name), Short: ShortName(e.Name), Entry: e, Slot: pos, Slots: 1}
	d.insertSorted(r)
	d.shorts.Add(r.Short)
	return nil
}
