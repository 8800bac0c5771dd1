package fat

import "fmt"

// Layout is where a volume's regions lie, in bytes from the volume's start.
type Layout struct {
	Type             Type
	SectorSize       int64
	ClusterSize      int64
	TotalSize        int64   // TotalSectors * SectorSize
	ReservedStart    int64   // always 0
	FSInfoOffset     int64   // FAT32 FSINFO sector; 0 if none
	BackupBootOffset int64   // FAT32 backup boot sector; 0 if none
	FATOffset        int64   // first FAT
	FATSize          int64   // bytes of ONE FAT copy (FATSz * sector size)
	NumFATs          int     // FAT copies
	RootDirOffset    int64   // FAT12/16 fixed root; 0 on FAT32
	RootDirSize      int64   // bytes; 0 on FAT32
	RootCluster      Cluster // FAT32 root directory's first cluster
	DataOffset       int64   // cluster 2
	Clusters         uint32  // number of data clusters (CountofClusters)
}

// FATCopyOffset returns the offset of FAT copy i (0-based).
func (l *Layout) FATCopyOffset(i int) int64 { return l.FATOffset + int64(i)*l.FATSize }

// ClusterOffset returns the offset of data cluster c, which must be >= 2.
func (l *Layout) ClusterOffset(c Cluster) int64 {
	return l.DataOffset + int64(c-FirstCluster)*l.ClusterSize
}

// MaxCluster is the highest valid cluster number, Clusters + 1.
func (l *Layout) MaxCluster() Cluster { return Cluster(l.Clusters) + 1 }

// Entries is the number of FAT entries that matter, Clusters + 2.
func (l *Layout) Entries() uint32 { return l.Clusters + 2 }

// Validate checks every boot sector field on its own (Layout checks how they
// fit together). Errors are *FormatError naming the field and its offset;
// they wrap ErrNotFAT for what no FAT boot sector has (a bad jump, sector or
// cluster size, no FAT) and ErrCorrupt for the rest.
func (bs *BootSector) Validate() error {
	bad := func(field string, off int64, v any, msg string, err error) error {
		return &FormatError{Structure: "boot sector", Field: field, Offset: off, Value: v, Msg: msg, Err: err}
	}
	switch {
	case bs.Jump[0] == 0xEB, bs.Jump[0] == 0xE9:
	default:
		return bad("jump", offJump, fmt.Sprintf("%02x %02x %02x", bs.Jump[0], bs.Jump[1], bs.Jump[2]), "not an x86 jump (EB xx 90 or E9 xx xx)", ErrNotFAT)
	}
	bps := uint32(bs.BytesPerSector)
	if !isPow2(bps) {
		return bad("bytes per sector", offBytesPerSector, bps, "not a power of two", ErrNotFAT)
	}
	if bps < 512 {
		return bad("bytes per sector", offBytesPerSector, bps, "less than 512", ErrNotFAT)
	}
	if !isPow2(uint32(bs.SectorsPerCluster)) {
		return bad("sectors per cluster", offSectorsPerCluster, bs.SectorsPerCluster, "not a power of two", ErrNotFAT)
	}
	if bs.NumFATs == 0 {
		return bad("number of FATs", offNumFATs, 0, "no FAT", ErrNotFAT)
	}
	if bs.ReservedSectors == 0 {
		return bad("reserved sectors", offReservedSectors, 0, "the boot sector itself is reserved, so at least 1", ErrCorrupt)
	}
	if bs.Media != 0xF0 && bs.Media < 0xF8 {
		return bad("media", offMedia, fmt.Sprintf("%#02x", bs.Media), "not 0xf0 or 0xf8..0xff", ErrCorrupt)
	}
	if bs.TotalSectors() == 0 {
		return bad("total sectors", offTotalSectors32, 0, "both the 16-bit (0x13) and the 32-bit count are zero", ErrCorrupt)
	}
	if bs.FATSectors() == 0 {
		return bad("sectors per FAT", offFATSize32, 0, "both the 16-bit (0x16) and the 32-bit size are zero", ErrCorrupt)
	}
	if uint32(bs.RootEntries)*dirEntryLen%bps != 0 {
		return bad("root entries", offRootEntries, bs.RootEntries, fmt.Sprintf("do not fill whole %d-byte sectors", bps), ErrCorrupt)
	}
	if !bs.Is32 {
		if bs.RootEntries == 0 {
			return bad("root entries", offRootEntries, 0, "FAT12/16 needs a root directory", ErrCorrupt)
		}
		return nil
	}
	if bs.RootEntries != 0 {
		return bad("root entries", offRootEntries, bs.RootEntries, "must be 0 on FAT32", ErrCorrupt)
	}
	if bs.RootCluster < uint32(FirstCluster) {
		return bad("root cluster", offRootCluster, bs.RootCluster, "below the first data cluster 2", ErrCorrupt)
	}
	if bs.ExtFlags&0x80 != 0 && uint8(bs.ExtFlags&0x0F) >= bs.NumFATs {
		return bad("active FAT", offExtFlags, bs.ExtFlags&0x0F, fmt.Sprintf("mirroring is off but there are only %d FATs", bs.NumFATs), ErrCorrupt)
	}
	if s := bs.FSInfoSector; s != 0 && s != 0xFFFF && s >= bs.ReservedSectors {
		return bad("FSINFO sector", offFSInfoSector, s, fmt.Sprintf("outside the %d reserved sectors", bs.ReservedSectors), ErrCorrupt)
	}
	if s := bs.BackupBootSector; s != 0 && s != 0xFFFF {
		if s >= bs.ReservedSectors {
			return bad("backup boot sector", offBackupBootSector, s, fmt.Sprintf("outside the %d reserved sectors", bs.ReservedSectors), ErrCorrupt)
		}
		if s == bs.FSInfoSector {
			return bad("backup boot sector", offBackupBootSector, s, "same sector as FSINFO", ErrCorrupt)
		}
	}
	return nil
}

