package fat

import (
	"fmt"
	"strconv"
)

// fitResult is the outcome of fitting one FAT type at one cluster size.
type fitResult struct {
	clusters int64 // cluster count, possibly outside the type's limits
	fatLen   int64 // sectors per FAT
	ok       bool  // clusters within the type's limits
}

// fitted is what Plan goes on with: the chosen type and its numbers.
type fitted struct {
	typ      Type
	spc      int64
	clusters int64
	fatLen   int64
	reserved int64
	rootSecs int64
}

// alignUp rounds n up to a multiple of to when aligning.
func (in *planInput) alignUp(n, to int64) int64 {
	if !in.align {
		return n
	}
	return ceilDiv(n, to) * to
}

// try computes the cluster count and FAT size of type t at spc sectors
// per cluster: estimate the clusters from the space, size the FAT for
// them, then count the clusters the space left by that FAT really holds.
// The factor 2 in the FAT12 estimate keeps 1.5-byte entries exact.
func (in *planInput) try(t Type, spc int64) fitResult {
	ss, nf := in.ss, in.nf
	space := in.sectors - in.alignUp(in.reserved, spc)
	if t != FAT32 {
		space -= in.alignUp(in.rootSecs, spc)
	}
	var est, fatLen int64
	switch t {
	case FAT12:
		est = 2 * (space*ss + nf*3) / (2*spc*ss + nf*3)
		fatLen = ceilDiv(((est+2)*3+1)/2, ss)
	case FAT16:
		est = (space*ss + nf*4) / (spc*ss + nf*2)
		fatLen = ceilDiv((est+2)*2, ss)
	default:
		est = (space*ss + nf*8) / (spc*ss + nf*4)
		fatLen = ceilDiv((est+2)*4, ss)
	}
	fatLen = in.alignUp(fatLen, spc)
	if in.p.FATSectors > 0 {
		fatLen = int64(in.p.FATSectors)
	}
	r := fitResult{fatLen: fatLen}
	if rest := space - nf*fatLen; rest > 0 {
		r.clusters = rest / spc
	}
	lo, hi := in.limits(t)
	// The FAT must also have an entry for every cluster.
	entries := fatLen * ss * 8 / int64(t)
	r.ok = r.clusters >= lo && r.clusters <= hi && r.clusters <= entries-2
	return r
}

// limits is the allowed cluster count range of type t.
func (in *planInput) limits(t Type) (lo, hi int64) {
	switch t {
	case FAT12:
		return 1, maxClusters12
	case FAT16:
		return minClusters16, maxClusters16
	}
	if in.explicit32 {
		return 1, MaxClusters32
	}
	return MinClusters32, MaxClusters32
}

// fit searches the cluster size as mkfs.fat does and picks the type.
func fit(in *planInput) (*fitted, error) {
	types := []Type{in.typ}
	if in.typ == 0 {
		types = []Type{FAT12, FAT16}
	}
	var first, last map[Type]fitResult
	for spc := in.spc; spc <= in.maxSPC; spc *= 2 {
		res := map[Type]fitResult{}
		for _, t := range types {
			res[t] = in.try(t, spc)
		}
		if first == nil {
			first = res
		}
		last = res
		t := Type(0)
		if in.typ == 0 {
			// mkfs.fat: FAT16 when it gives more clusters than FAT12.
			r12, r16 := res[FAT12], res[FAT16]
			switch {
			case r16.ok && (!r12.ok || r16.clusters > r12.clusters):
				t = FAT16
			case r12.ok:
				t = FAT12
			}
		} else if res[in.typ].ok {
			t = in.typ
		}
		if t == 0 {
			continue
		}
		return in.finish(t, spc, res[t])
	}
	return nil, in.explain(types, first, last)
}

// finish applies the final alignment and mkfs.fat's minimum size rule.
func (in *planInput) finish(t Type, spc int64, r fitResult) (*fitted, error) {
	f := &fitted{typ: t, spc: spc, clusters: r.clusters, fatLen: r.fatLen}
	f.reserved = in.alignUp(in.reserved, spc)
	if f.reserved > 0xFFFF {
		return nil, paramErrorf("%d reserved sectors aligned to %d-sector clusters make %d, more than the boot sector field's 65535", in.reserved, spc, f.reserved)
	}
	if t != FAT32 {
		f.rootSecs = in.alignUp(in.rootSecs, spc)
	}
	dataStart := (f.reserved + in.nf*f.fatLen + f.rootSecs) * in.ss
	if in.size/1024 < ceilDiv(dataStart, 1024)+minBlocksPastDS {
		return nil, paramErrorf("a volume of %s is too small: its data area would start at byte %s and mkfs.fat wants at least %d KiB after that",
			sizeString(in.size), commas(dataStart), minBlocksPastDS)
	}
	return f, nil
}

