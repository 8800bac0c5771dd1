package tests

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// damagedDir holds the corpus of damaged and hostile images, one gzipped
// image per file, written by TestGenerateDamagedCorpus.
const damagedDir = "testdata/damaged"

// corpusEpoch pins every time stamp and the volume ids of the corpus.
const corpusEpoch = "1700000000"

// TestGenerateDamagedCorpus rebuilds tests/testdata/damaged from fmkfs and
// fcp plus byte patches. It is a generator, not a test: it only runs with
// FTOOLS_GEN_CORPUS=1, and its output is committed. Running it twice gives
// byte-identical files.
func TestGenerateDamagedCorpus(t *testing.T) {
	if os.Getenv("FTOOLS_GEN_CORPUS") != "1" {
		t.Skip("generator: set FTOOLS_GEN_CORPUS=1 to rebuild tests/testdata/damaged")
	}
	if err := os.MkdirAll(damagedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(damagedDir, "*.img.gz"))
	for _, f := range old {
		os.Remove(f)
	}
	bases := map[string][]byte{}
	base := func(kind string) []byte {
		if _, ok := bases[kind]; !ok {
			bases[kind] = makeCorpusBase(t, kind)
		}
		return bytes.Clone(bases[kind])
	}
	var readme strings.Builder
	readme.WriteString(corpusReadmeHead)
	for _, c := range allCorpusCases() {
		img := c.make(base)
		var z bytes.Buffer
		zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(img)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(damagedDir, c.name+".img.gz"), z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&readme, "| `%s` | %s | %d | %s |\n", c.name, c.from, len(img), c.what)
	}
	readme.WriteString(classReadmeHead)
	for _, c := range classCases {
		verdict := fmt.Sprintf("exit %d", c.fsckN)
		if c.fsckN < 0 {
			verdict = "gives up"
		}
		if c.fsckSays != "" {
			verdict += `, "` + c.fsckSays + `"`
		}
		kind := "`" + c.kind + "`"
		if c.kind == "" {
			kind = "warning"
		}
		fmt.Fprintf(&readme, "| `%s` | %s | %s | %s |\n", c.name, kind, verdict, c.what)
	}
	if err := os.WriteFile(filepath.Join(damagedDir, "README.md"), []byte(readme.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const corpusReadmeHead = `# Damaged and hostile images

Every image here is untrusted input that ftools must survive: each command
either works or fails with a one-line error, never panics, hangs or
allocates without bound (tests/damaged_test.go runs every command over every
image; pkg/fat/corpus_fuzz_test.go seeds its fuzz targets from them).

The files are written by ` + "`TestGenerateDamagedCorpus`" + ` in tests/corpus_gen_test.go:

    FTOOLS_GEN_CORPUS=1 go test ./tests/ -run TestGenerateDamagedCorpus

It formats a base volume with fmkfs (SOURCE_DATE_EPOCH=` + corpusEpoch + `, so the
volume id and every time stamp are fixed), copies a small tree into it with
` + "`fcp -r`" + `, and patches bytes. The output is byte-identical from run to run.
Images are gzipped (mostly zeros); the test gunzips them into a temp dir.
Patches do not update FSINFO, so the FAT32 free counts of images that gain
clusters are stale on top of the damage listed.

Bases (512-byte sectors):

- ` + "`f12`" + `: FAT12, 1 MiB, 2 KiB clusters, 512 root entries.
- ` + "`f16`" + `: FAT16, 3 MiB, 512-byte clusters, 512 root entries.
- ` + "`f32`" + `: FAT32, 2 MiB, 512-byte clusters (4,000 clusters: made with --force),
  root cluster 2, FSINFO in sector 1, backup boot sector in sector 6.
- ` + "`f32big`" + `: FAT32, 5 MiB, 512-byte clusters, empty.

The tree: HELLO.TXT (100 bytes), "Long File Name.txt" (3,000 bytes, LFN),
BIG.BIN (20,000 bytes), SUB/INNER.TXT (700 bytes), SUB/DEEP/LEAF.TXT (10 bytes).

| image | base | bytes | what is wrong |
|---|---|---|---|
`

// corpusTree is the tree every filled base holds.
var corpusTree = []struct {
	name string
	n    int
}{{"HELLO.TXT", 100}, {"Long File Name.txt", 3000}, {"BIG.BIN", 20000}, {"SUB/INNER.TXT", 700}, {"SUB/DEEP/LEAF.TXT", 10}}

// writeCorpusTree writes the tree under dir with fixed contents and times.
func writeCorpusTree(t *testing.T, dir string) {
	stamp := time.Unix(1700000000, 0)
	for _, f := range corpusTree {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, f.n, byte(f.n))
		os.Chtimes(p, stamp, stamp)
	}
	for _, d := range []string{"SUB/DEEP", "SUB", "."} {
		os.Chtimes(filepath.Join(dir, d), stamp, stamp)
	}
}

// mkfsBases are the bases made by mkfs.fat and filled by mcopy, for the
// images of the damage classes fverify is held against fsck.fat with.
var mkfsBases = map[string][]string{
	"m12":  {"-F", "12", "-s", "4", "-n", "CLASS12", "1024"},
	"m16":  {"-F", "16", "-s", "1", "-n", "CLASS16", "8192"},
	"m32":  {"-F", "32", "-s", "1", "-n", "CLASS32", "34000"},
	"m32s": {"-F", "32", "-s", "1", "-n", "SMALL32", "2048"},
}

const classReadmeHead = `
## Damage classes

The images named class-CLASS-BASE hold one class of damage each, on bases
made by mkfs.fat and filled by mcopy (below). tests/fverify_repair_test.go
checks each with fsck.fat -n (the verdict below) and with fverify, then
repairs one copy with fverify and another with fsck.fat -a and compares
what each kept.

- ` + "`m12`" + `: mkfs.fat -F 12 -s 4, 1 MiB, label CLASS12.
- ` + "`m16`" + `: mkfs.fat -F 16 -s 1, 8 MiB, label CLASS16.
- ` + "`m32`" + `: mkfs.fat -F 32 -s 1, 34,000 KiB (66,922 clusters), label CLASS32.
- ` + "`m32s`" + `: mkfs.fat -F 32 -s 1, 2 MiB (fewer clusters than FAT32 should have), empty.

All but m32s hold the tree above, copied with mcopy -s -m.

| image | fverify reports | fsck.fat -n | what is wrong |
|---|---|---|---|
`

// makeCorpusBase formats and fills one base image.
func makeCorpusBase(t *testing.T, kind string) []byte {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, kind+".img")
	tree := filepath.Join(dir, "tree")
	env := append(os.Environ(), "SOURCE_DATE_EPOCH="+corpusEpoch, "MTOOLS_SKIP_CHECK=1")
	var cmds [][]string
	if m, ok := mkfsBases[kind]; ok {
		need(t, "mkfs.fat", "mcopy")
		writeCorpusTree(t, tree)
		mk := append([]string{"mkfs.fat", "-C", "-i", "0C0C0C0C", "--invariant"}, m[:len(m)-1]...)
		cmds = append(cmds, append(mk, img, m[len(m)-1]))
		if kind != "m32s" {
			cmds = append(cmds, []string{"mcopy", "-s", "-m", "-i", img, filepath.Join(tree, "BIG.BIN"), filepath.Join(tree, "HELLO.TXT"),
				filepath.Join(tree, "Long File Name.txt"), filepath.Join(tree, "SUB"), "::/"})
		}
	} else {
		args := map[string][]string{
			"f12":    {"--size", "1M", "-F", "12", "-n", "CORPUS12"},
			"f16":    {"--size", "3M", "-F", "16", "-s", "1", "-n", "CORPUS16"},
			"f32":    {"--size", "2M", "-F", "32", "-s", "1", "--force", "-n", "CORPUS32"},
			"f32big": {"--size", "5M", "-F", "32", "-s", "1", "--force", "-n", "WIDE"},
		}[kind]
		if args == nil {
			t.Fatalf("unknown base %q", kind)
		}
		cmds = append(cmds, append(append([]string{"fmkfs"}, args...), img))
		if kind == "f12" || kind == "f16" || kind == "f32" {
			writeCorpusTree(t, tree)
			cmds = append(cmds, []string{"fcp", "-r", "--no-progress", "-i", img, tree + "/.", "::/"})
		}
	}
	for _, argv := range cmds {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gvol is a tiny, trusting view of a FAT volume the generator patches. It
// reads the BPB of the (valid) base once, before any patch.
type gvol struct {
	b                                   []byte
	bps, spc, res, nfats, rootEnts, fsz int
	typ                                 int
	rootClus                            uint32
}

func parseGvol(b []byte) *gvol {
	le := binary.LittleEndian
	v := &gvol{b: b, bps: int(le.Uint16(b[11:])), spc: int(b[13]), res: int(le.Uint16(b[14:])),
		nfats: int(b[16]), rootEnts: int(le.Uint16(b[17:])), fsz: int(le.Uint16(b[22:]))}
	v.typ = 16
	if v.fsz == 0 {
		v.typ, v.fsz, v.rootClus = 32, int(le.Uint32(b[36:])), le.Uint32(b[44:])
	} else if string(b[54:59]) == "FAT12" {
		v.typ = 12
	}
	return v
}

func (v *gvol) fatOff(i int) int { return (v.res + i*v.fsz) * v.bps }
func (v *gvol) rootOff() int     { return v.fatOff(v.nfats) }
func (v *gvol) dataOff() int     { return v.rootOff() + v.rootEnts*32 }
func (v *gvol) csize() int       { return v.spc * v.bps }
func (v *gvol) coff(c uint32) int {
	return v.dataOff() + int(c-2)*v.csize()
}
func (v *gvol) maxCluster() uint32 {
	return uint32((len(v.b)-v.dataOff())/v.csize()) + 1
}

func (v *gvol) get(c uint32) uint32 {
	le, off := binary.LittleEndian, v.fatOff(0)
	switch v.typ {
	case 12:
		x := uint32(le.Uint16(v.b[off+int(c)*3/2:]))
		if c&1 == 1 {
			return x >> 4
		}
		return x & 0xFFF
	case 16:
		return uint32(le.Uint16(v.b[off+int(c)*2:]))
	}
	return le.Uint32(v.b[off+int(c)*4:]) & 0x0FFFFFFF
}

// set writes a FAT entry in every copy.
func (v *gvol) set(c, val uint32) {
	le := binary.LittleEndian
	for i := 0; i < v.nfats; i++ {
		off := v.fatOff(i)
		switch v.typ {
		case 12:
			p := off + int(c)*3/2
			x := le.Uint16(v.b[p:])
			if c&1 == 1 {
				x = x&0x000F | uint16(val&0xFFF)<<4
			} else {
				x = x&0xF000 | uint16(val&0xFFF)
			}
			le.PutUint16(v.b[p:], x)
		case 16:
			le.PutUint16(v.b[off+int(c)*2:], uint16(val))
		default:
			le.PutUint32(v.b[off+int(c)*4:], val&0x0FFFFFFF)
		}
	}
}

func (v *gvol) eoc() uint32 {
	return map[int]uint32{12: 0xFFF, 16: 0xFFFF, 32: 0x0FFFFFFF}[v.typ]
}

// alloc takes the first free cluster from the top of the volume down (so it
// never collides with what fcp allocated) and marks it end of chain.
func (v *gvol) alloc() uint32 {
	for c := v.maxCluster(); c >= 2; c-- {
		if v.get(c) == 0 {
			v.set(c, v.eoc())
			clear(v.b[v.coff(c) : v.coff(c)+v.csize()])
			return c
		}
	}
	panic("corpus: base volume is full")
}

// chain follows a (valid) chain from c.
func (v *gvol) chain(c uint32) []uint32 {
	var out []uint32
	for c >= 2 && c <= v.maxCluster() && len(out) < 1<<16 {
		out = append(out, c)
		c = v.get(c)
	}
	return out
}

// slots lists the byte offsets of the slots of a directory: first 0 is the
// root directory.
func (v *gvol) slots(first uint32) []int {
	var out []int
	if first == 0 && v.typ != 32 {
		for i := 0; i < v.rootEnts; i++ {
			out = append(out, v.rootOff()+i*32)
		}
		return out
	}
	if first == 0 {
		first = v.rootClus
	}
	for _, c := range v.chain(first) {
		for i := 0; i < v.csize()/32; i++ {
			out = append(out, v.coff(c)+i*32)
		}
	}
	return out
}

// find returns the offset of the short entry named name (11 bytes, as on disk).
func (v *gvol) find(dir uint32, name string) int {
	for _, off := range v.slots(dir) {
		if string(v.b[off:off+11]) == name {
			return off
		}
	}
	panic("corpus: no entry " + name)
}

// free returns the offset of the first n consecutive unused slots of a directory.
func (v *gvol) free(dir uint32, n int) int {
	s := v.slots(dir)
	for i := 0; i+n <= len(s); i++ {
		ok := true
		for j := i; j < i+n; j++ {
			if b := v.b[s[j]]; b != 0 && b != 0xE5 {
				ok = false
				break
			}
		}
		if ok {
			return s[i]
		}
	}
	panic("corpus: directory full")
}

func (v *gvol) cluster(off int) uint32 {
	le := binary.LittleEndian
	return uint32(le.Uint16(v.b[off+20:]))<<16 | uint32(le.Uint16(v.b[off+26:]))
}

func (v *gvol) setCluster(off int, c uint32) {
	binary.LittleEndian.PutUint16(v.b[off+20:], uint16(c>>16))
	binary.LittleEndian.PutUint16(v.b[off+26:], uint16(c))
}

func (v *gvol) put16(off int, x uint16) { binary.LittleEndian.PutUint16(v.b[off:], x) }
func (v *gvol) put32(off int, x uint32) { binary.LittleEndian.PutUint32(v.b[off:], x) }

// shortEnt is a 32-byte short entry with fixed time stamps.
func shortEnt(name string, attr byte, c, size uint32) []byte {
	e := make([]byte, 32)
	copy(e, (name + "           ")[:11])
	e[11] = attr
	le := binary.LittleEndian
	le.PutUint16(e[14:], 0x6000) // 12:00:00
	le.PutUint16(e[16:], 0x576E) // 2023-11-14
	le.PutUint16(e[18:], 0x576E)
	le.PutUint16(e[20:], uint16(c>>16))
	le.PutUint16(e[22:], 0x6000)
	le.PutUint16(e[24:], 0x576E)
	le.PutUint16(e[26:], uint16(c))
	le.PutUint32(e[28:], size)
	return e
}

// lfnSum is the checksum of an 11-byte short name that LFN slots carry.
func lfnSum(name string) byte {
	n := []byte((name + "           ")[:11])
	var s byte
	for _, c := range n {
		s = (s>>1 | s<<7) + c
	}
	return s
}

// lfnSlot is one LFN slot holding 13 UTF-16 units of u from index 13*(k-1).
func lfnSlot(seq byte, u []uint16, k int, sum byte) []byte {
	e := make([]byte, 32)
	e[0], e[11], e[13] = seq, 0x0F, sum
	pos := []int{1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30}
	for i, p := range pos {
		j := 13*(k-1) + i
		x := uint16(0xFFFF)
		if j < len(u) {
			x = u[j]
		} else if j == len(u) {
			x = 0
		}
		binary.LittleEndian.PutUint16(e[p:], x)
	}
	return e
}

// lfnEntry returns the slots of a long name (last part first) and its short
// entry; seqs, when given, replace the sequence bytes.
func lfnEntry(long, short string, attr byte, c, size uint32, seqs []byte, sum byte) []byte {
	u := utf16.Encode([]rune(long))
	n := (len(u) + 12) / 13
	var out []byte
	for k := n; k >= 1; k-- {
		seq := byte(k)
		if k == n {
			seq |= 0x40
		}
		if seqs != nil {
			seq = seqs[n-k]
		}
		out = append(out, lfnSlot(seq, u, k, sum)...)
	}
	return append(out, shortEnt(short, attr, c, size)...)
}

// addEntry writes slots into the first free run of a directory.
func (v *gvol) addEntry(dir uint32, slots []byte) int {
	off := v.free(dir, len(slots)/32)
	copy(v.b[off:], slots)
	return off
}

// mkdir makes an empty directory cluster with "." and ".." and returns it.
func (v *gvol) mkdir(parent uint32) uint32 {
	c := v.alloc()
	off := v.coff(c)
	copy(v.b[off:], shortEnt(".", 0x10, c, 0))
	if v.typ == 32 && parent == v.rootClus {
		parent = 0
	}
	copy(v.b[off+32:], shortEnt("..", 0x10, parent, 0))
	return c
}

// fillDeleted marks every free slot of the clusters as a deleted entry, so
// that no end-of-directory marker stops a reader early.
func (v *gvol) fillDeleted(cs ...uint32) {
	for _, c := range cs {
		for off := v.coff(c); off < v.coff(c)+v.csize(); off += 32 {
			if v.b[off] == 0 {
				copy(v.b[off:], shortEnt("\xe5ELETED", 0x20, 0, 0))
			}
		}
	}
}
