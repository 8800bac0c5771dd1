package exfat

import (
	"fmt"
)

// Limits of a file's entry set (exFAT specification 7.4.1): the file entry,
// the stream extension, 1 to 17 file name entries, and benign secondary
// entries (vendor extensions) which ftools keeps as they are.
const minSecondaries = 2

// EntrySet is a file's or directory's entry set.
type EntrySet struct {
	File   FileEntry
	Stream StreamEntry
	Name   []uint16 // the name in UTF-16, Stream.NameLength code units
	Extra  [][]byte // benign secondary entries after the names, 32 bytes each, as read
}

// nameEntries is the number of file name entries n code units need.
func nameEntries(n int) int { return (n + charsPerEntry - 1) / charsPerEntry }

// Entries is the number of directory entries the set takes.
func (s *EntrySet) Entries() int { return 2 + nameEntries(len(s.Name)) + len(s.Extra) }

// Encode returns the set's entries with SecondaryCount, NameLength,
// NameHash (by up) and SetChecksum filled in.
func (s *EntrySet) Encode(up *Upcase) []byte {
	n := s.Entries()
	b := make([]byte, n*EntrySize)
	s.File.SecondaryCount = uint8(n - 1)
	s.Stream.NameLength = uint8(len(s.Name))
	s.Stream.NameHash = up.NameHash(s.Name)
	s.File.Encode(b)
	s.Stream.Encode(b[EntrySize:])
	for i := 0; i < nameEntries(len(s.Name)); i++ {
		chunk := s.Name[i*charsPerEntry : min((i+1)*charsPerEntry, len(s.Name))]
		encodeNameEntry(b[(2+i)*EntrySize:], chunk)
	}
	pos := (2 + nameEntries(len(s.Name))) * EntrySize
	for _, x := range s.Extra {
		copy(b[pos:pos+EntrySize], x)
		pos += EntrySize
	}
	s.File.SetChecksum = SetChecksum(b)
	b[offSetChecksum] = byte(s.File.SetChecksum)
	b[offSetChecksum+1] = byte(s.File.SetChecksum >> 8)
	return b
}

// DecodeEntrySet decodes the entry set that starts at raw[0] (a file
// directory entry, 0x85) and returns it with the number of entries it
// takes. off is raw[0]'s byte offset on the volume, for errors. It checks
// what makes the set readable: the secondary count, the entry types, the
// name length and the set checksum. The name hash is checked by
// CheckNameHash, since a reader can still use a set whose hash is wrong.
// raw may extend past the set; entries past raw are an error, never read.
func DecodeEntrySet(raw []byte, off int64) (*EntrySet, int, error) {
	if len(raw) < EntrySize || raw[0] != TypeFile {
		return nil, 0, corruptf("entry set", "entry type", off, fmt.Sprintf("%#02x", firstByte(raw)), "is not a file directory entry (0x85)")
	}
	sc := int(raw[offSecondaryCount])
	n := sc + 1
	if sc < minSecondaries {
		return nil, 1, corruptf("entry set", "secondary count", off+offSecondaryCount, sc, "is below %d", minSecondaries)
	}
	if n*EntrySize > len(raw) {
		return nil, 1, corruptf("entry set", "secondary count", off+offSecondaryCount, sc, "runs past the end of the directory")
	}
	set := raw[:n*EntrySize]
	if got, want := uint16(set[offSetChecksum])|uint16(set[offSetChecksum+1])<<8, SetChecksum(set); got != want {
		return nil, n, corruptf("entry set", "set checksum", off+offSetChecksum, fmt.Sprintf("%#04x", got), "does not match the entries' checksum %#04x", want)
	}
	if set[EntrySize] != TypeStream {
		return nil, n, corruptf("entry set", "entry type", off+EntrySize, fmt.Sprintf("%#02x", set[EntrySize]), "is not a stream extension entry (0xc0)")
	}
	s := &EntrySet{File: DecodeFileEntry(set), Stream: DecodeStreamEntry(set[EntrySize:])}
	nl := int(s.Stream.NameLength)
	ne := nameEntries(nl)
	if nl == 0 || ne > sc-1 {
		return nil, n, corruptf("entry set", "name length", off+EntrySize+offNameLength, nl, "needs %d file name entries but the set has %d secondary entries after the stream", ne, sc-1)
	}
	name := make([]uint16, 0, ne*charsPerEntry)
	for i := range ne {
		e := set[(2+i)*EntrySize:]
		if e[0] != TypeName {
			return nil, n, corruptf("entry set", "entry type", off+int64((2+i)*EntrySize), fmt.Sprintf("%#02x", e[0]), "is not a file name entry (0xc1)")
		}
		name = decodeNameChars(name, e)
	}
	s.Name = name[:nl]
	for i := 2 + ne; i < n; i++ {
		e := set[i*EntrySize : (i+1)*EntrySize]
		if e[0]&(typeInUse|typeSecondary) != typeInUse|typeSecondary || e[0]&typeBenign == 0 {
			return nil, n, corruptf("entry set", "entry type", off+int64(i*EntrySize), fmt.Sprintf("%#02x", e[0]), "is not a benign secondary entry")
		}
		s.Extra = append(s.Extra, append([]byte(nil), e...))
	}
	return s, n, nil
}

// CheckNameHash reports an error when the stream extension's NameHash is
// not the hash of the name under up. off is the set's byte offset.
func (s *EntrySet) CheckNameHash(up *Upcase, off int64) error {
	if want := up.NameHash(s.Name); s.Stream.NameHash != want {
		return corruptf("entry set", "name hash", off+EntrySize+offNameHash, fmt.Sprintf("%#04x", s.Stream.NameHash), "is not the name's hash %#04x", want)
	}
	return nil
}

// CheckName reports an error when the stored name holds characters exFAT
// does not allow, or is "." or "..". off is the set's byte offset.
func (s *EntrySet) CheckName(off int64) error {
	for i, c := range s.Name {
		if invalidNameChar(c) {
			return corruptf("entry set", "file name", off+int64(2*EntrySize+i/charsPerEntry*EntrySize+offNameChars+2*(i%charsPerEntry)),
				fmt.Sprintf("%q", decodeName(s.Name)), "holds the invalid character %#04x", c)
		}
	}
	if n := decodeName(s.Name); n == "." || n == ".." {
		return corruptf("entry set", "file name", off+2*EntrySize, fmt.Sprintf("%q", n), "is not allowed")
	}
	return nil
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