// dirEntryLen is the size of a directory entry (the fixed root's unit).
const dirEntryLen = 32

// Layout computes the volume's regions from the boot sector. It validates
// the fields first, then checks that the regions fit: the data area must
// start inside the volume and hold at least one cluster, the FAT must have
// an entry for every cluster, a FAT12/16 layout must have fewer than 65525
// clusters, and the FAT32 root cluster must exist. Errors are *FormatError
// wrapping ErrCorrupt (or ErrNotFAT from Validate).
//
// The type follows Linux and fsck.fat: a zero 16-bit FAT size means FAT32
// whatever the cluster count (mkfs.fat -F 32 makes small FAT32 volumes);
// otherwise the cluster count decides between FAT12 and FAT16 as the
// specification says.
func (bs *BootSector) Layout() (*Layout, error) {
	if err := bs.Validate(); err != nil {
		return nil, err
	}
	bad := func(field string, off int64, v any, msg string) error {
		return &FormatError{Structure: "boot sector", Field: field, Offset: off, Value: v, Msg: msg, Err: ErrCorrupt}
	}
	ss := int64(bs.BytesPerSector)
	total := int64(bs.TotalSectors())
	fatSecs := int64(bs.FATSectors())
	rootSecs := int64(bs.RootEntries) * dirEntryLen / ss
	l := &Layout{
		SectorSize:  ss,
		ClusterSize: ss * int64(bs.SectorsPerCluster),
		TotalSize:   total * ss,
		FATOffset:   int64(bs.ReservedSectors) * ss,
		FATSize:     fatSecs * ss,
		NumFATs:     int(bs.NumFATs),
	}
	l.RootDirOffset = l.FATOffset + int64(l.NumFATs)*l.FATSize
	l.RootDirSize = rootSecs * ss
	dataSec := int64(bs.ReservedSectors) + int64(bs.NumFATs)*fatSecs + rootSecs
	if dataSec >= total {
		return nil, bad("total sectors", offTotalSectors32, total,
			fmt.Sprintf("the data area would start at sector %d (reserved %d + %d FATs of %d + root %d), past the volume's end",
				dataSec, bs.ReservedSectors, bs.NumFATs, fatSecs, rootSecs))
	}
	l.DataOffset = dataSec * ss
	clusters := (total - dataSec) / int64(bs.SectorsPerCluster)
	if clusters == 0 {
		return nil, bad("total sectors", offTotalSectors32, total, "no room for a single data cluster")
	}
	l.Clusters = uint32(clusters) // at most 2^32 sectors / 1
	if bs.Is32 {
		l.Type = FAT32
	} else {
		l.Type = TypeForClusters(l.Clusters)
		if l.Type == FAT32 {
			return nil, bad("sectors per FAT", offFATSize16, bs.FATSize16,
				fmt.Sprintf("a FAT12/16 layout with %d clusters (FAT16 allows at most %d)", clusters, MinClusters32-1))
		}
	}
	if l.Type == FAT32 && clusters > MaxClusters32 {
		return nil, bad("total sectors", offTotalSectors32, total,
			fmt.Sprintf("%d clusters; FAT32 allows at most %d", clusters, MaxClusters32))
	}
	if need := fatBytes(l.Type, l.Clusters); need > l.FATSize {
		off := int64(offFATSize16)
		if bs.Is32 {
			off = offFATSize32
		}
		return nil, bad("sectors per FAT", off, fatSecs,
			fmt.Sprintf("too small: %d clusters need %d bytes of %s, the FAT has %d", clusters, need, l.Type, l.FATSize))
	}
	if bs.Is32 {
		l.RootDirOffset, l.RootDirSize = 0, 0
		l.RootCluster = Cluster(bs.RootCluster)
		if l.RootCluster > l.MaxCluster() {
			return nil, bad("root cluster", offRootCluster, bs.RootCluster,
				fmt.Sprintf("beyond the last cluster %d", l.MaxCluster()))
		}
		if s := bs.FSInfoSector; s != 0 && s != 0xFFFF {
			l.FSInfoOffset = int64(s) * ss
		}
		if s := bs.BackupBootSector; s != 0 && s != 0xFFFF {
			l.BackupBootOffset = int64(s) * ss
		}
	}
	return l, nil
}

