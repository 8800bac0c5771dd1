package tests

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// classCase is an image of one class of damage fsck.fat knows, built from
// a base made by mkfs.fat and mcopy, with what fsck.fat -n says of it:
// TestFverifyAgainstFsck holds fverify's check and repair against it.
type classCase struct {
	corpusCase
	class    string // the damage class, shared by its FAT12/16/32 images
	kind     string // the problem kind fverify reports; "" if only a warning
	fsckN    int    // fsck.fat -n's exit status; -1: it gives up on the volume
	fsckSays string // a phrase of fsck.fat -n's report ("" if it says nothing)
	repair   []string
	// noRepair: neither tool can repair the volume; only the verdicts are
	// compared.
	noRepair bool
	// keeps says how fverify's repair keeps more than fsck.fat -a's, where
	// it does: the paths fsck.fat -a keeps that fverify's repair need not
	// (fsck.fat keeps an emptied file there, or renames a file fverify
	// keeps under its name).
	keeps []string
}

// classFATs are the bases of a class: FAT12, FAT16, FAT32.
const classFATs = "m12 m16 m32"

// classes builds one case per base named in fats.
func classes(fats, class, kind string, fsckN int, fsckSays, what string, patch func(v *gvol)) []classCase {
	var out []classCase
	for _, b := range strings.Fields(fats) {
		name := "class-" + class + "-" + b
		recount := !strings.HasPrefix(class, "fsinfo") && class != "crash-fat1-newer"
		out = append(out, classCase{corpusCase: corpusPatch(name, b, what, func(v *gvol) {
			patch(v)
			if recount && v.typ == 32 {
				v.recountFree()
			}
		}), class: class, kind: kind, fsckN: fsckN, fsckSays: fsckSays})
	}
	return out
}

// recountFree sets FSINFO's free count to FAT 1's, as the writer that
// allocated what a patch allocated would have: only the damage of the
// class is left to find.
func (v *gvol) recountFree() {
	free := uint32(0)
	for c := uint32(2); c <= v.maxCluster(); c++ {
		if v.get(c) == 0 {
			free++
		}
	}
	v.put32(512+488, free)
}

// with sets a field of every case of a class.
func with(cs []classCase, f func(c *classCase)) []classCase {
	for i := range cs {
		f(&cs[i])
	}
	return cs
}

// Offsets in the boot sector that depend on the type.
func (v *gvol) stateOff() int {
	if v.typ == 32 {
		return 0x41
	}
	return 0x25
}

func (v *gvol) labelOff() int { return v.stateOff() + 6 }

// setBootLabel writes a label into the boot sector (and the FAT32 backup).
func (v *gvol) setBootLabel(l string) {
	copy(v.b[v.labelOff():], (l + "           ")[:11])
	if v.typ == 32 {
		copy(v.b[6*512+v.labelOff():], (l + "           ")[:11])
	}
}

// setIn writes FAT entry c in copy i only.
func (v *gvol) setIn(i int, c, val uint32) {
	res, n := v.res, v.nfats
	v.res, v.nfats = v.res+i*v.fsz, 1
	v.set(c, val)
	v.res, v.nfats = res, n
}

// getRaw reads FAT entry c of copy 0 with the FAT32 top bits.
func (v *gvol) getRaw(c uint32) uint32 {
	if v.typ == 32 {
		return binary.LittleEndian.Uint32(v.b[v.fatOff(0)+int(c)*4:])
	}
	return v.get(c)
}

// setRaw writes entry c in every copy, all 32 bits on FAT32.
func (v *gvol) setRaw(c, val uint32) {
	if v.typ != 32 {
		v.set(c, val)
		return
	}
	for i := 0; i < v.nfats; i++ {
		binary.LittleEndian.PutUint32(v.b[v.fatOff(i)+int(c)*4:], val)
	}
}

func (v *gvol) bad() uint32 { return map[int]uint32{12: 0xFF7, 16: 0xFFF7, 32: 0x0FFFFFF7}[v.typ] }

