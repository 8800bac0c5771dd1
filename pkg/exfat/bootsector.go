package exfat

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// The main boot sector (exFAT specification 3.1). Offsets are from the
// sector's start; every field is little-endian.
const (
	offJumpBoot        = 0x00 // 3 bytes: EB 76 90
	offFileSystemName  = 0x03 // 8 bytes: "EXFAT   "
	offMustBeZero      = 0x0B // 53 bytes of zeros, so FAT drivers refuse the volume
	mustBeZeroLen      = 53
	offPartitionOffset = 0x40 // 8: sectors from the disk's start, 0 if unknown
	offVolumeLength    = 0x48 // 8: sectors in the volume
	offFATOffset       = 0x50 // 4: sectors from the volume's start to the first FAT
	offFATLength       = 0x54 // 4: sectors per FAT
	offHeapOffset      = 0x58 // 4: sectors from the volume's start to cluster 2
	offClusterCount    = 0x5C // 4: clusters in the heap
	offRootCluster     = 0x60 // 4: first cluster of the root directory
	offSerial          = 0x64 // 4: volume serial number
	offRevision        = 0x68 // 2: file system revision, major in the high byte
	offVolumeFlags     = 0x6A // 2: ActiveFat, VolumeDirty, MediaFailure, ClearToZero
	offSectorShift     = 0x6C // 1: log2(bytes per sector), 9..12
	offClusterShift    = 0x6D // 1: log2(sectors per cluster)
	offNumberOfFATs    = 0x6E // 1: 1, or 2 for TexFAT
	offDriveSelect     = 0x6F // 1: INT 13h drive number, 0x80
	offPercentInUse    = 0x70 // 1: 0..100, or 0xFF when not kept
	offBootCode        = 0x78 // 390 bytes
	offBootSignature   = 0x1FE

	bootSectorSize = 512
	bootSignature  = 0xAA55
	// extBootSignature ends every extended boot sector (its last 4 bytes).
	extBootSignature = 0xAA550000

	revision100 = 0x0100
)

// Volume flags (exFAT specification 3.1.13).
const (
	FlagActiveFAT    = 0x0001 // the second FAT is the active one (TexFAT)
	FlagVolumeDirty  = 0x0002 // the volume may be inconsistent
	FlagMediaFailure = 0x0004 // the media reported failures
	FlagClearToZero  = 0x0008 // no meaning; implementations clear it
)

// PercentUnknown is the PercentInUse value of a volume that does not keep it.
const PercentUnknown = 0xFF

var (
	jumpBoot       = []byte{0xEB, 0x76, 0x90}
	fileSystemName = []byte("EXFAT   ")
)

// BootSector holds the fields of an exFAT main (or backup) boot sector.
// Sizes and offsets are in sectors unless named otherwise.
type BootSector struct {
	PartitionOffset   uint64
	VolumeLength      uint64
	FATOffset         uint32
	FATLength         uint32
	ClusterHeapOffset uint32
	ClusterCount      uint32
	RootCluster       Cluster
	SerialNumber      uint32
	Revision          uint16
	VolumeFlags       uint16
	SectorShift       uint8
	ClusterShift      uint8 // log2(sectors per cluster)
	NumberOfFATs      uint8
	DriveSelect       uint8
	PercentInUse      uint8
}

// IsExFAT reports whether b starts with an exFAT boot sector's file system
// name, the one field every reader tests first.
func IsExFAT(b []byte) bool {
	return len(b) >= offFileSystemName+8 && bytes.Equal(b[offFileSystemName:offFileSystemName+8], fileSystemName)
}

