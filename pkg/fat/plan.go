package fat

import "fmt"

// FormatParams describes the volume Plan should lay out. Zero values ask
// for mkfs.fat's choice.
type FormatParams struct {
	Size              int64  // bytes available for the volume (required by Plan; Format: 0 -> the whole device)
	SectorSize        int    // 0 -> 512; else 512, 1024, 2048 or 4096
	Type              Type   // 0 -> automatic as mkfs.fat chooses
	ClusterSize       int    // bytes; 0 -> automatic; SectorSize times a power of two up to 128
	SectorsPerCluster int    // alternative to ClusterSize (0 = unset); both set and inconsistent -> error
	ReservedSectors   int    // 0 -> 1 for FAT12/16, 32 for FAT32 (then aligned, see Plan)
	NumFATs           int    // 0 -> 2; 1 or 2
	RootEntries       int    // 0 -> 512 (floppies: 112 or 224); 16..32768; ignored on FAT32
	Media             uint8  // 0 -> 0xF8 (floppies: their media byte); else 0xF0 or 0xF8..0xFF
	HiddenSectors     uint32 // sectors before the volume (the partition's start)
	VolumeID          uint32 // serial number; Format makes one from its clock for 0, as exfat.Format
	ZeroVolumeID      bool   // write a VolumeID of 0 as 0 (mkfs.fat -i 00000000)
	Label             string // up to 11 ASCII characters, case kept (as mkfs.fat); "" -> "NO NAME"
	DriveNumber       uint8  // 0 -> 0x80 with media 0xF8, else 0x00
	Heads             uint16 // 0 -> mkfs.fat's default for the size (see Plan)
	SectorsPerTrack   uint16 // 0 -> mkfs.fat's default for the size (see Plan)
	OEMName           string // "" -> "mkfs.fat"; at most 8 bytes
	AlignData         bool   // align the FATs and data area to the cluster size, as mkfs.fat does unless -a
	// AllowSmallFAT32 lets an explicitly asked-for FAT32 have fewer than
	// 65,525 clusters, as mkfs.fat -F 32 does with a warning (fmkfs --force).
	// Without it such a volume is refused: systems that go by the cluster
	// count (Windows among them) would take it for FAT16.
	AllowSmallFAT32 bool
	// Dirty formats the volume with its dirty bit set (FAT16 and FAT32;
	// FAT12 has none), in the boot sector and not in its backup: a writer
	// that fills the new volume (fmkfs --from) opens it, takes the bit as
	// its own (Volume.AdoptDirty) and clears it once everything is
	// durable, so that a cut before then leaves no volume that claims to
	// be clean and complete.
	Dirty bool
	// BackupBootSector places the FAT32 backup boot sector (mkfs.fat -b):
	// 0 as mkfs.fat places it (sector 6), -1 for no backup, else that
	// reserved sector (2 or more). FSINFO's backup follows it when the
	// next sector is reserved too. Ignored on FAT12/16.
	BackupBootSector int
	// BootMessage, when not nil, makes the boot code print it (mkfs.fat
	// -m): bytes as the BIOS shows them (CR LF line ends), at most
	// MaxBootMessage.
	BootMessage []byte
	// FakeMBR writes mkfs.fat --mbr's partition table into the boot
	// sector: DiskID as the disk signature and one partition over the
	// whole volume, for systems that want a partitioned disk.
	FakeMBR bool
	DiskID  uint32
	// FATSectors, when not 0, is the size of each FAT in sectors, used as
	// given instead of the smallest that fits (the SD layout sizes its FATs
	// itself so that the data area starts on an erase-block boundary). It
	// must hold an entry for every cluster.
	FATSectors int
	// FATSpareFor and FATSpareTimes, when they name a size larger than the
	// volume (FATSpareFor bytes, or FATSpareTimes times Size), size the
	// FATs for a volume of that size with the type and cluster size chosen
	// for this one (at most for the clusters the type counts): a later
	// growth up to it needs no more FAT sectors, so the data area does not
	// move and the resize stays crash-safe (fmkfs --fat-spare). Ignored
	// with FATSectors.
	FATSpareFor   int64
	FATSpareTimes int
}

// Limits mkfs.fat applies when it lays out a volume.
const (
	maxClusters12   = MinClusters16 - 1 // 4084
	minClusters16   = 4087              // not 4085: Windows takes 4085 and 4086 for FAT12
	maxClusters16   = MinClusters32 - 1 // 65524
	maxSecPerClus   = 128
	tinyVolume      = 8192      // sectors; at or below, nothing is aligned
	autoFAT32Bytes  = 512 << 20 // from this size on, FAT32 is chosen
	minBlocksPastDS = 32        // KiB that must follow the data area's start
)

