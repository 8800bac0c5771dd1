package fat

import (
	"encoding/binary"
	"fmt"
)

// FSInfoUnknown is the FSINFO value meaning "not known, compute it".
const FSInfoUnknown = 0xFFFFFFFF

// Offsets and signatures of the FAT32 FSINFO sector.
const (
	offFSInfoLead   = 0   // uint32: lead signature "RRaA"
	offFSInfoStruct = 484 // uint32: structure signature "rrAa"
	offFSInfoFree   = 488 // uint32: free cluster count, or FSInfoUnknown
	offFSInfoNext   = 492 // uint32: where to start looking for a free cluster, or FSInfoUnknown
	offFSInfoTrail  = 508 // uint32: trail signature 00 00 55 AA
	fsInfoSize      = 512 // the structure's size whatever the sector size

	fsInfoLeadSig   = 0x41615252
	fsInfoStructSig = 0x61417272
	fsInfoTrailSig  = 0xAA550000
)

// FSInfo holds the FAT32 FSINFO sector's two hints. Both may be
// FSInfoUnknown, and neither is trusted without checking.
type FSInfo struct {
	FreeCount uint32 // free clusters, or FSInfoUnknown
	NextFree  uint32 // cluster to start allocating from, or FSInfoUnknown
}

// DecodeFSInfo decodes an FSINFO sector. b must hold at least 512 bytes; its
// three signatures are checked (lead at 0, structure at 484, trail at 508).
// Errors are *FormatError wrapping ErrCorrupt.
func DecodeFSInfo(b []byte) (*FSInfo, error) {
	if len(b) < fsInfoSize {
		return nil, &FormatError{Structure: "FSINFO", Field: "length", Offset: -1, Value: len(b), Msg: "shorter than 512 bytes", Err: ErrCorrupt}
	}
	le := binary.LittleEndian
	for _, s := range []struct {
		name string
		off  int64
		want uint32
	}{
		{"lead signature", offFSInfoLead, fsInfoLeadSig},
		{"structure signature", offFSInfoStruct, fsInfoStructSig},
		{"trail signature", offFSInfoTrail, fsInfoTrailSig},
	} {
		if got := le.Uint32(b[s.off:]); got != s.want {
			return nil, &FormatError{Structure: "FSINFO", Field: s.name, Offset: s.off,
				Value: fmt.Sprintf("%#08x", got), Msg: fmt.Sprintf("want %#08x", s.want), Err: ErrCorrupt}
		}
	}
	return &FSInfo{FreeCount: le.Uint32(b[offFSInfoFree:]), NextFree: le.Uint32(b[offFSInfoNext:])}, nil
}

// Encode writes the FSINFO sector into b (one logical sector, at least 512
// bytes): its first 512 bytes get the signatures, the two hints and zeros
// in the reserved areas; bytes past 512 are left alone. Like mkfs.fat and
// fsck.fat, the trail signature sits at 508 whatever the sector size.
func (fi *FSInfo) Encode(b []byte) {
	_ = b[fsInfoSize-1]
	clear(b[:fsInfoSize])
	le := binary.LittleEndian
	le.PutUint32(b[offFSInfoLead:], fsInfoLeadSig)
	le.PutUint32(b[offFSInfoStruct:], fsInfoStructSig)
	le.PutUint32(b[offFSInfoFree:], fi.FreeCount)
	le.PutUint32(b[offFSInfoNext:], fi.NextFree)
	le.PutUint32(b[offFSInfoTrail:], fsInfoTrailSig)
}
