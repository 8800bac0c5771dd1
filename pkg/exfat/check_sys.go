package exfat

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// checkSys checks the root's allocation bitmap, up-case table, volume
// label and volume GUID entries, and claims the system files' clusters.
func (t *treeCheck) checkSys(sys []sysEntry, rootExts []Extent) {
	v, l := t.v, t.l
	at := func(slot int) int64 { return entryOffsetIn(l, rootExts, slot) }
	count := map[byte]int{}
	for _, s := range sys {
		count[s.typ()]++
		off := at(s.slot)
		switch s.typ() {
		case TypeBitmap:
			e := DecodeAllocEntry(s.raw)
			if count[TypeBitmap] > l.NumFATs {
				t.problem(KindBitmap, "", e.FirstCluster, off, "more allocation bitmap entries than FATs")
				continue
			}
			need := l.BitmapBytes()
			if e.DataLength < uint64(need) {
				t.problem(KindBitmap, "", e.FirstCluster, off, "the allocation bitmap's length %d is below the %d bytes %d clusters need", e.DataLength, need, l.Clusters)
				continue
			}
			if _, ok := l.lengthClusters(e.DataLength); !ok {
				// Reported, and the clusters the bitmap does need are
				// claimed all the same (as Open reads them): left
				// unclaimed they would be taken for lost and freed.
				t.problem(KindBitmap, "", e.FirstCluster, fieldAt(off, offDataLength), "the allocation bitmap's DataLength %d exceeds the cluster heap (%d bytes)", e.DataLength, l.HeapBytes())
				e.DataLength = uint64(need)
			}
			t.claimSys("(allocation bitmap)", KindBitmap, e, off)
		case TypeUpcase:
			e := DecodeAllocEntry(s.raw)
			if count[TypeUpcase] > 1 {
				t.problem(KindUpcase, "", e.FirstCluster, off, "a second up-case table entry")
				continue
			}
			if e.DataLength == 0 || e.DataLength > maxUpcaseBytes || e.DataLength%2 != 0 {
				t.problem(KindUpcase, "", e.FirstCluster, off, "the up-case table's length %d is not an even number of bytes up to %d", e.DataLength, maxUpcaseBytes)
				t.rep.sysUnclaimed = true
				continue
			}
			if exts := t.claimSys("(up-case table)", KindUpcase, e, off); exts != nil && !t.pass2 {
				raw, err := v.readExtents(exts, int64(e.DataLength))
				if err == nil && UpcaseChecksum(raw) != e.Checksum {
					t.problem(KindUpcase, "", e.FirstCluster, off+offUpcaseChecksum, "the up-case table's checksum is %#08x but its entry says %#08x", UpcaseChecksum(raw), e.Checksum)
				}
			}
		case TypeLabel:
			if count[TypeLabel] > 1 {
				t.problem(KindLabel, "", 0, off, "a second volume label entry")
				continue
			}
			if _, err := decodeLabel(s.raw, off); err != nil {
				t.problem(KindLabel, "", 0, off, "%v", trimPrefix(err))
			}
		case TypeGUID:
			if s.raw[offSecondaryCount] != 0 || SetChecksum(s.raw) != binary.LittleEndian.Uint16(s.raw[offSetChecksum:]) {
				t.problem(KindDirEntry, "", 0, off, "the volume GUID entry's secondary count or set checksum is wrong")
			}
		}
	}
	if count[TypeBitmap] == 0 {
		t.problem(KindBitmap, "", 0, -1, "the root directory has no allocation bitmap entry")
	}
	if count[TypeUpcase] == 0 {
		t.problem(KindUpcase, "", 0, -1, "the root directory has no up-case table entry")
	}
}

// claimSys checks and claims the FAT chain of a system file.
func (t *treeCheck) claimSys(name, kind string, e AllocEntry, off int64) []Extent {
	l := t.l
	// The length is checked against the heap before anything is walked
	// or sized from it.
	need, ok := l.lengthClusters(e.DataLength)
	if !ok {
		t.problem(kind, "", e.FirstCluster, fieldAt(off, offDataLength), "%s: DataLength %d exceeds the cluster heap (%d bytes)", name, e.DataLength, l.HeapBytes())
		t.rep.sysUnclaimed = true
		return nil
	}
	exts, err := t.v.fat.chainN(l, e.FirstCluster, need)
	if err != nil {
		t.problem(kind, "", e.FirstCluster, off, "%s: %v", name, trimPrefix(err))
		t.rep.sysUnclaimed = true
		return nil
	}
	t.claim(name, exts)
	return exts
}

// checkFATHead warns when FAT entries 0 and 1 are not the media type and
// the end mark the specification asks for.
func (t *treeCheck) checkFATHead() {
	if t.pass2 {
		return
	}
	e0, err0 := t.v.fat.Get(0)
	e1, err1 := t.v.fat.Get(1)
	if err0 == nil && err1 == nil && (e0 != fatMedia || e1 != fatEOC) {
		t.rep.Warnings = append(t.rep.Warnings, fmt.Sprintf("FAT entries 0 and 1 are %#08x and %#08x, not %#08x and %#08x", e0, e1, uint32(fatMedia), uint32(fatEOC)))
	}
}

// hashFix records the set at slot, re-encoded with the right name hash.
func (t *treeCheck) hashFix(exts []Extent, pd parsedDir, slot int) {
	for _, r := range pd.recs {
		if r.Slot == slot {
			s := r.Set
			t.rep.hashFixes = append(t.rep.hashFixes, entryFix{exts: exts, slot: slot, set: s.Encode(t.v.up)})
			return
		}
	}
}

// upcaseOK reports whether the up-case table was read and its checksum
// matches: only then are name hashes worth rewriting.
func (v *Volume) upcaseOK() bool {
	for _, w := range v.warnings {
		if strings.Contains(w, "up-case table") {
			return false
		}
	}
	return v.upcaseEnt.Type == TypeUpcase
}