// floppy holds mkfs.fat's defaults for the classic floppy sizes (in KiB),
// used when the volume has exactly (in whole KiB) such a size.
var floppy = map[int64]struct {
	spt, heads, media uint8
	spc               int
	root              int
}{
	360:  {9, 2, 0xFD, 2, 112},
	720:  {9, 2, 0xF9, 2, 112},
	1200: {15, 2, 0xF9, 1, 224},
	1440: {18, 2, 0xF0, 1, 224},
	2880: {36, 2, 0xF0, 2, 224},
}

// Plan computes the boot sector and layout of a new volume, following the
// rules of mkfs.fat (dosfstools 4.2) so that the result is the volume
// `mkfs.fat` makes for the same options:
//
//   - Sectors: Size / SectorSize, at most 2^32-1 (the rest is left unused).
//     With AlignData the count is rounded down to whole tracks.
//   - Geometry (Heads/SectorsPerTrack): up to 524288 sectors the SD card
//     specification's table (2, 4, 8 or 16 heads at 32768, 65536, 262144
//     sectors; 16 sectors per track up to 4096 sectors, else 32); above it
//     LBA-assist translation (63 sectors, 16/32/64/128/255 heads up to
//     1024 cylinders). Floppy sizes 360/720/1200/1440/2880 KiB use their
//     real geometry, media byte (0xFD, 0xF9, 0xF9, 0xF0, 0xF0), cluster
//     size and 112 or 224 root entries.
//   - Type: FAT32 from 512 MiB on; below that FAT12 or FAT16, whichever
//     fits with more clusters.
//   - Cluster size: FAT32 by size in sectors like Microsoft's format
//     (up to 260 MiB 1 sector, up to 8 GiB 8, 16 GiB 16, 32 GiB 32, above
//     64 sectors); FAT12/16 start at 4 sectors. Without an explicit cluster
//     size it is doubled (up to 128 sectors) until the chosen type fits.
//   - Cluster count limits: FAT12 at most 4084, FAT16 4087..65524 (4085 and
//     4086 are refused because Windows takes them for FAT12), FAT32 at
//     least 65525 unless FAT32 was asked for explicitly (as mkfs.fat -F 32
//     allows smaller FAT32 volumes), at most 0x0FFFFFF5.
//   - FAT size: a first estimate of the cluster count from the space left
//     after the reserved sectors and root directory, the FAT size for it
//     (rounded up to the cluster size when aligning), then the cluster
//     count recomputed from what that FAT leaves.
//   - Alignment (AlignData, unless the volume has 8192 sectors or fewer):
//     the reserved sectors, each FAT and the root directory are rounded up
//     to whole clusters, so the data area starts on a cluster boundary.
//   - Reserved sectors 1 (FAT12/16) or 32 (FAT32, at least 2); FSINFO in
//     sector 1, the backup boot sector in 6 (or the last free reserved
//     sectors on very small reserved areas); root entries 512; media 0xF8;
//     drive number 0x80 for media 0xF8; root cluster 2.
//   - At least 32 KiB must follow the start of the data area.
//
// Deliberate differences from mkfs.fat: the label is upper-cased (mkfs.fat
// only warns about lower case); RootEntries is always rounded up to whole
// sectors (mkfs.fat -a can write a count fsck.fat then refuses); NumFATs is
// limited to 1 or 2 (mkfs.fat allows 4, fsck.fat refuses more than 2); an
// explicit RootEntries is ignored on FAT32 as mkfs.fat does, silently.
//
// Errors wrap ErrInvalidParams and are one sentence naming the limit.
func Plan(p FormatParams) (*BootSector, *Layout, error) {
	if p.FATSectors == 0 && (p.FATSpareFor > 0 || p.FATSpareTimes > 1) {
		return planSpare(p)
	}
	in, err := normalize(p)
	if err != nil {
		return nil, nil, err
	}
	f, err := fit(in)
	if err != nil {
		return nil, nil, err
	}
	bs := in.bootSector(f)
	if bs.Is32 && p.BackupBootSector != 0 {
		switch b := p.BackupBootSector; {
		case b < 0:
			bs.BackupBootSector = 0
		case b < 2 || int64(b) >= f.reserved:
			return nil, nil, paramErrorf("backup boot sector %d: it must be one of the reserved sectors 2 to %d (0 and 1 hold the boot sector and FSINFO)", b, f.reserved-1)
		default:
			bs.BackupBootSector = uint16(b)
		}
	}
	l, err := bs.Layout()
	if err != nil {
		return nil, nil, fmt.Errorf("fat: internal error: planned boot sector is invalid: %w", err)
	}
	if bs.BootCode, err = p.bootCode(bs, l); err != nil {
		return nil, nil, err
	}
	if int64(l.Clusters) != f.clusters {
		return nil, nil, fmt.Errorf("fat: internal error: planned %d clusters but the layout has %d", f.clusters, l.Clusters)
	}
	return bs, l, nil
}

