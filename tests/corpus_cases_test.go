package tests

import (
	"fmt"
	"strings"
)

// corpusCase is one image of the damaged corpus: a base and a patch.
type corpusCase struct {
	name, from, what string
	make             func(base func(string) []byte) []byte
}

// corpusPatch builds a case that patches a base volume in place.
func corpusPatch(name, from, what string, f func(v *gvol)) corpusCase {
	return corpusCase{name, from, what, func(base func(string) []byte) []byte {
		v := parseGvol(base(from))
		f(v)
		return v.b
	}}
}

// corpusCut builds a case that truncates a base at the byte offset off(v).
func corpusCut(name, from, what string, off func(v *gvol) int) corpusCase {
	return corpusCase{name, from, what, func(base func(string) []byte) []byte {
		v := parseGvol(base(from))
		return v.b[:off(v)]
	}}
}

// Short names of the base tree, as on disk.
const (
	nHello = "HELLO   TXT"
	nBig   = "BIG     BIN"
	nSub   = "SUB        "
	nLong  = "LONGFI~1TXT"
	nInner = "INNER   TXT"
	nDeep  = "DEEP       "
)

// corpusNoise is deterministic pseudo-random bytes.
func corpusNoise(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// lfnOf adds a long-named entry to directory dir.
func (v *gvol) lfnOf(dir uint32, long, short string, attr byte, c, size uint32, seqs []byte, sum int) {
	s := lfnSum(short)
	if sum >= 0 {
		s = byte(sum)
	}
	v.addEntry(dir, lfnEntry(long, short, attr, c, size, seqs, s))
}

// dataFile allocates one cluster holding text and returns it.
func (v *gvol) dataFile(text string) uint32 {
	c := v.alloc()
	copy(v.b[v.coff(c):], text)
	return c
}

var corpusCases = []corpusCase{
	// Truncated images.
	corpusCut("trunc-empty", "f12", "a 0-byte image", func(v *gvol) int { return 0 }),
	corpusCut("trunc-boot", "f12", "cut at byte 300, inside the boot sector", func(v *gvol) int { return 300 }),
	corpusCut("trunc-fat-half", "f16", "cut at half the first FAT", func(v *gvol) int { return v.fatOff(0) + v.fsz*v.bps/2 }),
	corpusCut("trunc-fat32-fat", "f32", "cut at half the first FAT (FAT32)", func(v *gvol) int { return v.fatOff(0) + v.fsz*v.bps/2 }),
	corpusCut("trunc-data", "f32", "cut 100 bytes into BIG.BIN's fourth cluster: files and the FAT point past the end", func(v *gvol) int {
		return v.coff(v.cluster(v.find(0, nBig))) + 3*v.csize() + 100
	}),
	corpusCut("trunc-f12-data", "f12", "cut in the data area, BIG.BIN and SUB beyond the end", func(v *gvol) int {
		return v.coff(v.cluster(v.find(0, nBig))) + 1000
	}),

	// Zeroed boot sectors.
	corpusPatch("zero-boot-f16", "f16", "boot sector zeroed (FAT16 has no backup)", func(v *gvol) { clear(v.b[:512]) }),
	corpusPatch("zero-boot-f32", "f32", "boot sector zeroed; the backup in sector 6 is intact", func(v *gvol) { clear(v.b[:512]) }),
	corpusPatch("zero-boot-f32-both", "f32", "boot sector, FSINFO and the backup boot sector zeroed", func(v *gvol) {
		clear(v.b[:1024])
		clear(v.b[6*512 : 7*512])
	}),
	corpusPatch("zero-signature", "f12", "boot signature 0x55AA at 0x1fe cleared, the rest intact", func(v *gvol) { v.put16(510, 0) }),

	// Absurd BPB values.
	corpusPatch("bpb-reserved-huge", "f16", "reserved sectors 65535 (far past the end)", func(v *gvol) { v.put16(14, 0xFFFF) }),
	corpusPatch("bpb-reserved-zero", "f16", "reserved sectors 0 (the FAT would overlap the boot sector)", func(v *gvol) { v.put16(14, 0) }),
	corpusPatch("bpb-fats-0", "f16", "number of FATs 0", func(v *gvol) { v.b[16] = 0 }),
	corpusPatch("bpb-fats-255", "f12", "number of FATs 255", func(v *gvol) { v.b[16] = 255 }),
	corpusPatch("bpb-root-65535", "f12", "root entries 65535 on a 1 MiB volume (and not a whole number of sectors)", func(v *gvol) { v.put16(17, 0xFFFF) }),
	corpusPatch("bpb-root-0-f16", "f16", "root entries 0 on FAT16", func(v *gvol) { v.put16(17, 0) }),
	corpusPatch("bpb-total-huge", "f16", "total sectors 0xFFFFFFFF (16-bit field 0), far bigger than the file", func(v *gvol) {
		v.put16(19, 0)
		v.put32(32, 0xFFFFFFFF)
	}),
	corpusPatch("bpb-total-bigger", "f12", "total sectors 4096 on a 1 MiB (2048-sector) file", func(v *gvol) { v.put16(19, 4096) }),
	corpusPatch("bpb-total-zero", "f12", "both total sector fields 0", func(v *gvol) {
		v.put16(19, 0)
		v.put32(32, 0)
	}),
	corpusPatch("bpb-fatsz-0-f16", "f16", "sectors per FAT 0 on FAT16 (so it reads as FAT32 with the FAT16 extended BPB as FAT32 fields)", func(v *gvol) { v.put16(22, 0) }),
	corpusPatch("bpb-fatsz-huge-f32", "f32", "FAT32 sectors per FAT 0xFFFFFFFF", func(v *gvol) { v.put32(36, 0xFFFFFFFF) }),
	corpusPatch("bpb-bps-300", "f16", "bytes per sector 300", func(v *gvol) { v.put16(11, 300) }),
	corpusPatch("bpb-bps-32768", "f12", "bytes per sector 32768", func(v *gvol) { v.put16(11, 32768) }),
	corpusPatch("bpb-spc-0", "f16", "sectors per cluster 0", func(v *gvol) { v.b[13] = 0 }),
	corpusPatch("bpb-spc-255", "f16", "sectors per cluster 255 (not a power of two)", func(v *gvol) { v.b[13] = 255 }),
	corpusPatch("bpb-spc-128", "f12", "sectors per cluster 128 (64 KiB clusters, a handful of them, files now cross-linked)", func(v *gvol) { v.b[13] = 128 }),
	corpusPatch("bpb-f32-root-0", "f32", "FAT32 root cluster 0", func(v *gvol) { v.put32(44, 0) }),
	corpusPatch("bpb-f32-root-1", "f32", "FAT32 root cluster 1", func(v *gvol) { v.put32(44, 1) }),
	corpusPatch("bpb-f32-root-past", "f32", "FAT32 root cluster one past the last cluster", func(v *gvol) { v.put32(44, v.maxCluster()+1) }),
	corpusPatch("bpb-f32-root-huge", "f32", "FAT32 root cluster 0x0FFFFFF0", func(v *gvol) { v.put32(44, 0x0FFFFFF0) }),
	corpusPatch("bpb-f32-fsinfo-past", "f32", "FSINFO sector 65535, past the reserved region and the volume", func(v *gvol) { v.put16(48, 0xFFFF) }),
	corpusPatch("bpb-f32-fsinfo-fat", "f32", "FSINFO sector = the first FAT sector (past the reserved region)", func(v *gvol) { v.put16(48, uint16(v.res)) }),
	corpusPatch("bpb-f32-backup-past", "f32", "backup boot sector 65535 and the primary's signature cleared", func(v *gvol) {
		v.put16(50, 0xFFFF)
		v.put16(510, 0)
	}),
	corpusPatch("bpb-f32-version", "f32", "FAT32 version 0x0101 and extended flags: active FAT 15, mirroring off", func(v *gvol) {
		v.put16(42, 0x0101)
		v.put16(40, 0x008F)
	}),
	corpusPatch("fsinfo-absurd", "f32", "FSINFO free count 0xFFFFFFF0 and next free 0x0FFFFFFE", func(v *gvol) {
		v.put32(512+488, 0xFFFFFFF0)
		v.put32(512+492, 0x0FFFFFFE)
	}),

	// FAT chains.
	corpusPatch("loop-file", "f16", "BIG.BIN's chain loops: first -> second -> first (as 5 -> 6 -> 5)", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[1], c[0])
	}),
	corpusPatch("loop-self", "f16", "HELLO.TXT's cluster points to itself; its size says 1 MiB", func(v *gvol) {
		off := v.find(0, nHello)
		v.set(v.cluster(off), v.cluster(off))
		v.put32(off+28, 1<<20)
	}),
	corpusPatch("loop-long", "f16", "BIG.BIN's last cluster points back to its first: a 40-cluster loop", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[len(c)-1], c[0])
	}),
	corpusPatch("loop-dir", "f32", "SUB's cluster chain loops through a second cluster back to its first; both full of deleted slots", func(v *gvol) {
		s := v.cluster(v.find(0, nSub))
		x := v.alloc()
		v.set(s, x)
		v.set(x, s)
		v.fillDeleted(s, x)
	}),
	corpusPatch("loop-root-f32", "f32", "the FAT32 root cluster points to itself; root full of deleted slots", func(v *gvol) {
		v.set(v.rootClus, v.rootClus)
		v.fillDeleted(v.rootClus)
	}),
	corpusPatch("chain-past-end", "f16", "BIG.BIN's second cluster points one past the last cluster", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[1], v.maxCluster()+1)
	}),
	corpusPatch("chain-past-end-f12", "f12", "BIG.BIN's first cluster points to 0xFEF (past the end, below the reserved values)", func(v *gvol) {
		v.set(v.cluster(v.find(0, nBig)), 0xFEF)
	}),
	corpusPatch("chain-past-end-f32", "f32", "BIG.BIN's third cluster points to 0x0FFFFFF0 (reserved value)", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[2], 0x0FFFFFF0)
	}),
	corpusPatch("chain-free-bad", "f16", "BIG.BIN's chain runs into a free cluster; SUB's into a bad one (0xFFF7)", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[3], 0)
		v.set(v.cluster(v.find(0, nSub)), 0xFFF7)
	}),
	corpusPatch("crosslink", "f16", "HELLO.TXT's chain continues into BIG.BIN's sixth cluster (two files share clusters)", func(v *gvol) {
		off := v.find(0, nHello)
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(v.cluster(off), c[5])
		v.put32(off+28, 5000)
	}),
	corpusPatch("fat-copies-differ", "f16", "the two FATs differ (FAT 2 has a different chain for BIG.BIN); media byte in FAT[0] 0xF0", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.put16(v.fatOff(1)+2*int(c[2]), 0x1234)
		v.b[v.fatOff(0)] = 0xF0
	}),
	corpusCase{"fat-noise", "f12", "FAT and root directory overwritten with pseudo-random bytes", func(base func(string) []byte) []byte {
		v := parseGvol(base("f12"))
		copy(v.b[v.fatOff(0):v.dataOff()], corpusNoise(v.dataOff()-v.fatOff(0), 7))
		return v.b
	}},
	corpusCase{"noise", "-", "64 KiB of pseudo-random bytes with a boot signature", func(func(string) []byte) []byte {
		b := corpusNoise(64<<10, 3)
		b[510], b[511] = 0x55, 0xAA
		return b
	}},

	// Directory entries.
	corpusPatch("dirent-past-end", "f16", "HELLO.TXT starts one past the last cluster, SUB at 0xFFEF", func(v *gvol) {
		v.setCluster(v.find(0, nHello), v.maxCluster()+1)
		v.setCluster(v.find(0, nSub), 0xFFEF)
	}),
	corpusPatch("dirent-past-end-f32", "f32", "HELLO.TXT starts at 0xFFFF0100 (upper bits set), SUB at 0x0FFFFFF0", func(v *gvol) {
		v.setCluster(v.find(0, nHello), 0xFFFF0100)
		v.setCluster(v.find(0, nSub), 0x0FFFFFF0)
	}),
	corpusPatch("dirent-reserved", "f16", "HELLO.TXT starts at 0xFFF7 (bad), BIG.BIN at 0xFFF8 (end of chain), SUB at 0xFFFF", func(v *gvol) {
		v.setCluster(v.find(0, nHello), 0xFFF7)
		v.setCluster(v.find(0, nBig), 0xFFF8)
		v.setCluster(v.find(0, nSub), 0xFFFF)
	}),
	corpusPatch("dirent-cluster-1", "f12", "HELLO.TXT and SUB start at cluster 1", func(v *gvol) {
		v.setCluster(v.find(0, nHello), 1)
		v.setCluster(v.find(0, nSub), 1)
	}),
	corpusPatch("dirent-cluster-0", "f16", "HELLO.TXT has cluster 0 but size 100; SUB/DEEP has cluster 0 (the root)", func(v *gvol) {
		v.setCluster(v.find(0, nHello), 0)
		v.setCluster(v.find(v.cluster(v.find(0, nSub)), nDeep), 0)
	}),
	corpusPatch("size-4g", "f32", "HELLO.TXT's size is 4 GiB-1 with a one-cluster chain; SUB's size is 4 GiB-1 too", func(v *gvol) {
		v.put32(v.find(0, nHello)+28, 0xFFFFFFFF)
		v.put32(v.find(0, nSub)+28, 0xFFFFFFFF)
	}),

	// Long names.
	corpusPatch("lfn-bad-seq", "f16", "long names with sequence numbers 0x43,0x05,0x01 / 0x41,0x42,0x43 / 0x40,0x00,0x00", func(v *gvol) {
		long := "Bad Sequence Numbers In This Name.txt"
		for i, seqs := range [][]byte{{0x43, 0x05, 0x01}, {0x41, 0x42, 0x43}, {0x40, 0x00, 0x00}} {
			v.lfnOf(0, long+fmt.Sprint(i), fmt.Sprintf("BADSEQ~%dTXT", i), 0x20, v.dataFile("seq"), 3, seqs, -1)
		}
	}),
	corpusPatch("lfn-bad-checksum", "f16", "a three-slot long name whose checksum does not match its short entry", func(v *gvol) {
		v.lfnOf(0, "Wrong Checksum On Every Slot.txt", "WRONGC~1TXT", 0x20, v.dataFile("sum"), 3, nil, int(lfnSum("WRONGC~1TXT")^0x5A))
	}),
	corpusPatch("lfn-orphan", "f16", "orphan LFN slots: before a deleted entry, a lone middle slot, and slots at the end of SUB's cluster", func(v *gvol) {
		e := lfnEntry("Orphaned Before Deleted.txt", "ORPHAN~1TXT", 0x20, 0, 0, nil, lfnSum("ORPHAN~1TXT"))
		e[len(e)-32] = 0xE5
		v.addEntry(0, e)
		u := lfnEntry("Lone Middle Slot Name Here.txt", "LONEMI~1TXT", 0x20, 0, 0, nil, lfnSum("LONEMI~1TXT"))
		v.addEntry(0, u[32:64])
		v.addEntry(0, shortEnt("AFTERLNETXT", 0x20, v.dataFile("after"), 5))
		s := v.cluster(v.find(0, nSub))
		v.fillDeleted(s)
		copy(v.b[v.coff(s)+v.csize()-64:], e[:64])
	}),
	corpusPatch("lfn-20x40", "f16", "a 250-character name in 20 slots, every one flagged last (0x40); and 20 slots all 0x54", func(v *gvol) {
		long := strings.Repeat("L", 250)
		seqs := make([]byte, 20)
		same := make([]byte, 20)
		for i := range seqs {
			seqs[i] = 0x40 | byte(20-i)
			same[i] = 0x54
		}
		v.lfnOf(0, long, "LLLLLL~1   ", 0x20, 0, 0, seqs, -1)
		v.lfnOf(0, long, "LLLLLL~2   ", 0x20, 0, 0, same, -1)
	}),
	corpusPatch("lfn-too-long", "f16", "a 273-character long name in 21 slots (limit 255), and one of 0x3F slots numbered 0x7F", func(v *gvol) {
		v.lfnOf(0, strings.Repeat("x", 273), "XXXXXX~1   ", 0x20, 0, 0, nil, -1)
		v.addEntry(0, lfnSlot(0x7F, []uint16{'a'}, 1, 0))
	}),
	corpusPatch("lfn-utf16", "f16", "long names with a lone surrogate, 0xFFFF inside the name, and a name of just a NUL", func(v *gvol) {
		bad := func(u []uint16, short string) {
			sl := lfnSlot(0x41, u, 1, lfnSum(short))
			v.addEntry(0, append(sl, shortEnt(short, 0x20, 0, 0)...))
		}
		bad([]uint16{'a', 0xD800, 'b'}, "SURROG~1TXT")
		bad([]uint16{'a', 0xFFFF, 'b', 'c'}, "FFFF~1  TXT")
		bad([]uint16{}, "EMPTYL~1TXT")
	}),

	// Directory structure.
	corpusPatch("dirloop-parent", "f16", "SUB/LOOP points to SUB itself, SUB/DEEP/UP to SUB (a cycle through the parent)", func(v *gvol) {
		s := v.cluster(v.find(0, nSub))
		v.addEntry(s, shortEnt("LOOP", 0x10, s, 0))
		v.addEntry(v.cluster(v.find(s, nDeep)), shortEnt("UP", 0x10, s, 0))
	}),
	corpusPatch("dirloop-root-f16", "f16", "SUB/ROOT is a directory entry with cluster 0 (the root)", func(v *gvol) {
		v.addEntry(v.cluster(v.find(0, nSub)), shortEnt("ROOT", 0x10, 0, 0))
	}),
	corpusPatch("dirloop-root-f32", "f32", "SUB/ROOT points to the root cluster; SUB/DEEP/TOP too", func(v *gvol) {
		s := v.cluster(v.find(0, nSub))
		v.addEntry(s, shortEnt("ROOT", 0x10, v.rootClus, 0))
		v.addEntry(v.cluster(v.find(s, nDeep)), shortEnt("TOP", 0x10, v.rootClus, 0))
	}),
	corpusPatch("deep-dirs", "f32", "2,500 nested directories D/D/D/... of one cluster each (1.25 MiB of directory clusters)", func(v *gvol) {
		parent, dir := v.rootClus, uint32(0)
		for i := 0; i < 2500; i++ {
			c := v.mkdir(parent)
			v.addEntry(dir, shortEnt("D", 0x10, c, 0))
			parent, dir = c, c
		}
		v.addEntry(dir, shortEnt("BOTTOM  TXT", 0x20, v.dataFile("bottom"), 6))
	}),
	corpusPatch("wide-dir", "f32big", "a FAT32 root of 66,048 slots in a 4,128-cluster chain: every 64th a file, the others deleted", func(v *gvol) {
		const clusters = 4128
		for i := uint32(0); i < clusters; i++ {
			c := v.rootClus + i
			if i+1 < clusters {
				v.set(c, c+1)
			} else {
				v.set(c, v.eoc())
			}
		}
		for i, off := range v.slots(0) {
			switch {
			case i == 0: // the label
			case i%64 == 1:
				copy(v.b[off:], shortEnt(fmt.Sprintf("W%07dTXT", i), 0x20, 0, 0))
			default:
				copy(v.b[off:], shortEnt("\xe5ELETED", 0x20, 0, 0))
			}
		}
	}),
	corpusPatch("label-in-subdir", "f16", "volume label entries in SUB and a second one in the root", func(v *gvol) {
		v.addEntry(v.cluster(v.find(0, nSub)), shortEnt("SUBLABEL", 0x08, 0, 0))
		v.addEntry(0, shortEnt("SECONDLABEL", 0x08, 0, 0))
	}),
	corpusPatch("dot-elsewhere", "f16", "SUB's \".\" points to BIG.BIN, SUB/DEEP's \"..\" to DEEP itself, and a \".\" entry in the root points to SUB", func(v *gvol) {
		s := v.cluster(v.find(0, nSub))
		v.setCluster(v.coff(s), v.cluster(v.find(0, nBig)))
		d := v.cluster(v.find(s, nDeep))
		v.setCluster(v.coff(d)+32, d)
		v.addEntry(0, shortEnt(".", 0x10, s, 0))
	}),
	corpusPatch("names-bad", "f16", "names with '/', '..', '.', NUL and control bytes, absolute and escaping long names, duplicates", func(v *gvol) {
		f := func(s string) uint32 { return v.dataFile(s) }
		for _, e := range []struct {
			short string
			attr  byte
		}{{"A/B     TXT", 0x20}, {"..         ", 0x20}, {".          ", 0x20}, {"A\x00B    TXT", 0x20},
			{"\x01CTL    TXT", 0x20}, {"\x05ANJI   TXT", 0x20}, {"DUP     TXT", 0x20}, {"DUP     TXT", 0x20},
			{"DUPD       ", 0x20}, {"  SPACE TXT", 0x20}, {"LOW\x7f   TXT", 0x20}} {
			v.addEntry(0, shortEnt(e.short, e.attr, f("short "+e.short), 16))
		}
		v.addEntry(0, shortEnt("DUPD", 0x10, v.mkdir(0), 0))
		for i, long := range []string{"../../escape.txt", "..", ".", "a/b.txt", "/abs.txt", "x\x00y.txt",
			"ctl\x01\x1f.txt", "HELLO.TXT", "Long File Name.txt", "   ", "trail."} {
			v.lfnOf(0, long, fmt.Sprintf("BADNM~%02d   ", i), 0x20, f("long "+long), 8, nil, -1)
		}
		dd := v.mkdir(0)
		v.addEntry(dd, shortEnt("ESC     TXT", 0x20, f("escaped"), 7))
		v.lfnOf(0, "..", "DOTDOT     ", 0x10, dd, 0, nil, -1)
		v.lfnOf(0, "../up", "DOTUP      ", 0x10, dd, 0, nil, -1)
	}),
}
