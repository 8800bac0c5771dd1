package tests

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ftools/ftools/pkg/exfat"
)

// exfatDamagedDir holds the exFAT images of the damaged corpus, written by
// TestGenerateExFATCorpus.
const exfatDamagedDir = "testdata/damaged-exfat"

// TestGenerateExFATCorpus rebuilds tests/testdata/damaged-exfat from fmkfs
// and fcp plus byte patches, as TestGenerateDamagedCorpus does for FAT.
// It only runs with FTOOLS_GEN_CORPUS=1; its output is committed and
// byte-identical from run to run.
func TestGenerateExFATCorpus(t *testing.T) {
	if os.Getenv("FTOOLS_GEN_CORPUS") != "1" {
		t.Skip("generator: set FTOOLS_GEN_CORPUS=1 to rebuild tests/testdata/damaged-exfat")
	}
	resetCorpus(t, exfatDamagedDir)
	base := makeExFATBase(t)
	var readme strings.Builder
	readme.WriteString(exfatCorpusReadme)
	for _, c := range exfatCorpusCases() {
		v := parseXvol(bytes.Clone(base))
		c.patch(v)
		img := v.b
		if c.cut > 0 {
			img = img[:c.cut]
		}
		writeGz(t, filepath.Join(exfatDamagedDir, c.name+".img.gz"), img)
		fmt.Fprintf(&readme, "| `%s` | %d | %s |\n", c.name, len(img), c.what)
	}
	if err := os.WriteFile(filepath.Join(exfatDamagedDir, "README.md"), []byte(readme.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const exfatCorpusReadme = `# Damaged and hostile exFAT images

Every image here is untrusted input that ftools must survive: each command
either works or fails with a one-line error, never panics, hangs or
allocates without bound (tests/exfat_damaged_test.go runs every command over
every image and holds fverify's verdict to fsck.exfat's;
pkg/exfat/corpus_fuzz_test.go seeds its fuzz target from them).

The files are written by ` + "`TestGenerateExFATCorpus`" + ` in tests/exfat_corpus_test.go:

    FTOOLS_GEN_CORPUS=1 go test ./tests/ -run TestGenerateExFATCorpus

The base is ` + "`fmkfs --type exfat --size 1M --cluster-size 512`" + ` (SOURCE_DATE_EPOCH=` + corpusEpoch + `,
so the serial number and every time stamp are fixed), filled with ` + "`fcp -r`" + `
with the FAT corpus's tree (HELLO.TXT, "Long File Name.txt", BIG.BIN of
20,000 bytes, SUB/INNER.TXT, SUB/DEEP/LEAF.TXT); BIG.BIN is then given a
FAT chain (NoFatChain cleared) so that chain damage can be planted. Patches
keep boot checksums and set checksums right unless the damage is the
checksum itself. Images are gzipped.

| image | bytes | what is wrong |
|---|---|---|
`

// makeExFATBase formats and fills the base image.
func makeExFATBase(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "base.img")
	tree := filepath.Join(dir, "tree")
	writeCorpusTree(t, tree)
	b := runMaking(t, append(os.Environ(), "SOURCE_DATE_EPOCH="+corpusEpoch), img,
		[]string{"fmkfs", "--type", "exfat", "--size", "1M", "--cluster-size", "512", "--label", "Corpus", img},
		[]string{"fcp", "-r", "--no-progress", "-i", img, tree + "/.", "::/"})
	v := parseXvol(b)
	v.chainFile("BIG.BIN")
	return v.b
}

// Boot sector fields (exFAT specification 3.1).
const (
	xbVolumeLength = 0x48
	xbFATOffset    = 0x50
	xbFATLength    = 0x54
	xbHeapOffset   = 0x58
	xbClusterCount = 0x5C
	xbRootCluster  = 0x60
	xbSerial       = 0x64
	xbFlags        = 0x6A
	xbSectorShift  = 0x6C
	xbClusterShift = 0x6D
	xbNumFATs      = 0x6E
)

// xvol is a tiny, trusting view of the base exFAT volume the generator
// patches: its fields are read once, before any patch.
type xvol struct {
	b                  []byte
	ss, cs             int
	fatOff, heap, root int
	up                 *exfat.Upcase
}

func parseXvol(b []byte) *xvol {
	le := binary.LittleEndian
	v := &xvol{b: b, ss: 1 << b[xbSectorShift], up: exfat.DefaultUpcase()}
	v.cs = v.ss << b[xbClusterShift]
	v.fatOff = int(le.Uint32(b[xbFATOffset:])) * v.ss
	v.heap = int(le.Uint32(b[xbHeapOffset:])) * v.ss
	v.root = int(le.Uint32(b[xbRootCluster:]))
	return v
}

func (v *xvol) coff(c int) int { return v.heap + (c-2)*v.cs }

func (v *xvol) fat(c int) int { return int(binary.LittleEndian.Uint32(v.b[v.fatOff+4*c:])) }

func (v *xvol) setFAT(c, next int) {
	binary.LittleEndian.PutUint32(v.b[v.fatOff+4*c:], uint32(next))
}

// dirSlots returns the byte offset of every entry of the directory whose
// first cluster is first: the root through the FAT, others contiguous
// (fcp writes directories NoFatChain) over n clusters.
func (v *xvol) dirSlots(first, n int) []int {
	var clusters []int
	if first == v.root {
		for c := first; c >= 2 && c < 0xFFFFFFF7 && len(clusters) < 64; c = v.fat(c) {
			clusters = append(clusters, c)
		}
	} else {
		for i := range n {
			clusters = append(clusters, first+i)
		}
	}
	var out []int
	for _, c := range clusters {
		for i := 0; i < v.cs; i += 32 {
			out = append(out, v.coff(c)+i)
		}
	}
	return out
}

// xset is an entry set found in a directory: the offsets of its entries.
type xset struct{ slots []int }

func (s xset) file() int   { return s.slots[0] }
func (s xset) stream() int { return s.slots[1] }

// find returns the entry set named name in the directory whose entries
// lie at slots.
func (v *xvol) find(slots []int, name string) xset {
	for i := 0; i < len(slots); i++ {
		off := slots[i]
		if v.b[off] != exfat.TypeFile {
			continue
		}
		n := int(v.b[off+1])
		if i+n >= len(slots) {
			break
		}
		set := xset{slots: slots[i : i+n+1]}
		if v.name(set) == name {
			return set
		}
	}
	panic("corpus: no entry " + name)
}

func (v *xvol) name(s xset) string {
	n := int(v.b[s.stream()+3])
	var u []uint16
	for _, off := range s.slots[2:] {
		for k := 2; k < 32 && len(u) < n; k += 2 {
			u = append(u, binary.LittleEndian.Uint16(v.b[off+k:]))
		}
	}
	return string(utf16.Decode(u))
}

// fix recomputes a set's name hash and checksum after a patch.
func (v *xvol) fix(s xset) {
	n := int(v.b[s.stream()+3])
	var u []uint16
	for _, off := range s.slots[2:] {
		for k := 2; k < 32 && len(u) < n; k += 2 {
			u = append(u, binary.LittleEndian.Uint16(v.b[off+k:]))
		}
	}
	binary.LittleEndian.PutUint16(v.b[s.stream()+4:], v.up.NameHash(u))
	v.fixSum(s)
}

// fixSum recomputes a set's checksum only.
func (v *xvol) fixSum(s xset) {
	var raw []byte
	for _, off := range s.slots {
		raw = append(raw, v.b[off:off+32]...)
	}
	binary.LittleEndian.PutUint16(v.b[s.file()+2:], exfat.SetChecksum(raw))
}

// rootSet and subSet find entry sets in the root and below.
func (v *xvol) rootSet(name string) xset { return v.find(v.dirSlots(v.root, 0), name) }

func (v *xvol) first(s xset) int { return int(binary.LittleEndian.Uint32(v.b[s.stream()+20:])) }

func (v *xvol) sub() xset { return v.rootSet("SUB") }

func (v *xvol) subSlots(s xset) []int {
	n := int(binary.LittleEndian.Uint64(v.b[s.stream()+24:])) / v.cs
	return v.dirSlots(v.first(s), n)
}

func (v *xvol) deep() xset { return v.find(v.subSlots(v.sub()), "DEEP") }

// chainFile gives a root file a FAT chain over its clusters and clears
// NoFatChain, as a fragmented file has.
func (v *xvol) chainFile(name string) { v.chainFileSet(v.rootSet(name)) }

// bitmap returns the allocation bitmap's byte offset (it is cluster 2).
func (v *xvol) bitmap() int { return v.coff(2) }

func (v *xvol) setBit(c int, on bool) {
	i := v.bitmap() + (c-2)/8
	if on {
		v.b[i] |= 1 << ((c - 2) % 8)
	} else {
		v.b[i] &^= 1 << ((c - 2) % 8)
	}
}

// boot32 sets a 32-bit boot sector field in both boot regions and
// recomputes their checksums.
func (v *xvol) boot32(off int, x uint32) {
	for _, r := range []int{0, 12 * v.ss} {
		binary.LittleEndian.PutUint32(v.b[r+off:], x)
	}
	v.fixBoot()
}

func (v *xvol) boot8(off int, x byte) {
	for _, r := range []int{0, 12 * v.ss} {
		v.b[r+off] = x
	}
	v.fixBoot()
}

// fixBoot recomputes both boot regions' checksum sectors.
func (v *xvol) fixBoot() {
	for _, r := range []int{0, 12 * v.ss} {
		region := v.b[r : r+12*v.ss]
		sum := exfat.BootChecksum(region, v.ss)
		for i := 11 * v.ss; i < 12*v.ss; i += 4 {
			binary.LittleEndian.PutUint32(region[i:], sum)
		}
	}
}

// sysEntry returns the root's entry of a type (bitmap, up-case, label).
func (v *xvol) sysEntry(typ byte) int {
	for _, off := range v.dirSlots(v.root, 0) {
		if v.b[off] == typ {
			return off
		}
	}
	panic("corpus: no system entry")
}

// exfatCase is one image of the corpus.
type exfatCase struct {
	name, what string
	patch      func(v *xvol)
	cut        int // keep only this many bytes (0: all)
}

func exfatCorpusCases() []exfatCase {
	le := binary.LittleEndian
	put64 := func(v *xvol, off int, x uint64) { le.PutUint64(v.b[off:], x) }
	put32 := func(v *xvol, off int, x uint32) { le.PutUint32(v.b[off:], x) }
	return []exfatCase{
		{"clean", "nothing: the base itself", func(v *xvol) {}, 0},
		{"boot-main-checksum", "a byte of the main boot region's boot code changed: its checksum does not match (the backup is sound)",
			func(v *xvol) { v.b[0x100] ^= 0xFF }, 0},
		{"boot-main-shift", "the main boot sector's bytes per sector shift is 13; the backup is sound",
			func(v *xvol) { v.b[xbSectorShift] = 13 }, 0},
		{"boot-both-name", "neither boot region says EXFAT", func(v *xvol) { v.b[3], v.b[12*v.ss+3] = 'X', 'X' }, 0},
		{"boot-cluster-count-huge", "cluster count 0xFFFFFFF0 in both regions, checksums right",
			func(v *xvol) { v.boot32(xbClusterCount, 0xFFFFFFF0) }, 0},
		{"boot-fat-past", "the FAT offset lies past the volume", func(v *xvol) { v.boot32(xbFATOffset, 0x7FFFFFF0) }, 0},
		{"boot-heap-past", "the cluster heap offset lies past the volume", func(v *xvol) { v.boot32(xbHeapOffset, 0x7FFFFFF0) }, 0},
		{"boot-root-0", "the root directory's first cluster is 0", func(v *xvol) { v.boot32(xbRootCluster, 0) }, 0},
		{"boot-root-past", "the root directory's first cluster lies past the heap", func(v *xvol) { v.boot32(xbRootCluster, 0xFFFFFF00) }, 0},
		{"boot-cluster-shift-25", "clusters of 2^25 sectors (16 GiB), more than exFAT's 32 MiB", func(v *xvol) { v.boot8(xbClusterShift, 25) }, 0},
		{"boot-fats-3", "three FATs", func(v *xvol) { v.boot8(xbNumFATs, 3) }, 0},
		{"boot-length-huge", "the volume length is 2^60 sectors", func(v *xvol) {
			for _, r := range []int{0, 12 * v.ss} {
				put64(v, r+xbVolumeLength, 1<<60)
			}
			v.fixBoot()
		}, 0},
		{"boot-dirty", "the VolumeDirty flag is set", func(v *xvol) { v.b[xbFlags] |= 0x02 }, 0},
		{"backup-differs", "the backup boot region's serial number differs (its checksum right)", func(v *xvol) {
			put32(v, 12*v.ss+xbSerial, 0xDEADBEEF)
			region := v.b[12*v.ss : 24*v.ss]
			sum := exfat.BootChecksum(region, v.ss)
			for i := 11 * v.ss; i < 12*v.ss; i += 4 {
				put32(v, 12*v.ss+i, sum)
			}
		}, 0},
		{"bitmap-entry-gone", "the root's allocation bitmap entry is marked unused", func(v *xvol) { v.b[v.sysEntry(exfat.TypeBitmap)] = 0x01 }, 0},
		{"bitmap-short", "the allocation bitmap's length is 1 byte", func(v *xvol) { put64(v, v.sysEntry(exfat.TypeBitmap)+24, 1) }, 0},
		{"bitmap-past", "the allocation bitmap starts past the heap", func(v *xvol) { put32(v, v.sysEntry(exfat.TypeBitmap)+20, 0xFFFFFF00) }, 0},
		{"upcase-checksum", "the up-case table's checksum is wrong", func(v *xvol) { put32(v, v.sysEntry(exfat.TypeUpcase)+4, 0x12345678) }, 0},
		{"upcase-huge", "the up-case table claims 2^40 bytes", func(v *xvol) { put64(v, v.sysEntry(exfat.TypeUpcase)+24, 1<<40) }, 0},
		{"label-15", "the volume label claims 15 characters", func(v *xvol) { v.b[v.sysEntry(exfat.TypeLabel)+1] = 15 }, 0},
		{"set-checksum", "HELLO.TXT's set checksum is wrong", func(v *xvol) { v.b[v.rootSet("HELLO.TXT").file()+2] ^= 0x55 }, 0},
		{"secondary-255", "HELLO.TXT's set claims 255 secondary entries", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			v.b[s.file()+1] = 255
			v.fixSum(s)
		}, 0},
		{"name-length-255", "HELLO.TXT's stream extension claims a 255-character name", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			v.b[s.stream()+3] = 255
			v.fixSum(s)
		}, 0},
		{"name-hash", "HELLO.TXT's name hash is wrong (its set checksum right)", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			v.b[s.stream()+4] ^= 0xFF
			v.fixSum(s)
		}, 0},
		{"name-slash", "a name holds a slash: HELLO/TXT", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			v.b[s.slots[2]+2+5*2] = '/'
			v.fix(s)
		}, 0},
		{"name-dotdot", "a name is \"..\"", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			v.b[s.stream()+3] = 2
			copy(v.b[s.slots[2]+2:], []byte{'.', 0, '.', 0})
			v.fix(s)
		}, 0},
		{"stream-past", "HELLO.TXT's first cluster lies past the heap", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			put32(v, s.stream()+20, 0xFFFFFF00)
			v.fixSum(s)
		}, 0},
		{"stream-huge", "HELLO.TXT claims 2^60 bytes", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			put64(v, s.stream()+24, 1<<60)
			put64(v, s.stream()+8, 1<<60)
			v.fixSum(s)
		}, 0},
		{"vdl-over-size", "HELLO.TXT's valid data length is past its size", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			put64(v, s.stream()+8, 5000)
			v.fixSum(s)
		}, 0},
		{"dir-length-odd", "SUB's data length is not a whole number of clusters", func(v *xvol) {
			s := v.sub()
			put64(v, s.stream()+24, 700)
			put64(v, s.stream()+8, 700)
			v.fixSum(s)
		}, 0},
		{"dir-huge", "SUB claims 512 MiB, past exFAT's 256 MiB directories and the heap", func(v *xvol) {
			s := v.sub()
			put64(v, s.stream()+24, 512<<20)
			put64(v, s.stream()+8, 512<<20)
			v.fixSum(s)
		}, 0},
		{"dir-loop", "SUB/DEEP's first cluster is SUB's: a directory loop", func(v *xvol) {
			sub, deep := v.sub(), v.deep()
			put32(v, deep.stream()+20, uint32(v.first(sub)))
			v.fixSum(deep)
		}, 0},
		{"dir-root-loop", "SUB's first cluster is the root's", func(v *xvol) {
			s := v.sub()
			put32(v, s.stream()+20, uint32(v.root))
			v.b[s.stream()+1] &^= 0x02
			v.fixSum(s)
		}, 0},
		{"cross-link", "SUB/INNER.TXT's first cluster is HELLO.TXT's", func(v *xvol) {
			inner := v.find(v.subSlots(v.sub()), "INNER.TXT")
			put32(v, inner.stream()+20, uint32(v.first(v.rootSet("HELLO.TXT"))))
			v.fixSum(inner)
		}, 0},
		{"fat-loop", "BIG.BIN's FAT chain loops back to its start", func(v *xvol) {
			first := v.first(v.rootSet("BIG.BIN"))
			v.setFAT(first+5, first)
		}, 0},
		{"fat-short", "BIG.BIN's FAT chain ends after 3 clusters", func(v *xvol) {
			first := v.first(v.rootSet("BIG.BIN"))
			v.setFAT(first+2, 0xFFFFFFFF)
		}, 0},
		{"fat-past", "BIG.BIN's FAT chain leaves the heap", func(v *xvol) {
			first := v.first(v.rootSet("BIG.BIN"))
			v.setFAT(first+2, 0x0FFFFF00)
		}, 0},
		{"fat-free", "BIG.BIN's FAT chain runs into a free entry", func(v *xvol) {
			first := v.first(v.rootSet("BIG.BIN"))
			v.setFAT(first+2, 0)
		}, 0},
		{"fat-longer", "BIG.BIN's FAT chain goes on past its size into marked clusters (an extension cut short)", func(v *xvol) {
			s := v.rootSet("BIG.BIN")
			first := v.first(s)
			n := (20000 + v.cs - 1) / v.cs
			last := first + n - 1
			extra := 900
			v.setFAT(last, extra)
			v.setFAT(extra, extra+1)
			v.setFAT(extra+1, 0xFFFFFFFF)
			v.setBit(extra, true)
			v.setBit(extra+1, true)
		}, 0},
		{"bitmap-free-used", "BIG.BIN's clusters are marked free", func(v *xvol) {
			first := v.first(v.rootSet("BIG.BIN"))
			for c := first; c < first+10; c++ {
				v.setBit(c, false)
			}
		}, 0},
		{"bitmap-huge-loop", "the allocation bitmap's DataLength is 2^60 and its FAT chain loops on its cluster", func(v *xvol) {
			put64(v, v.sysEntry(exfat.TypeBitmap)+24, 1<<60)
			v.setFAT(2, 2)
		}, 0},
		{"size-wraps", "HELLO.TXT's DataLength is 2^64-1 (in clusters it wraps round to 0)", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			put64(v, s.stream()+24, 1<<64-1)
			v.fixSum(s)
		}, 0},
		{"size-past-heap", "BIG.BIN's DataLength is 2^60, its FAT chain looping back to its start", func(v *xvol) {
			s := v.rootSet("BIG.BIN")
			put64(v, s.stream()+24, 1<<60)
			v.fixSum(s)
			first := v.first(s)
			v.setFAT(first+5, first)
		}, 0},
		{"valid-past-size", "HELLO.TXT's ValidDataLength is larger than its DataLength", func(v *xvol) {
			s := v.rootSet("HELLO.TXT")
			put64(v, s.stream()+8, 1<<40)
			v.fixSum(s)
		}, 0},
		{"lost", "clusters marked in use that no file uses", func(v *xvol) {
			for c := 700; c < 720; c++ {
				v.setBit(c, true)
			}
		}, 0},
		{"duplicate", "two entry sets named HELLO.TXT in the root (BIG.BIN renamed)", func(v *xvol) {
			s := v.rootSet("BIG.BIN")
			name := utf16.Encode([]rune("HELLO.TXT"))
			v.b[s.stream()+3] = byte(len(name))
			for i, c := range name {
				le.PutUint16(v.b[s.slots[2]+2+2*i:], c)
			}
			v.fix(s)
		}, 0},
		{"unknown-critical", "a critical primary entry of unknown type 0x8F in the root", func(v *xvol) {
			for _, off := range v.dirSlots(v.root, 0) {
				if v.b[off] == 0 {
					v.b[off] = 0x8F
					break
				}
			}
		}, 0},
		{"noise-root", "the root directory's first cluster is random bytes", func(v *xvol) {
			copy(v.b[v.coff(v.root):v.coff(v.root)+v.cs], corpusNoise(v.cs, 7))
		}, 0},
		{"noise-fat", "the FAT's first 4 KiB are random", func(v *xvol) { copy(v.b[v.fatOff:], corpusNoise(4096, 11)) }, 0},
		{"noise-sub", "SUB's cluster is random bytes", func(v *xvol) {
			off := v.coff(v.first(v.sub()))
			copy(v.b[off:off+v.cs], corpusNoise(v.cs, 13))
		}, 0},
		{"truncated", "the image ends in the middle of the cluster heap", func(v *xvol) {}, 600 << 10},
		{"truncated-fat", "the image ends inside the FAT", func(v *xvol) {}, 258 << 10},
	}
}
