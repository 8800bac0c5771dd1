package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// geom is a volume's layout computed from its boot sector fields, as the
// damage tests need it to find what to patch.
type geom struct {
	fat32                        bool
	bps, spc, reserved, nfats    int64
	rootEntries, fatSectors      int64
	rootCluster, fsinfo, backup  int64
	fatOff, rootOff, dataOff, cs int64
}

func readGeom(t *testing.T, img []byte) geom {
	t.Helper()
	le := binary.LittleEndian
	g := geom{
		bps:         int64(le.Uint16(img[0x0B:])),
		spc:         int64(img[0x0D]),
		reserved:    int64(le.Uint16(img[0x0E:])),
		nfats:       int64(img[0x10]),
		rootEntries: int64(le.Uint16(img[0x11:])),
		fatSectors:  int64(le.Uint16(img[0x16:])),
	}
	if g.fatSectors == 0 {
		g.fat32 = true
		g.fatSectors = int64(le.Uint32(img[0x24:]))
		g.rootCluster = int64(le.Uint32(img[0x2C:]))
		g.fsinfo = int64(le.Uint16(img[0x30:]))
		g.backup = int64(le.Uint16(img[0x32:]))
	}
	g.cs = g.bps * g.spc
	g.fatOff = g.reserved * g.bps
	g.rootOff = g.fatOff + g.nfats*g.fatSectors*g.bps
	g.dataOff = g.rootOff + g.rootEntries*32
	if g.fat32 {
		g.rootOff = g.clusterOff(g.rootCluster)
	}
	return g
}

func (g geom) clusterOff(c int64) int64 { return g.dataOff + (c-2)*g.cs }

// entry reads (copy 0..) FAT entry c; setEntry writes it in the given copies.
func (g geom) entry(img []byte, copy int, c int64) int64 {
	base := g.fatOff + int64(copy)*g.fatSectors*g.bps
	if g.fat32 {
		return int64(binary.LittleEndian.Uint32(img[base+4*c:]) & 0x0FFFFFFF)
	}
	return int64(binary.LittleEndian.Uint16(img[base+2*c:]))
}

func (g geom) setEntry(img []byte, c, v int64, copies ...int) {
	for _, i := range copies {
		base := g.fatOff + int64(i)*g.fatSectors*g.bps
		if g.fat32 {
			binary.LittleEndian.PutUint32(img[base+4*c:], uint32(v))
		} else {
			binary.LittleEndian.PutUint16(img[base+2*c:], uint16(v))
		}
	}
}

// findEntry returns the offset of the short entry named short (11 bytes,
// "NAME    EXT") in the directory whose first bytes start at dirOff.
func findEntry(t *testing.T, img []byte, dirOff, n int64, short string) int64 {
	t.Helper()
	for off := dirOff; off < dirOff+n; off += 32 {
		if string(img[off:off+11]) == short {
			return off
		}
	}
	t.Fatalf("no entry %q in the directory at byte %d", short, dirOff)
	return 0
}

func entCluster(img []byte, off int64) int64 {
	le := binary.LittleEndian
	return int64(le.Uint16(img[off+20:]))<<16 | int64(le.Uint16(img[off+26:]))
}

// damageImage makes a volume with mkfs.fat (FAT16 or FAT32) and fills it
// with mcopy: BIG.BIN (3 clusters or more), SMALL.TXT, a directory SUB
// holding a file, and a file with a long name.
func damageImage(t *testing.T, fatType int) (string, geom) {
	t.Helper()
	need(t, "mkfs.fat", "mcopy", "mmd")
	dir := t.TempDir()
	img := filepath.Join(dir, "vol.img")
	blocks := "66000" // KiB: 131,000 one-sector clusters for FAT32
	if fatType == 16 {
		blocks = "30000"
	}
	ok(t, "mkfs.fat", "-C", "-F", fmt.Sprint(fatType), "-s", "1", "-i", "12345678", img, blocks)
	writeFile(t, filepath.Join(dir, "big.bin"), 5000, 1)
	writeFile(t, filepath.Join(dir, "small.txt"), 100, 2)
	writeFile(t, filepath.Join(dir, "A rather long file name.dat"), 700, 3)
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "big.bin"), filepath.Join(dir, "small.txt"), filepath.Join(dir, "A rather long file name.dat"), "::/")
	ok(t, "mmd", "-i", img, "::/sub")
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "small.txt"), "::/sub/inner.txt")
	raw, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return img, readGeom(t, raw)
}