// DecodeBootSector decodes and validates a main or backup boot sector. It
// needs at least 512 bytes. A sector without the "EXFAT   " name is
// ErrNotExFAT; one with it but with fields that describe no usable volume
// is a *FormatError wrapping ErrCorrupt.
func DecodeBootSector(b []byte) (*BootSector, error) {
	if len(b) < bootSectorSize {
		return nil, fmt.Errorf("%w: boot sector of %d bytes is shorter than %d", ErrNotExFAT, len(b), bootSectorSize)
	}
	if !IsExFAT(b) {
		return nil, &FormatError{Structure: "boot sector", Field: "file system name", Offset: offFileSystemName,
			Value: fmt.Sprintf("%q", b[offFileSystemName:offFileSystemName+8]), Msg: `is not "EXFAT   "`, Err: ErrNotExFAT}
	}
	le := binary.LittleEndian
	bs := &BootSector{
		PartitionOffset:   le.Uint64(b[offPartitionOffset:]),
		VolumeLength:      le.Uint64(b[offVolumeLength:]),
		FATOffset:         le.Uint32(b[offFATOffset:]),
		FATLength:         le.Uint32(b[offFATLength:]),
		ClusterHeapOffset: le.Uint32(b[offHeapOffset:]),
		ClusterCount:      le.Uint32(b[offClusterCount:]),
		RootCluster:       Cluster(le.Uint32(b[offRootCluster:])),
		SerialNumber:      le.Uint32(b[offSerial:]),
		Revision:          le.Uint16(b[offRevision:]),
		VolumeFlags:       le.Uint16(b[offVolumeFlags:]),
		SectorShift:       b[offSectorShift],
		ClusterShift:      b[offClusterShift],
		NumberOfFATs:      b[offNumberOfFATs],
		DriveSelect:       b[offDriveSelect],
		PercentInUse:      b[offPercentInUse],
	}
	if sig := le.Uint16(b[offBootSignature:]); sig != bootSignature {
		return nil, corruptf("boot sector", "boot signature", offBootSignature, fmt.Sprintf("%#04x", sig), "is not 0xaa55")
	}
	if err := bs.Validate(); err != nil {
		return nil, err
	}
	return bs, nil
}

// Validate checks the fields against the specification's ranges and each
// other (exFAT specification 3.1.5 to 3.1.17), so that a Layout built from
// them stays inside the volume.
func (bs *BootSector) Validate() error {
	bad := func(field string, off int64, v any, format string, args ...any) error {
		return corruptf("boot sector", field, off, v, format, args...)
	}
	if bs.SectorShift < 9 || bs.SectorShift > 12 {
		return bad("bytes per sector shift", offSectorShift, bs.SectorShift, "out of range 9..12 (512 to 4096 bytes)")
	}
	if int(bs.SectorShift)+int(bs.ClusterShift) > 25 {
		return bad("sectors per cluster shift", offClusterShift, bs.ClusterShift, "makes clusters larger than 32 MiB")
	}
	if bs.NumberOfFATs != 1 && bs.NumberOfFATs != 2 {
		return bad("number of FATs", offNumberOfFATs, bs.NumberOfFATs, "is neither 1 nor 2")
	}
	if bs.Revision>>8 != 1 {
		return bad("file system revision", offRevision, fmt.Sprintf("%d.%02d", bs.Revision>>8, bs.Revision&0xFF), "only revision 1.xx is defined")
	}
	ss := uint64(1) << bs.SectorShift
	if bs.VolumeLength < (1<<20)/ss {
		return bad("volume length", offVolumeLength, bs.VolumeLength, "is below the 1 MiB minimum")
	}
	// A volume length past what a device can hold is no reason to refuse
	// the volume (fsck.exfat checks only the heap against it): Layout
	// clamps it, and Open reads the volume as far as the device goes.
	if bs.FATOffset < 24 {
		return bad("FAT offset", offFATOffset, bs.FATOffset, "lies inside the boot regions (below sector 24)")
	}
	if bs.ClusterCount == 0 || bs.ClusterCount > MaxClusterCount {
		return bad("cluster count", offClusterCount, bs.ClusterCount, "out of range 1..%d", uint32(MaxClusterCount))
	}
	if need := (uint64(bs.ClusterCount) + 2) * 4; uint64(bs.FATLength)*ss < need {
		return bad("FAT length", offFATLength, bs.FATLength, "holds fewer than the %d entries the cluster count needs", uint64(bs.ClusterCount)+2)
	}
	fatEnd := uint64(bs.FATOffset) + uint64(bs.FATLength)*uint64(bs.NumberOfFATs)
	if uint64(bs.ClusterHeapOffset) < fatEnd {
		return bad("cluster heap offset", offHeapOffset, bs.ClusterHeapOffset, "lies inside the FAT region (which ends at sector %d)", fatEnd)
	}
	heapEnd := uint64(bs.ClusterHeapOffset) + uint64(bs.ClusterCount)<<bs.ClusterShift
	if heapEnd > bs.VolumeLength {
		return bad("cluster count", offClusterCount, bs.ClusterCount, "makes the cluster heap end at sector %d, past the volume's %d sectors", heapEnd, bs.VolumeLength)
	}
	if bs.RootCluster < FirstCluster || uint64(bs.RootCluster) > uint64(bs.ClusterCount)+1 {
		return bad("first cluster of root directory", offRootCluster, bs.RootCluster, "out of range 2..%d", uint64(bs.ClusterCount)+1)
	}
	return nil
}

