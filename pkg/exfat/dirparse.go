package exfat

import (
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// Record is one member of a directory: a file's or directory's entry set
// and the slots it takes.
type Record struct {
	Name  string
	Set   EntrySet
	Slot  int   // index of the file directory entry
	Slots int   // entries of the set
	at    int64 // byte offset of the file entry on the volume; 0 if not known
}

// streamAt is the byte offset of the record's stream extension on the
// volume, -1 if not known.
func (r *Record) streamAt() int64 {
	if r.at <= 0 {
		return -1
	}
	return r.at + EntrySize
}

// IsDir reports whether the record is a directory.
func (r *Record) IsDir() bool { return r.Set.File.IsDir() }

// Size is the file's DataLength.
func (r *Record) Size() int64 { return int64(r.Set.Stream.DataLength) }

// Kinds of Problem found while parsing a directory.
const (
	KindSetChecksum = "set-checksum" // an entry set's checksum does not match its entries
	KindEntrySet    = "entry-set"    // an entry set's secondary count or entry types are wrong
	KindNameHash    = "name-hash"    // a stream extension's name hash does not match the name
	KindName        = "name"         // a name holds characters exFAT forbids, or is "." or ".."
	KindDirEntry    = "dir-entry"    // an entry of an unknown or misplaced type
	KindDuplicate   = "duplicate"    // two members of a directory have the same (up-cased) name
)

// dirProblem is something wrong found while parsing a directory.
type dirProblem struct {
	Slot int    // the entry concerned
	Kind string // one of the Kind constants above
	Err  error  // a *FormatError's Offset counts from the directory's start
	// Stream is the stream extension of a set that was skipped for its
	// checksum, when the entry after its file entry is one: the clusters
	// it names must not be taken for lost.
	Stream *StreamEntry
	// Slots is how many entries a set skipped for its checksum takes
	// (its secondary count and the file entry), for the repair that
	// deletes it.
	Slots int
}

// sysEntry is one of the root directory's entries that are not files: the
// allocation bitmap, the up-case table, the volume label, the volume GUID.
type sysEntry struct {
	slot int
	raw  []byte // the 32 bytes (a copy)
}

func (s sysEntry) typ() byte { return s.raw[0] }

// parsedDir is what parseDir found.
type parsedDir struct {
	recs   []*Record
	byName nameIndex // recs by up-cased name
	sys    []sysEntry
	probs  []dirProblem
	end    int // index of the first end-of-directory entry (len(raw)/32 if none)
}

// parseDir reads a directory's entries up to its end marker: entry sets,
// and (root only) the system entries. A set that does not decode is
// reported and skipped; it keeps its slots. Sets whose name repeats one
// seen before are reported and not returned. It never panics and reads no
// entry past raw.
func parseDir(raw []byte, up *Upcase, root bool) parsedDir {
	var pd parsedDir
	slots := len(raw) / EntrySize
	pd.end = slots
	pd.byName.Sized(fileEntries(raw))
	report := func(slot int, kind string, err error) {
		pd.probs = append(pd.probs, dirProblem{Slot: slot, Kind: kind, Err: err})
	}
	for i := 0; i < slots; {
		e := raw[i*EntrySize : (i+1)*EntrySize]
		t := e[0]
		switch {
		case t == TypeEndOfDirectory:
			pd.end = i
			return pd
		case t&typeInUse == 0:
			i++
		case t == TypeFile:
			s, n, err := DecodeEntrySet(raw[i*EntrySize:], int64(i*EntrySize))
			if err != nil {
				p := dirProblem{Slot: i, Kind: KindEntrySet, Err: err}
				if fe, ok := err.(*FormatError); ok && fe.Field == "set checksum" {
					p.Kind = KindSetChecksum
					p.Slots = n
					if st := raw[(i+1)*EntrySize:]; st[0] == TypeStream {
						se := DecodeStreamEntry(st)
						p.Stream = &se
					}
				}
				pd.probs = append(pd.probs, p)
				i += max(n, 1)
				continue
			}
			r := &Record{Name: decodeName(s.Name), Set: *s, Slot: i, Slots: n}
			if err := s.CheckNameHash(up, int64(i*EntrySize)); err != nil {
				report(i, KindNameHash, err)
			}
			if err := s.CheckName(int64(i * EntrySize)); err != nil {
				report(i, KindName, err)
			}
			if pd.byName.get(up, s.Name) != nil {
				// Not returned, but the clusters it names are not free
				// for the taking.
				st := s.Stream
				pd.probs = append(pd.probs, dirProblem{Slot: i, Kind: KindDuplicate, Stream: &st,
					Err: fmt.Errorf("%w: %q is a second member with the same name", ErrCorrupt, r.Name)})
			} else {
				pd.byName.add(up, r)
				pd.recs = append(pd.recs, r)
			}
			i += n
		case root && (t == TypeBitmap || t == TypeUpcase || t == TypeLabel || t == TypeGUID):
			pd.sys = append(pd.sys, sysEntry{slot: i, raw: append([]byte(nil), e...)})
			i++
		case t&typeSecondary == 0 && t&typeBenign != 0:
			// A benign primary entry ftools does not know (TexFAT
			// padding, ACL tables): skip it and its secondaries.
			i += 1 + int(e[offSecondaryCount])
		default:
			report(i, KindDirEntry, corruptf("directory", "entry type", int64(i*EntrySize), fmt.Sprintf("%#02x", t), "is not expected here"))
			i++
		}
	}
	return pd
}

// fileEntries counts the file entries before the end marker, as many as
// the members (fewer when some are damaged): what the name index is sized
// for.
func fileEntries(raw []byte) int {
	n := 0
	for i := 0; i+EntrySize <= len(raw) && raw[i] != TypeEndOfDirectory; i += EntrySize {
		if raw[i] == TypeFile {
			n++
		}
	}
	return n
}

// findFreeSlots returns the first run of n unused entries (InUse clear,
// the end marker included) at or after slot from, or -1. A run that fits
// in a sector of perSector entries never straddles two: a power cut may
// tear a write at any sector boundary, and half an entry set is a damaged
// directory, where a set within one sector is there whole or not at all.
func findFreeSlots(raw []byte, n, from, perSector int) int {
	free := func(i int) bool { return raw[i*EntrySize]&typeInUse == 0 }
	return fsutil.FreeSlots(len(raw)/EntrySize, n, from, perSector, free)
}