func fileSHA(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func patchFile(t *testing.T, path string, f func(img []byte)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// verifyJSON is the part of fverify --json the tests read.
type verifyJSON struct {
	Device   string `json:"device"`
	FATType  string `json:"fat_type"`
	Error    string `json:"error"`
	Problems []struct {
		Kind    string   `json:"kind"`
		Path    string   `json:"path"`
		Paths   []string `json:"paths"`
		Cluster uint32   `json:"cluster"`
		Offset  int64    `json:"offset"`
		Message string   `json:"message"`
		Fixed   bool     `json:"fixed"`
	} `json:"problems"`
	Fixes []string `json:"fixes"`
	Plan  []string `json:"plan"`
	Left  []struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"left"`
	Summary struct {
		Clean     bool           `json:"clean"`
		Problems  int            `json:"problems"`
		Remaining int            `json:"remaining"`
		Kinds     map[string]int `json:"kinds"`
		Files     int            `json:"files"`
		Lost      uint32         `json:"lost_clusters"`
	} `json:"summary"`
	// After is the check made again after --repair.
	After *struct {
		Clean bool `json:"clean"`
		Files int  `json:"files"`
	} `json:"after_repair"`
}

// verifyCode runs fverify with args, checks the exit status and that the
// image is unchanged unless --repair was given, and returns the JSON.
func verifyCode(t *testing.T, img string, code int, args ...string) verifyJSON {
	t.Helper()
	before := fileSHA(t, img)
	r := run(t, "fverify", append(append([]string{"--json"}, args...), img)...)
	if r.code != code {
		t.Fatalf("fverify %v %s: exit %d, want %d\n%s%s", args, img, r.code, code, r.stdout, r.stderr)
	}
	var out verifyJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("fverify --json: not JSON: %v\n%s", err, r.stdout)
	}
	repair := false
	for _, a := range args {
		repair = repair || slices.Contains([]string{"--repair", "--auto", "-a", "-p", "-y", "-af", "-fa"}, a)
	}
	if !repair && fileSHA(t, img) != before {
		t.Fatalf("fverify %v changed the image", args)
	}
	return out
}

func kinds(v verifyJSON) string {
	var s []string
	for _, p := range v.Problems {
		s = append(s, p.Kind+": "+p.Path+": "+p.Message)
	}
	return strings.Join(s, "\n")
}

func hasProblem(v verifyJSON, kind string) bool {
	for _, p := range v.Problems {
		if p.Kind == kind {
			return true
		}
	}
	return false
}

func TestFverifyDamage(t *testing.T) {
	need(t, "fsck.fat")
	type damage struct {
		name  string
		fat   int
		kind  string
		patch func(t *testing.T, img []byte, g geom)
	}
	entryOf := func(t *testing.T, img []byte, g geom, short string) int64 {
		return findEntry(t, img, g.rootOff, 16*32, short)
	}
	lastCluster := func(g geom, img []byte) int64 {
		total := int64(binary.LittleEndian.Uint16(img[0x13:]))
		if total == 0 {
			total = int64(binary.LittleEndian.Uint32(img[0x20:]))
		}
		return (total*g.bps-g.dataOff)/g.cs + 1
	}
	cases := []damage{
		{"fats-differ", 32, "fat-copies", func(t *testing.T, img []byte, g geom) {
			g.setEntry(img, lastCluster(g, img), 0x0FFFFFFF, 1)
		}},
		{"fats-differ-16", 16, "fat-copies", func(t *testing.T, img []byte, g geom) {
			g.setEntry(img, 3, 0x1234, 1)
		}},
		{"cross-link", 32, "cross-link", func(t *testing.T, img []byte, g geom) {
			big := entryOf(t, img, g, "BIG     BIN")
			small := entryOf(t, img, g, "SMALL   TXT")
			copy(img[small+20:small+22], img[big+20:big+22])
			copy(img[small+26:small+28], img[big+26:big+28])
		}},
		{"lost-cluster", 16, "lost", func(t *testing.T, img []byte, g geom) {
			c := lastCluster(g, img)
			g.setEntry(img, c-1, c, 0, 1)
			g.setEntry(img, c, 0xFFFF, 0, 1)
		}},
		{"fsinfo-free-count", 32, "fsinfo", func(t *testing.T, img []byte, g geom) {
			binary.LittleEndian.PutUint32(img[g.fsinfo*g.bps+488:], 12)
		}},
		{"size-vs-chain", 16, "size", func(t *testing.T, img []byte, g geom) {
			big := entryOf(t, img, g, "BIG     BIN")
			binary.LittleEndian.PutUint32(img[big+28:], 50000)
		}},
		{"circular-chain", 32, "loop", func(t *testing.T, img []byte, g geom) {
			first := entCluster(img, entryOf(t, img, g, "BIG     BIN"))
			second := g.entry(img, 0, first)
			g.setEntry(img, second, first, 0, 1)
		}},
		{"lfn-checksum", 32, "lfn-checksum", func(t *testing.T, img []byte, g geom) {
			short := entryOf(t, img, g, "ARATHE~1DAT")
			img[short-32+13] ^= 0x5A
		}},
		{"dotdot", 16, "dotdot", func(t *testing.T, img []byte, g geom) {
			sub := entCluster(img, entryOf(t, img, g, "SUB        "))
			binary.LittleEndian.PutUint16(img[g.clusterOff(sub)+32+26:], 7)
		}},
		{"dirty-bit", 32, "dirty", func(t *testing.T, img []byte, g geom) { img[0x41] |= 1 }},
		{"dirty-bit-16", 16, "dirty", func(t *testing.T, img []byte, g geom) { img[0x25] |= 1 }},
		{"backup-boot-differs", 32, "backup-boot", func(t *testing.T, img []byte, g geom) {
			img[g.backup*g.bps+0x18] ^= 1
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img, g := damageImage(t, c.fat)
			verifyCode(t, img, 0)
			patchFile(t, img, func(b []byte) { c.patch(t, b, g) })
			out := verifyCode(t, img, 4)
			if !hasProblem(out, c.kind) {
				t.Fatalf("fverify does not name %q:\n%s", c.kind, kinds(out))
			}
			fixed := verifyCode(t, img, 1, "--repair")
			if len(fixed.Fixes) == 0 || fixed.Summary.Remaining != 0 {
				t.Fatalf("--repair: fixes %q, remaining %d:\n%s", fixed.Fixes, fixed.Summary.Remaining, kinds(fixed))
			}
			// The volume is checked again after the repair, and the
			// counts given are those after it.
			if fixed.After == nil || !fixed.After.Clean {
				t.Fatalf("--repair: the check after the repair: %+v", fixed.After)
			}
			fsckClean(t, img, 0)
			verifyCode(t, img, 0)
		})
	}
}

// A cross-link names both files; lost clusters are counted.
func TestFverifyCrossLinkPaths(t *testing.T) {
	img, g := damageImage(t, 16)
	patchFile(t, img, func(b []byte) {
		big := findEntry(t, b, g.rootOff, 512, "BIG     BIN")
		inner := findEntry(t, b, g.clusterOff(entCluster(b, findEntry(t, b, g.rootOff, 512, "SUB        "))), 512, "INNER   TXT")
		copy(b[inner+26:inner+28], b[big+26:big+28])
	})
	out := verifyCode(t, img, 4)
	for _, p := range out.Problems {
		if p.Kind == "cross-link" {
			joined := strings.Join(p.Paths, " ")
			if !strings.Contains(joined, "/big.bin") || !strings.Contains(joined, "/sub/inner.txt") || p.Cluster == 0 {
				t.Fatalf("cross-link problem does not name both files and the cluster: %+v", p)
			}
			if out.Summary.Lost == 0 {
				t.Fatalf("inner.txt's old cluster is not counted lost:\n%s", kinds(out))
			}
			return
		}
	}
	t.Fatalf("no cross-link:\n%s", kinds(out))
}

func TestFverifyBadBootSector(t *testing.T) {
	t.Run("sectors-per-cluster-3", func(t *testing.T) {
		img, _ := damageImage(t, 16)
		patchFile(t, img, func(b []byte) { b[0x0D] = 3 })
		out := verifyCode(t, img, 8)
		if out.Error == "" {
			t.Fatal("no error in the JSON output")
		}
		r := run(t, "fverify", img)
		if r.code != 8 || !strings.Contains(r.stderr, "sectors per cluster") {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("primary-zeroed", func(t *testing.T) {
		img, _ := damageImage(t, 32)
		orig, _ := os.ReadFile(img)
		patchFile(t, img, func(b []byte) { clear(b[:512]) })
		out := verifyCode(t, img, 4)
		if !hasProblem(out, "boot-sector") {
			t.Fatalf("no boot-sector problem:\n%s", kinds(out))
		}
		verifyCode(t, img, 1, "--repair")
		now, _ := os.ReadFile(img)
		if !bytes.Equal(now[:512], orig[:512]) {
			t.Fatal("--repair did not restore the boot sector from its backup")
		}
		fsckClean(t, img, 0)
	})
	t.Run("not-fat", func(t *testing.T) {
		img := filepath.Join(t.TempDir(), "zero.img")
		if err := os.WriteFile(img, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		verifyCode(t, img, 8)
	})
}

// An image made by fmkfs and fcp is clean, and --compare holds it against
// its source tree.
func TestFverifyCleanAndCompare(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "clean.img")
	tree := filepath.Join(dir, "tree")
	for _, d := range []string{"photos/2024", "docs"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(tree, "photos/2024/IMG_0001.JPG"), 300_000, 4)
	writeFile(t, filepath.Join(tree, "photos/2024/a long name for a picture.jpeg"), 4097, 5)
	writeFile(t, filepath.Join(tree, "docs/readme.txt"), 1, 6)
	writeFile(t, filepath.Join(tree, "empty"), 0, 7)
	for name, mkfs := range map[string][]string{
		"FAT16": {"--size", "40M"},
		"FAT32": {"--size", "40M", "--fat", "32", "--sectors-per-cluster", "1"},
	} {
		t.Run(name, func(t *testing.T) {
			os.Remove(img)
			ok(t, "fmkfs", append(mkfs, img)...)
			ok(t, "fcp", "-r", "-i", img, tree+"/.", "::/")
			out := verifyCode(t, img, 0, "--compare", tree+"=::/")
			if len(out.Problems) != 0 || !out.Summary.Clean || out.Summary.Files != 4 {
				t.Fatalf("clean image: %+v\n%s", out.Summary, kinds(out))
			}
			fsckClean(t, img, 0)
			if r := run(t, "fverify", img); r.code != 0 || !strings.Contains(r.stdout, "clean") {
				t.Fatalf("text output: exit %d\n%s", r.code, r.stdout)
			}
			// One changed byte and one file missing from the volume.
			changed := filepath.Join(dir, "changed")
			os.RemoveAll(changed)
			ok(t, "cp", "-r", tree, changed)
			b, _ := os.ReadFile(filepath.Join(changed, "photos/2024/IMG_0001.JPG"))
			b[123456] ^= 0xFF
			os.WriteFile(filepath.Join(changed, "photos/2024/IMG_0001.JPG"), b, 0o644)
			writeFile(t, filepath.Join(changed, "docs/new.txt"), 10, 8)
			out = verifyCode(t, img, 4, "--compare", changed+"=::/")
			msgs := kinds(out)
			if len(out.Problems) != 2 || !strings.Contains(msgs, "at byte 123456") || !strings.Contains(msgs, "missing in the volume") {
				t.Fatalf("--compare with a changed byte and a new file:\n%s", msgs)
			}
			// Case-insensitive names, a single file, and a file missing on the host.
			verifyCode(t, img, 0, "--compare", filepath.Join(tree, "docs/readme.txt")+"=::/DOCS/README.TXT")
			os.Remove(filepath.Join(changed, "empty"))
			out = verifyCode(t, img, 4, "--compare", changed+"=::/")
			if !strings.Contains(kinds(out), "/empty: missing on the host") {
				t.Fatalf("file missing on the host:\n%s", kinds(out))
			}
		})
	}
}

func TestFverifyUsage(t *testing.T) {
	img, _ := damageImage(t, 16)
	if r := run(t, "fverify", "--compare", "nonsense", img); r.code != 16 {
		t.Fatalf("bad --compare: exit %d", r.code)
	}
	if r := run(t, "fverify"); r.code != 16 {
		t.Fatalf("no image: exit %d", r.code)
	}
	// The @@OFFSET image spec and --stats.
	dir := t.TempDir()
	padded := filepath.Join(dir, "padded.img")
	raw, _ := os.ReadFile(img)
	os.WriteFile(padded, append(make([]byte, 1<<20), raw...), 0o644)
	r := run(t, "fverify", "--stats", padded+"@@1048576")
	if r.code != 0 || !strings.Contains(r.stderr, "reads:") {
		t.Fatalf("@@offset --stats: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// fsck.fat's spellings: -a -p -y repair and save lost chains (as --repair
// does), -n only checks, -l lists, -v is verbose (not the version), -V is
// refused with a sentence; --dry-run prints the plan and writes nothing.
func TestFverifyFlags(t *testing.T) {
	img, g := damageImage(t, 16)
	if r := run(t, "fverify", "-V", img); r.code != 16 || !strings.Contains(r.stderr, "-V (fsck.fat's second, verifying pass) is not needed") {
		t.Fatalf("-V: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "fverify", "-n", "-a", img); r.code != 16 || !strings.Contains(r.stderr, "cannot be combined") {
		t.Fatalf("-n -a: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "fverify", "--version"); r.code != 0 || !strings.Contains(r.stdout, "fverify version") {
		t.Fatalf("--version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := run(t, "fverify", "-v", "-l", img)
	if r.code != 0 || !strings.Contains(r.stderr, "fverify: checking the boot sector") || !strings.Contains(r.stdout, "checking /sub/inner.txt") {
		t.Fatalf("-v -l: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// A lost chain: -n -v prints the plan (what --repair would do: save
	// it), --dry-run the verified plan, -af saves the chain as a file.
	patchFile(t, img, func(b []byte) {
		c := (int64(len(b))-g.dataOff)/g.cs + 1
		g.setEntry(b, c-1, c, 0, 1)
		g.setEntry(b, c, 0xFFFF, 0, 1)
	})
	if r := run(t, "fverify", "-n", "-v", img); r.code != 4 || !strings.Contains(r.stdout, "plan: save the 2 lost clusters") {
		t.Fatalf("-n -v: exit %d\n%s", r.code, r.stdout)
	}
	if r := run(t, "fverify", "-n", "-v", "--free-lost", img); r.code != 4 || !strings.Contains(r.stdout, "plan: free the 2 lost clusters") {
		t.Fatalf("-n -v --free-lost: exit %d\n%s", r.code, r.stdout)
	}
	if r := run(t, "fverify", "--repair", "--free-lost", "-f", img); r.code != 16 || !strings.Contains(r.stderr, "give one") {
		t.Fatalf("--free-lost -f: exit %d\n%s", r.code, r.stderr)
	}
	out := verifyCode(t, img, 4, "--dry-run")
	if len(out.Plan) == 0 || len(out.Fixes) != 0 || len(out.Left) != 0 {
		t.Fatalf("--dry-run: plan %q, fixes %q, left %v", out.Plan, out.Fixes, out.Left)
	}
	out = verifyCode(t, img, 1, "-af")
	if !strings.Contains(strings.Join(out.Fixes, "\n"), "as /FSCK0000.REC") {
		t.Fatalf("-af: %q", out.Fixes)
	}
	fsckClean(t, img, 0)
	if got := ok(t, "mtype", "-i", img, "::/FSCK0000.REC"); len(got) != int(2*g.cs) {
		t.Fatalf("FSCK0000.REC holds %d bytes", len(got))
	}
}

// fverify -l --json prints each path as it is checked, as -l without
// --json does, rather than holding them all for the object at the end: on
// a volume of 40,000 files whose paths are some 430 bytes long (17 MiB of
// paths), its peak memory stays within a few MiB of fverify's without -l,
// on FAT and exFAT, and the object is still whole: "checked" lists every
// path, the rest as before.
func TestFverifyListJSONStreams(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const folders, per = 20, 2000
	long := strings.Repeat("a long folder name ", 11)
	for d := 0; d < folders; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("%s%02d", long, d))
		mustMkdir(t, sub)
		for f := 0; f < per; f++ {
			name := fmt.Sprintf("%s%05d.txt", strings.Repeat("a long file name ", 12), f)
			if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, fsType := range []string{"fat", "exfat"} {
		t.Run(fsType, func(t *testing.T) {
			img := filepath.Join(dir, fsType+".img")
			ok(t, "fmkfs", "--type", fsType, "--size", "256M", img)
			defer os.Remove(img)
			ok(t, "fcp", "-r", "-i", img, tree, "::/")
			_, plain := peakRSS(t, "fverify", img)
			r, listed := peakRSS(t, "fverify", "-l", "--json", img)
			t.Logf("fverify %.1f MiB, fverify -l --json %.1f MiB", float64(plain)/(1<<20), float64(listed)/(1<<20))
			if r.code != 0 {
				t.Fatalf("fverify -l --json: exit %d\n%s", r.code, r.stderr)
			}
			var out struct {
				Checked []string `json:"checked"`
				Summary struct {
					Clean bool `json:"clean"`
					Files int  `json:"files"`
				} `json:"summary"`
				ExitStatus *int `json:"exit_status"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("fverify -l --json: %v\n%s", err, tailOf(r.stdout))
			}
			// Each file and folder, /tree, and (FAT) the root.
			if n := len(out.Checked); n < folders*per+folders+1 || n > folders*per+folders+2 || !out.Summary.Clean || out.Summary.Files != folders*per || out.ExitStatus == nil {
				t.Errorf("fverify -l --json: %d paths checked, summary %+v, exit_status %v", n, out.Summary, out.ExitStatus)
			}
			last := fmt.Sprintf("/tree/%s%02d/%s%05d.txt", long, folders-1, strings.Repeat("a long file name ", 12), per-1)
			if !slices.Contains(out.Checked, last) {
				t.Errorf("fverify -l --json: %q not among the paths checked", last)
			}
			if listed > plain+4<<20 {
				t.Errorf("fverify -l --json: peak RSS %.1f MiB, %.1f MiB more than without -l: the paths are held, not streamed",
					float64(listed)/(1<<20), float64(listed-plain)/(1<<20))
			}
		})
	}
}