// Warnings lists fields that are odd but do not stop use of the volume.
func (bs *BootSector) Warnings() []string {
	var w []string
	if bs.Dirty() {
		w = append(w, "volume dirty flag is set: the volume was not unmounted cleanly")
	}
	if bs.VolumeFlags&FlagMediaFailure != 0 {
		w = append(w, "media failure flag is set: the device reported I/O errors")
	}
	if bs.PercentInUse > 100 && bs.PercentInUse != PercentUnknown {
		w = append(w, fmt.Sprintf("percent in use %d is out of range 0..100", bs.PercentInUse))
	}
	if bs.Revision != revision100 {
		w = append(w, fmt.Sprintf("file system revision %d.%02d (ftools knows 1.00)", bs.Revision>>8, bs.Revision&0xFF))
	}
	return w
}

// Dirty reports whether the VolumeDirty flag is set.
func (bs *BootSector) Dirty() bool { return bs.VolumeFlags&FlagVolumeDirty != 0 }

// SetDirty sets or clears the VolumeDirty flag.
func (bs *BootSector) SetDirty(on bool) { fsutil.SetFlag(&bs.VolumeFlags, FlagVolumeDirty, on) }

// SectorSize is the logical sector size in bytes.
func (bs *BootSector) SectorSize() int64 { return 1 << bs.SectorShift }

// ClusterSize is the cluster size in bytes.
func (bs *BootSector) ClusterSize() int64 { return 1 << (bs.SectorShift + bs.ClusterShift) }

// Encode writes the fields into b (at least 512 bytes): the jump
// instruction, the name, the zero field, every numeric field and the boot
// signature. The boot code and anything past byte 512 are left as they are.
func (bs *BootSector) Encode(b []byte) {
	le := binary.LittleEndian
	copy(b[offJumpBoot:], jumpBoot)
	copy(b[offFileSystemName:], fileSystemName)
	clear(b[offMustBeZero : offMustBeZero+mustBeZeroLen])
	le.PutUint64(b[offPartitionOffset:], bs.PartitionOffset)
	le.PutUint64(b[offVolumeLength:], bs.VolumeLength)
	le.PutUint32(b[offFATOffset:], bs.FATOffset)
	le.PutUint32(b[offFATLength:], bs.FATLength)
	le.PutUint32(b[offHeapOffset:], bs.ClusterHeapOffset)
	le.PutUint32(b[offClusterCount:], bs.ClusterCount)
	le.PutUint32(b[offRootCluster:], uint32(bs.RootCluster))
	le.PutUint32(b[offSerial:], bs.SerialNumber)
	le.PutUint16(b[offRevision:], bs.Revision)
	le.PutUint16(b[offVolumeFlags:], bs.VolumeFlags)
	b[offSectorShift] = bs.SectorShift
	b[offClusterShift] = bs.ClusterShift
	b[offNumberOfFATs] = bs.NumberOfFATs
	b[offDriveSelect] = bs.DriveSelect
	b[offPercentInUse] = bs.PercentInUse
	clear(b[offPercentInUse+1 : offBootCode]) // Reserved
	le.PutUint16(b[offBootSignature:], bootSignature)
}

// Layout computes the volume's regions from the fields.
func (bs *BootSector) Layout() (*Layout, error) {
	if err := bs.Validate(); err != nil {
		return nil, err
	}
	ss := bs.SectorSize()
	l := &Layout{
		SectorSize:       ss,
		ClusterSize:      bs.ClusterSize(),
		TotalSize:        int64(min(bs.VolumeLength, uint64(1<<63-1)/uint64(ss))) * ss,
		FATOffset:        int64(bs.FATOffset) * ss,
		FATSize:          int64(bs.FATLength) * ss,
		NumFATs:          int(bs.NumberOfFATs),
		HeapOffset:       int64(bs.ClusterHeapOffset) * ss,
		Clusters:         bs.ClusterCount,
		RootCluster:      bs.RootCluster,
		BackupBootOffset: backupBootSector * ss,
	}
	if bs.NumberOfFATs == 2 && bs.VolumeFlags&FlagActiveFAT != 0 {
		l.ActiveFAT = 1
	}
	return l, nil
}