// planInput is FormatParams with the defaults filled in and checked.
type planInput struct {
	size        int64
	ss          int64
	sectors     int64 // total sectors of the volume
	typ         Type  // 0: FAT12 or FAT16, whichever fits
	explicit32  bool  // FAT32 was asked for, so small FAT32 is allowed
	spc, maxSPC int64
	reserved    int64
	nf          int64
	rootSecs    int64
	media       uint8
	heads, spt  uint16
	align       bool
	label       [11]byte
	oem         [8]byte
	p           FormatParams
}

func normalize(p FormatParams) (*planInput, error) {
	in := &planInput{p: p, size: p.Size, typ: p.Type, explicit32: p.Type == FAT32 && p.AllowSmallFAT32}
	in.ss = int64(p.SectorSize)
	if in.ss == 0 {
		in.ss = 512
	}
	if in.ss < 512 || in.ss > 4096 || !isPow2(uint32(in.ss)) {
		return nil, paramErrorf("sector size %d is not supported: FAT volumes here use 512, 1024, 2048 or 4096-byte sectors", p.SectorSize)
	}
	if p.Size < in.ss {
		return nil, paramErrorf("a volume of %s is too small: not even one %d-byte sector", sizeString(p.Size), in.ss)
	}
	if p.Type != 0 && !p.Type.valid() {
		return nil, paramErrorf("FAT type %d does not exist: use 12, 16 or 32", int(p.Type))
	}
	if err := in.clusterSize(); err != nil {
		return nil, err
	}
	in.nf = int64(p.NumFATs)
	if in.nf == 0 {
		in.nf = 2
	} else if in.nf < 1 || in.nf > 2 {
		return nil, paramErrorf("%d FATs asked: FAT volumes here have 1 or 2 (fsck.fat accepts no more)", p.NumFATs)
	}
	if p.RootEntries != 0 && (p.RootEntries < 16 || p.RootEntries > 32768) {
		return nil, paramErrorf("%d root directory entries asked: the fixed root holds 16 to 32768", p.RootEntries)
	}
	if p.ReservedSectors < 0 || p.ReservedSectors > 0xFFFF {
		return nil, paramErrorf("%d reserved sectors asked: the boot sector field holds 1 to 65535", p.ReservedSectors)
	}
	if p.Media != 0 && p.Media != 0xF0 && p.Media < 0xF8 {
		return nil, paramErrorf("media byte %#02x is not valid: use 0xf0 or 0xf8 to 0xff", p.Media)
	}

	// Defaults that depend on the size, in mkfs.fat's order.
	total := p.Size / in.ss
	in.heads, in.spt = defaultGeometry(total)
	media, defSPC, rootEntries := uint8(0xF8), int64(4), 512
	if fl, ok := floppy[p.Size/1024]; ok {
		in.heads, in.spt, media, defSPC, rootEntries = uint16(fl.heads), uint16(fl.spt), fl.media, int64(fl.spc), fl.root
	}
	if in.typ == 0 && p.Size >= autoFAT32Bytes {
		in.typ = FAT32
	}
	if in.typ == FAT32 {
		defSPC = fat32ClusterSectors(total)
	}
	if p.Heads != 0 {
		in.heads = p.Heads
	}
	if p.SectorsPerTrack != 0 {
		in.spt = p.SectorsPerTrack
	}
	if p.RootEntries != 0 {
		rootEntries = p.RootEntries
	}
	if in.typ == FAT32 {
		rootEntries = 0
	}
	in.media = media
	if p.Media != 0 {
		in.media = p.Media
	}
	in.reserved = int64(p.ReservedSectors)
	switch {
	case in.reserved == 0 && in.typ == FAT32:
		in.reserved = 32
	case in.reserved == 0:
		in.reserved = 1
	case in.typ == FAT32 && in.reserved < 2:
		return nil, paramErrorf("FAT32 needs at least 2 reserved sectors (boot sector and FSINFO), %d asked", p.ReservedSectors)
	}
	if in.spc == 0 {
		in.spc, in.maxSPC = defSPC, maxSecPerClus
	}

	in.sectors = min(total, 0xFFFFFFFF)
	if p.AlignData {
		in.sectors = in.sectors / int64(in.spt) * int64(in.spt)
	}
	in.rootSecs = ceilDiv(int64(rootEntries)*dirEntryLen, in.ss)
	in.align = p.AlignData && in.sectors > tinyVolume

	var err error
	if in.label, err = encodeLabel(p.Label, false); err != nil {
		return nil, err
	}
	oem := p.OEMName
	if oem == "" {
		oem = "mkfs.fat"
	}
	if len(oem) > 8 {
		return nil, paramErrorf("OEM name %q is longer than 8 bytes", oem)
	}
	copy(in.oem[:], oem+"        ")
	return in, nil
}