// explain turns a failed search into one sentence naming the limit.
func (in *planInput) explain(types []Type, first, last map[Type]fitResult) error {
	size := sizeString(in.size)
	smallCS, bigCS := clusterString(in.spc*in.ss), clusterString(in.maxSPC*in.ss)
	if len(types) == 2 { // automatic FAT12/16 (below 512 MiB)
		big, s12, s16 := last[FAT16], first[FAT12], first[FAT16]
		switch {
		case big.clusters > maxClusters16:
			return paramErrorf("FAT16 allows at most %s clusters; %s with %s clusters would have %s -- use FAT32%s",
				commas(maxClusters16), size, bigCS, commas(big.clusters), orLarger(in))
		case s12.clusters > maxClusters12 && s16.clusters < minClusters16:
			return paramErrorf("%s with %s clusters falls between FAT12 (at most %s clusters, this would be %s) and FAT16 (at least %s, this would be %s) -- use another cluster size",
				size, smallCS, commas(maxClusters12), commas(s12.clusters), commas(minClusters16), commas(s16.clusters))
		}
		return paramErrorf("a volume of %s is too small for FAT12 or FAT16 with %s clusters", size, smallCS)
	}
	t := types[0]
	lo, hi := in.limits(t)
	small, big := first[t], last[t]
	switch {
	case big.clusters > hi:
		alt := map[Type]string{FAT12: "use FAT16 or FAT32", FAT16: "use FAT32", FAT32: "use larger sectors"}[t]
		return paramErrorf("%s allows at most %s clusters; %s with %s clusters would have %s -- %s%s",
			t, commas(hi), size, bigCS, commas(big.clusters), alt, orLarger(in))
	case small.clusters >= 1 && small.clusters < lo:
		alt := map[Type]string{FAT16: "FAT12", FAT32: "use FAT16, or allow a small FAT32 (fmkfs --force)"}[t]
		why := map[Type]string{FAT16: " (fewer would be taken for FAT12)", FAT32: " (fewer would be taken for FAT16)"}[t]
		switch {
		case in.spc > 1 && t == FAT16:
			alt = "use smaller clusters or FAT12"
		case in.spc > 1:
			alt = "use smaller clusters, " + alt
		case t == FAT16:
			alt = "use FAT12"
		}
		return paramErrorf("%s needs at least %s clusters%s; %s with %s clusters would have %s -- %s",
			t, commas(lo), why, size, smallCS, commas(small.clusters), alt)
	}
	return paramErrorf("a volume of %s is too small for %s with %s clusters", size, t, smallCS)
}

// orLarger suggests larger clusters when the search did not reach the
// largest.
func orLarger(in *planInput) string {
	if in.maxSPC < maxSecPerClus {
		return " or larger clusters"
	}
	return ""
}

// clusterString names a cluster size: "512-byte", "4 KiB".
func clusterString(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d-byte", n)
	}
	return sizeString(n)
}

// bootSector builds the boot sector of the fitted volume.
func (in *planInput) bootSector(f *fitted) *BootSector {
	p := in.p
	bs := &BootSector{
		OEMName:           in.oem,
		BytesPerSector:    uint16(in.ss),
		SectorsPerCluster: uint8(f.spc),
		ReservedSectors:   uint16(f.reserved),
		NumFATs:           uint8(in.nf),
		RootEntries:       uint16(f.rootSecs * in.ss / dirEntryLen),
		Media:             in.media,
		SectorsPerTrack:   in.spt,
		Heads:             in.heads,
		HiddenSectors:     p.HiddenSectors,
		DriveNumber:       p.DriveNumber,
		BootSig:           ExtBootSig,
		VolumeID:          p.VolumeID,
		VolumeLabel:       in.label,
		Is32:              f.typ == FAT32,
	}
	if in.sectors >= 1<<16 {
		bs.TotalSectors32 = uint32(in.sectors)
	} else {
		bs.TotalSectors16 = uint16(in.sectors)
	}
	if bs.DriveNumber == 0 && in.media == 0xF8 {
		bs.DriveNumber = 0x80
	}
	copy(bs.FSType[:], f.typ.String()+"   ")
	if f.typ != FAT32 {
		bs.Jump = [3]byte{0xEB, bootCode16 - 2, 0x90}
		bs.FATSize16 = uint16(f.fatLen)
		return bs
	}
	bs.Jump = [3]byte{0xEB, bootCode32 - 2, 0x90}
	bs.FATSize32 = uint32(f.fatLen)
	bs.RootCluster = uint32(FirstCluster)
	bs.FSInfoSector = 1
	bs.BackupBootSector = backupBootSector(f.reserved, 1)
	return bs
}

// backupBootSector is where mkfs.fat puts the backup boot sector: sector 6
// when there is room, else the last reserved sectors clear of FSINFO, else
// none (0).
func backupBootSector(reserved int64, info int64) uint16 {
	switch {
	case reserved >= 7 && info != 6:
		return 6
	case reserved >= 3+info && info != reserved-2 && info != reserved-1:
		return uint16(reserved - 2)
	case reserved >= 3 && info != reserved-1:
		return uint16(reserved - 1)
	}
	return 0
}

// sizeString writes n bytes in the largest binary unit that divides it.
func sizeString(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return commas(n) + " bytes"
}

// commas writes n with thousands separators: 262,144.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