// fatBytes is the number of bytes a FAT of type t needs for clusters data
// clusters plus the two reserved entries.
func fatBytes(t Type, clusters uint32) int64 {
	n := int64(clusters) + 2
	switch t {
	case FAT12:
		return (n*3 + 1) / 2
	case FAT16:
		return n * 2
	}
	return n * 4
}

// Warnings lists oddities of a valid boot sector that do not stop its use:
// things a checker should mention but a reader can live with.
func (bs *BootSector) Warnings() []string {
	var w []string
	if bs.NoSignature {
		w = append(w, "boot sector signature 55 aa at 0x1fe is missing (fsck.fat, mtools and Linux use such a volume all the same)")
	}
	if bs.Jump[0] == 0xEB && bs.Jump[2] != 0x90 {
		w = append(w, fmt.Sprintf("jump instruction EB %02x %02x does not end in a NOP (90)", bs.Jump[1], bs.Jump[2]))
	}
	if bs.TotalSectors16 != 0 && bs.TotalSectors32 != 0 && uint32(bs.TotalSectors16) != bs.TotalSectors32 {
		w = append(w, fmt.Sprintf("both total sector counts are set and differ (%d and %d); using %d", bs.TotalSectors16, bs.TotalSectors32, bs.TotalSectors16))
	}
	if bs.BootSig != ExtBootSig && bs.BootSig != extBootSigOld {
		w = append(w, fmt.Sprintf("extended boot signature is %#02x, not 0x29: no volume id or label", bs.BootSig))
	}
	if bs.Dirty() {
		w = append(w, "dirty bit set: the volume was not unmounted cleanly")
	}
	if !bs.Is32 {
		return w
	}
	if bs.FSVersion != 0 {
		w = append(w, fmt.Sprintf("FAT32 version %d.%d, not 0.0", bs.FSVersion>>8, bs.FSVersion&0xFF))
	}
	if bs.FSInfoSector == 0 || bs.FSInfoSector == 0xFFFF {
		w = append(w, "no FSINFO sector")
	}
	if bs.BackupBootSector == 0 || bs.BackupBootSector == 0xFFFF {
		w = append(w, "no backup boot sector")
	}
	if l, err := bs.Layout(); err == nil && l.Clusters < MinClusters32 {
		w = append(w, fmt.Sprintf("FAT32 with only %d clusters (the specification's minimum is %d); some systems will take it for FAT16", l.Clusters, MinClusters32))
	}
	return w
}