// flags are FAT[1]'s clean-shutdown and no-hard-error bits.
func (v *gvol) flags() (clean, noErr uint32) {
	if v.typ == 32 {
		return 0x08000000, 0x04000000
	}
	return 0x8000, 0x4000
}

// lostChain allocates a chain of n clusters holding text, reachable from
// no entry, and returns its clusters.
func (v *gvol) lostChain(n int, text string) []uint32 {
	var cs []uint32
	for i := 0; i < n; i++ {
		c := v.dataFile(fmt.Sprintf("%s %d", text, i))
		if i > 0 {
			v.set(cs[i-1], c)
		}
		cs = append(cs, c)
	}
	return cs
}

func (v *gvol) sub() uint32  { return v.cluster(v.find(0, nSub)) }
func (v *gvol) deep() uint32 { return v.cluster(v.find(v.sub(), nDeep)) }

// dirSlot returns the offset of slot i of the directory at cluster c.
func (v *gvol) dirSlot(c uint32, i int) int { return v.coff(c) + 32*i }

// classList lists the classes; each becomes up to three images.
func classList() []classCase {
	var all []classCase
	add := func(cs ...[]classCase) {
		for _, c := range cs {
			all = append(all, c...)
		}
	}
	// Volume state.
	add(classes(classFATs, "dirty", "dirty", 1, "Dirty bit is set", "the boot sector's dirty bit is set", func(v *gvol) { v.b[v.stateOff()] |= 1 }))
	add(classes("m16 m32", "dirty-fat1", "dirty", 1, "Dirty bit is set", "FAT entry 1's clean-shutdown bit is clear in both FATs", func(v *gvol) {
		c, _ := v.flags()
		v.setRaw(1, v.getRaw(1)&^c)
	}))
	add(classes("m16 m32", "hard-error", "dirty", 0, "", "FAT entry 1's hard-error bit is clear (a disk error was met); fsck.fat does not look", func(v *gvol) {
		_, e := v.flags()
		v.setRaw(1, v.getRaw(1)&^e)
	}))
	add(classes(classFATs, "fat-copies", "fat-copies", 1, "FATs differ but appear to be intact", "FAT 2 marks a free cluster used; FAT 1 is sound", func(v *gvol) {
		v.setIn(1, v.maxCluster()-3, v.eoc())
	}))
	add(with(classes(classFATs, "fat1-damaged", "fat-copies", 1, "Contains a free cluster", "FAT 1 marks BIG.BIN's third cluster free; FAT 2 is sound (fsck.fat uses FAT 1 and cuts BIG.BIN)", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.setIn(0, c[2], 0)
	}), func(c *classCase) { c.keeps = []string{"/FSCK0000.REC"} }))
	add(classes("m16 m32", "crash-fat1-newer", "fat-copies", 1, "FATs differ but appear to be intact", "a crash under --sync file: FAT 1 holds a new 3-cluster chain that no entry names yet, FAT 2 does not, FSINFO's count is FAT 2's", func(v *gvol) {
		for _, c := range v.lostChain(3, "written before the crash") {
			v.setIn(1, c, 0)
		}
	}))
	add(classes(classFATs, "media", "media", 0, "", "FAT entry 0 holds media byte 0xf0, the boot sector says 0xf8 (both FATs); fsck.fat checks only the other bits", func(v *gvol) {
		for i := 0; i < v.nfats; i++ {
			v.b[v.fatOff(i)] = 0xF0
		}
	}))
	add(classes(classFATs, "fat-entry1", "fat-entry1", 0, "", "FAT entry 1 is not an end-of-chain mark (its flag bits aside)", func(v *gvol) {
		c, e := v.flags()
		if v.typ == 12 {
			c, e = 0, 0
		}
		v.setRaw(1, c|e)
	}))
	add(classes("m32", "fsinfo-signature", "fsinfo", 1, "FSINFO sector has bad magic number", "FSINFO's lead signature is damaged", func(v *gvol) { v.b[512] ^= 0xFF }))
	add(classes("m32", "fsinfo-free", "fsinfo", 1, "Free cluster summary wrong", "FSINFO's free count is 7", func(v *gvol) { v.put32(512+488, 7) }))
	add(classes("m32", "fsinfo-hint", "", 0, "", "FSINFO's next free hint is past the last cluster: a warning, as the hint is only a hint", func(v *gvol) { v.put32(512+492, 0x0FFFFFF0) }))
	add(classes("m32", "backup-boot", "backup-boot", 0, "differences between boot sector and its backup", "the backup boot sector differs in two bytes", func(v *gvol) {
		v.b[6*512+3] ^= 0x20
		v.b[6*512+0x34] = 0x42
	}))
	add(classes("m32", "backup-missing", "backup-boot", 1, "There is no backup boot sector", "the boot sector names no backup boot sector", func(v *gvol) { v.put16(0x32, 0) }))
	add(classes("m32", "fsinfo-missing", "fsinfo", 0, "No FSINFO sector", "the boot sector (and its backup) name no FSINFO sector; fsck.fat -a does not make one", func(v *gvol) {
		v.put16(0x30, 0)
		v.put16(6*512+0x30, 0)
	}))
	add(with(classes("m32", "boot-zeroed", "boot-sector", -1, "", "the boot sector is zeroed; the backup in sector 6 is intact (fsck.fat gives up)", func(v *gvol) {
		clear(v.b[:512])
	}), func(c *classCase) { c.repair = []string{"--repair"} }))
	add(with(classes("m16", "fat-too-small", "", -1, "", "the FAT is too small for the clusters the volume has (both tools refuse it)", func(v *gvol) {
		v.put16(22, uint16(v.fsz/2))
	}), func(c *classCase) { c.noRepair = true }))
	add(classes("m32s", "small-fat32", "", 0, "", "a FAT32 volume of 4,000 clusters, fewer than 65,525: a warning from both tools", func(v *gvol) {}))
	add(with([]classCase{{corpusCase: corpusCut("class-last-sector-m16", "m16", "the image ends one sector before the volume does (its last sector cannot be read)", func(v *gvol) int { return len(v.b) - 512 }),
		class: "last-sector", kind: "boot-sector", fsckN: -1}}, func(c *classCase) { c.noRepair = true }))

	// The volume label.
	add(classes(classFATs, "label-differs", "label", 1, "stored in boot sector and different", "the boot sector's label is OTHER, the root's CLASSnn", func(v *gvol) { v.setBootLabel("OTHER") }))
	add(classes(classFATs, "label-boot-only", "label", 1, "but there is no volume label in root", "the root directory's label entry is deleted", func(v *gvol) {
		v.b[v.find(0, fmt.Sprintf("CLASS%d    ", v.typ))] = 0xE5
	}))
	add(classes(classFATs, "label-root-only", "label", 1, "There is no label in boot sector", "the boot sector says NO NAME, the root holds the label", func(v *gvol) { v.setBootLabel("NO NAME") }))
	add(classes(classFATs, "label-invalid", "label", 1, "is not valid", "the label holds '*', in the boot sector and the root", func(v *gvol) {
		off := v.find(0, fmt.Sprintf("CLASS%d    ", v.typ))
		v.b[off+2] = '*'
		v.setBootLabel(string(v.b[off : off+11]))
	}))
	add(classes(classFATs, "label-extra", "label", 0, "", "a second label entry in the root and one in SUB (fsck.fat ignores both)", func(v *gvol) {
		v.addEntry(0, shortEnt("SECOND", 0x08, 0, 0))
		v.addEntry(v.sub(), shortEnt("SUBLABEL", 0x08, 0, 0))
	}))

	// Directory entries.
	add(classes(classFATs, "dot", "dot", 1, "Invalid '.' entry in the first slot", "SUB's \".\" points at BIG.BIN", func(v *gvol) {
		v.setCluster(v.dirSlot(v.sub(), 0), v.cluster(v.find(0, nBig)))
	}))
	add(classes(classFATs, "dotdot", "dotdot", 1, "Invalid '..' entry in the second slot", "SUB/DEEP's \"..\" points at DEEP itself", func(v *gvol) {
		v.setCluster(v.dirSlot(v.deep(), 1), v.deep())
	}))
	add(classes(classFATs, "dot-missing", "dot", 1, "found free entry", "SUB's \".\" entry is deleted", func(v *gvol) { v.b[v.dirSlot(v.sub(), 0)] = 0xE5 }))
	add(classes(classFATs, "dot-taken", "dot", 1, "Moving entry down", "SUB's slot 0 holds a file STOLEN.TXT instead of \".\"", func(v *gvol) {
		copy(v.b[v.dirSlot(v.sub(), 0):], shortEnt("STOLEN  TXT", 0x20, v.dataFile("stolen"), 6))
	}))
	add(classes(classFATs, "dir-link-self", "dir-link", 1, "Start does point to containing directory", "SUB/LOOP is a directory entry pointing at SUB", func(v *gvol) {
		v.addEntry(v.sub(), shortEnt("LOOP", 0x10, v.sub(), 0))
	}))
	add(classes(classFATs, "dir-link-parent", "dir-link", 1, "Start does point to containing directory's parent", "SUB/DEEP/UP points at SUB", func(v *gvol) {
		v.addEntry(v.deep(), shortEnt("UP", 0x10, v.sub(), 0))
	}))
	add(classes(classFATs, "dir-link-root", "dir-link", 1, "Start does point to root directory", "SUB/ROOT is a directory entry with cluster 0", func(v *gvol) {
		v.addEntry(v.sub(), shortEnt("ROOT", 0x10, 0, 0))
	}))
	add(classes(classFATs, "duplicate", "duplicate", 1, "Duplicate directory entry", "a second HELLO.TXT in the root, with its own data", func(v *gvol) {
		v.addEntry(0, shortEnt(nHello, 0x20, v.dataFile("the second hello"), 16))
	}))
	add(with(classes(classFATs, "duplicate-long", "duplicate", 0, "", "a second \"Long File Name.txt\" (short name LONGFI~2.TXT); fsck.fat compares short names only", func(v *gvol) {
		v.lfnOf(0, "Long File Name.txt", "LONGFI~2TXT", 0x20, v.dataFile("second long"), 11, nil, -1)
	}), func(c *classCase) { c.keeps = []string{"/Long File Name.txt"} }))
	add(classes(classFATs, "bad-name", "bad-name", 1, "Bad short file name", "short names A*B.TXT and one with a control character", func(v *gvol) {
		v.addEntry(0, shortEnt("A*B     TXT", 0x20, v.dataFile("star"), 4))
		v.addEntry(v.sub(), shortEnt("C\x01D    TXT", 0x20, v.dataFile("control"), 7))
	}))
	add(classes(classFATs, "bad-name-lower", "bad-name", 0, "", "a short name in lower case without the NT flags, lower.txt (fsck.fat does not look)", func(v *gvol) {
		v.addEntry(0, shortEnt("lower   txt", 0x20, v.dataFile("lower"), 5))
	}))
	add(classes(classFATs, "bad-name-nt", "bad-name", 1, "Bad short file name", "HELLO.TXT carries the NT flag 0x20 (\"no 8.3 name\") without a long name", func(v *gvol) {
		v.b[v.find(0, nHello)+12] |= 0x20
	}))
	add(classes(classFATs, "after-end", "after-end", 0, "", "SUB/INNER.TXT sits one slot after an end-of-directory marker: Linux and fsck.fat see it, Windows and mtools do not", func(v *gvol) {
		off := v.find(v.sub(), nInner)
		e := append([]byte(nil), v.b[off:off+32]...)
		clear(v.b[off : off+32])
		copy(v.b[off+32:], e)
	}))
	add(classes(classFATs, "dir-size", "dir-size", 1, "Directory has non-zero size", "SUB has size 1234", func(v *gvol) { v.put32(v.find(0, nSub)+28, 1234) }))
	add(classes(classFATs, "start-1", "start-cluster", 1, "Bad start cluster 1", "HELLO.TXT starts at cluster 1", func(v *gvol) {
		v.setCluster(v.find(0, nHello), 1)
	}))
	add(classes(classFATs, "start-past", "start-cluster", 1, "Start cluster beyond limit", "HELLO.TXT starts past the last cluster", func(v *gvol) {
		v.setCluster(v.find(0, nHello), v.maxCluster()+1)
	}))
	add(classes(classFATs, "start-free", "start-cluster", 1, "Contains a free cluster", "HELLO.TXT's cluster is marked free", func(v *gvol) {
		v.set(v.cluster(v.find(0, nHello)), 0)
	}))
	add(classes(classFATs, "start-bad", "start-cluster", -1, "Internal error: next_cluster on bad cluster", "HELLO.TXT's cluster is marked bad (fsck.fat 4.2 stops with an internal error)", func(v *gvol) {
		v.set(v.cluster(v.find(0, nHello)), v.bad())
	}))
	add(classes(classFATs, "attributes", "attributes", 0, "", "HELLO.TXT has attribute bits 6-7 set, SUB both the directory and the label bit", func(v *gvol) {
		v.b[v.find(0, nHello)+11] |= 0xC0
		v.b[v.find(0, nSub)+11] |= 0x08
	}))

	// Long names.
	long := func(v *gvol) int { return v.find(0, nLong) }
	add(classes(classFATs, "lfn-checksum", "lfn-checksum", 0, "Wrong checksum for long file name", "the long name of \"Long File Name.txt\" carries a wrong checksum", func(v *gvol) {
		for off := long(v) - 64; off < long(v); off += 32 {
			v.b[off+13] ^= 0x5A
		}
	}))
	add(classes(classFATs, "lfn-sequence", "lfn-sequence", 0, "Unexpected long filename sequence number", "the second slot of \"Long File Name.txt\" says 3, not 1", func(v *gvol) {
		v.b[long(v)-32] = 3
	}))
	add(classes(classFATs, "lfn-orphan", "lfn-orphan", 1, "Orphaned long file name part", "two long name slots at the end of SUB, with no short entry after them", func(v *gvol) {
		e := lfnEntry("Orphaned slots of nothing.txt", "ORPHAN~1TXT", 0x20, 0, 0, nil, lfnSum("ORPHAN~1TXT"))
		v.addEntry(v.sub(), e[:len(e)-32])
	}))
	add(classes(classFATs, "lfn-unfinished", "lfn-unfinished", 0, "outside a LFN sequence", "the first slot of \"Long File Name.txt\" is deleted: the name's start is gone", func(v *gvol) {
		v.b[long(v)-64] = 0xE5
	}))
	add(classes(classFATs, "lfn-fields", "lfn-fields", 1, "Start cluster field in VFAT long filename slot is not 0", "a long name slot of \"Long File Name.txt\" has a cluster field", func(v *gvol) {
		v.put16(long(v)-32+26, 0x1234)
	}))
	add(classes(classFATs, "lfn-deleted", "lfn-deleted", 1, "Orphaned long file name part", "\"Long File Name.txt\"'s short entry is deleted, its long name slots are not (and its clusters are lost)", func(v *gvol) {
		v.b[long(v)] = 0xE5
	}))

	// Chains.
	add(classes(classFATs, "size-long", "size", 1, "cluster chain length is >", "BIG.BIN's size says 5000 bytes; its chain holds 20000", func(v *gvol) {
		v.put32(v.find(0, nBig)+28, 5000)
	}))
	add(classes(classFATs, "size-short", "size", 1, "Truncating file to", "HELLO.TXT's size says 9000 bytes; its chain holds one cluster", func(v *gvol) {
		v.put32(v.find(0, nHello)+28, 9000)
	}))
	add(classes(classFATs, "chain-free", "chain", 1, "Contains a free cluster", "BIG.BIN's fourth cluster is marked free", func(v *gvol) {
		v.set(v.chain(v.cluster(v.find(0, nBig)))[3], 0)
	}))
	add(classes(classFATs, "chain-bad", "chain", -1, "Internal error: next_cluster on bad cluster", "BIG.BIN's fourth cluster is marked bad (fsck.fat 4.2 stops with an internal error)", func(v *gvol) {
		v.set(v.chain(v.cluster(v.find(0, nBig)))[3], v.bad())
	}))
	add(classes(classFATs, "chain-range", "chain", 1, "out of range", "BIG.BIN's third cluster links past the last cluster", func(v *gvol) {
		v.set(v.chain(v.cluster(v.find(0, nBig)))[2], v.maxCluster()+1)
	}))
	add(classes(classFATs, "loop", "loop", 1, "Circular cluster chain", "BIG.BIN's last cluster links back to its first", func(v *gvol) {
		c := v.chain(v.cluster(v.find(0, nBig)))
		v.set(c[len(c)-1], c[0])
	}))
	add(classes(classFATs, "cross-link", "cross-link", 1, "share clusters", "HELLO.TXT (now 5000 bytes) goes on into BIG.BIN's second cluster", func(v *gvol) {
		off := v.find(0, nHello)
		v.set(v.cluster(off), v.chain(v.cluster(v.find(0, nBig)))[1])
		v.put32(off+28, 5000)
	}))
	add(classes(classFATs, "cross-link-dir", "cross-link", 1, "share clusters", "HELLO.TXT (now 5000 bytes) goes on into SUB's first cluster", func(v *gvol) {
		off := v.find(0, nHello)
		v.set(v.cluster(off), v.sub())
		v.put32(off+28, 5000)
	}))
	add(with(classes(classFATs, "rename-file", "interrupted-rename", 1, "share clusters", "a move of HELLO.TXT into SUB cut short: SUB/HELLO.TXT names the same clusters and size", func(v *gvol) {
		copy(v.b[v.addEntry(v.sub(), make([]byte, 32)):], v.b[v.find(0, nHello):v.find(0, nHello)+32])
	}), func(c *classCase) { c.keeps = []string{"/SUB/HELLO.TXT"} }))
	add(with(classes(classFATs, "rename-dir", "interrupted-rename", 1, "share clusters", "a move of SUB/DEEP to the root cut short before \"..\" changed: /DEEP names DEEP's cluster too", func(v *gvol) {
		off := v.find(v.sub(), nDeep)
		copy(v.b[v.addEntry(0, make([]byte, 32)):], v.b[off:off+32])
	}), func(c *classCase) { c.keeps = []string{"/DEEP"} }))
	add(with(classes(classFATs, "rename-dir-moved", "interrupted-rename", 1, "share clusters", "a move of SUB/DEEP to the root cut short after \"..\" changed to the root", func(v *gvol) {
		off := v.find(v.sub(), nDeep)
		copy(v.b[v.addEntry(0, make([]byte, 32)):], v.b[off:off+32])
		v.setCluster(v.dirSlot(v.deep(), 1), 0)
	}), func(c *classCase) { c.keeps = []string{"/SUB/DEEP"} }))
	add(classes(classFATs, "lost", "lost", 1, "Reclaimed 3 unused clusters", "a chain of 3 clusters with data that no entry names", func(v *gvol) {
		v.lostChain(3, "lost data")
	}))
	add(classes(classFATs, "lost-loop", "lost", 1, "unused clusters", "3 lost clusters linked in a loop", func(v *gvol) {
		cs := v.lostChain(3, "lost loop")
		v.set(cs[2], cs[0])
	}))
	return all
}

// classCases are the images of the damage classes.
var classCases = classList()

// allCorpusCases are every image the generator writes.
func allCorpusCases() []corpusCase {
	out := append([]corpusCase(nil), corpusCases...)
	for _, c := range classCases {
		out = append(out, c.corpusCase)
	}
	return out
}