// clusterSize sets spc and maxSPC from ClusterSize or SectorsPerCluster.
func (in *planInput) clusterSize() error {
	p := in.p
	spc := int64(p.SectorsPerCluster)
	if p.ClusterSize != 0 {
		cs := int64(p.ClusterSize)
		if cs < in.ss || cs%in.ss != 0 || !isPow2(uint32(cs/in.ss)) || cs/in.ss > 1<<16 {
			return paramErrorf("cluster size %d is not the %d-byte sector size times a power of two", p.ClusterSize, in.ss)
		}
		if spc != 0 && spc != cs/in.ss {
			return paramErrorf("cluster size %d and %d sectors per cluster of %d bytes disagree", p.ClusterSize, spc, in.ss)
		}
		spc = cs / in.ss
	}
	if spc == 0 {
		return nil
	}
	if spc < 0 || !isPow2(uint32(min(spc, 1<<20))) || spc > maxSecPerClus {
		return paramErrorf("%d sectors per cluster (%s clusters) is not possible: FAT allows a power of two up to %d sectors, %s with %d-byte sectors",
			spc, sizeString(spc*in.ss), maxSecPerClus, sizeString(maxSecPerClus*in.ss), in.ss)
	}
	in.spc, in.maxSPC = spc, spc
	return nil
}

// defaultGeometry is mkfs.fat's CHS geometry for a volume of total sectors
// when the device reports none.
func defaultGeometry(total int64) (heads, spt uint16) {
	if total <= 524288 { // SD card specification, up to 256 MiB
		switch {
		case total <= 32768:
			heads = 2
		case total <= 65536:
			heads = 4
		case total <= 262144:
			heads = 8
		default:
			heads = 16
		}
		if total <= 4096 {
			return heads, 16
		}
		return heads, 32
	}
	const cyl = 63 * 1024 // LBA-assist translation: at most 1024 cylinders of 63 sectors
	switch {
	case total <= 16*cyl:
		return 16, 63
	case total <= 32*cyl:
		return 32, 63
	case total <= 64*cyl:
		return 64, 63
	case total <= 128*cyl:
		return 128, 63
	}
	return 255, 63
}

// fat32ClusterSectors is mkfs.fat's FAT32 cluster size for a volume of
// total sectors (the table of Microsoft's format command, counted in
// sectors whatever their size).
func fat32ClusterSectors(total int64) int64 {
	switch {
	case total > 64<<20:
		return 64
	case total > 32<<20:
		return 32
	case total > 16<<20:
		return 16
	case total > 260*1024*2:
		return 8
	}
	return 1
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// planSpare is Plan with FATs sized for a larger volume: the volume is
// planned as asked, then again with its type and cluster size and FATs
// that count the clusters the larger size would have (estimated from
// this volume's data offset, which only overcounts: the larger FATs leave
// fewer).
func planSpare(p FormatParams) (*BootSector, *Layout, error) {
	q := p
	q.FATSpareFor, q.FATSpareTimes = 0, 0
	_, l, err := Plan(q)
	if err != nil {
		return nil, nil, err
	}
	target := max(p.FATSpareFor, l.TotalSize*int64(max(p.FATSpareTimes, 1)))
	if target <= l.TotalSize {
		return Plan(q)
	}
	var top int64
	switch l.Type {
	case FAT12:
		top = maxClusters12
	case FAT16:
		top = maxClusters16
	default:
		top = MaxClusters32
	}
	count := min((target-l.DataOffset)/l.ClusterSize, top)
	secs := ceilDiv(fatBytes(l.Type, uint32(count)), l.SectorSize)
	if spc := l.ClusterSize / l.SectorSize; p.AlignData {
		secs = ceilDiv(secs, spc) * spc
	}
	q.Type, q.ClusterSize, q.SectorsPerCluster, q.FATSectors = l.Type, int(l.ClusterSize), 0, int(secs)
	q.AllowSmallFAT32 = p.AllowSmallFAT32 || (l.Type == FAT32 && l.Clusters < MinClusters32)
	bs, nl, err := Plan(q)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (with FATs of %d sectors, sized for a %s volume)", err, secs, sizeString(target))
	}
	return bs, nl, nil
}
