package fat

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// Interoperability with mtools and dosfstools, which must be installed: a
// missing tool fails the test rather than skipping it.

// runTool runs a tool with the environment mtools needs for UTF-8 names.
func runTool(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(voltest.NeedTool(t, name), args...)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1", "LC_ALL=C.UTF-8", "MTOOLSRC=/dev/null")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mkfsImage makes a 4 MiB FAT12 image with mkfs.fat and returns its path.
func mkfsImage(t *testing.T) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "img")
	if out, err := runTool(t, "mkfs.fat", "-C", img, "4096"); err != nil {
		t.Fatalf("mkfs.fat: %v\n%s", err, out)
	}
	return img
}

// rootRegion returns the byte offset and length of the fixed root directory
// of a FAT12/16 image, from its boot sector.
func rootRegion(t *testing.T, img []byte) (off, size int) {
	t.Helper()
	le := binary.LittleEndian
	bps := int(le.Uint16(img[11:]))
	reserved := int(le.Uint16(img[14:]))
	fats := int(img[16])
	rootEntries := int(le.Uint16(img[17:]))
	fatSize := int(le.Uint16(img[22:]))
	if bps == 0 || fatSize == 0 || rootEntries == 0 {
		t.Fatalf("not a FAT12/16 image: bps %d fat size %d root entries %d", bps, fatSize, rootEntries)
	}
	off, size = (reserved+fats*fatSize)*bps, rootEntries*DirEntrySize
	if off+size > len(img) {
		t.Fatalf("root directory %d+%d beyond the image (%d bytes)", off, size, len(img))
	}
	return off, size
}

// interopNames are names mtools and ftools must agree on (BMP only: mtools
// 4.0.32 mangles characters outside the BMP).
var interopNames = []string{
	"readme.txt", "README2.TXT", "Mixed Case Name.TXT", "long file name.html", "Ünïcødé.txt",
	"12345678.1234", ".bashrc", "x+y=z", "a.b.c", "exactly13char", "exactly 26 characters here",
	"ÄÖÜ.TXT", "FOO", "lower", "日本語のファイル.txt", strings.Repeat("L", 250) + ".dat",
}

func TestParseDirReadsMtools(t *testing.T) {
	img := mkfsImage(t)
	src := t.TempDir()
	args := []string{"-i", img}
	want := map[string]uint32{}
	for i, n := range interopNames {
		data := strings.Repeat("x", i*37+1)
		if err := os.WriteFile(filepath.Join(src, n), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(src, n))
		want[n] = uint32(len(data))
	}
	if out, err := runTool(t, "mcopy", append(args, "::/")...); err != nil {
		t.Fatalf("mcopy: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	off, size := rootRegion(t, b)
	recs, probs := ParseDir(b[off:off+size], FAT12)
	if len(probs) != 0 {
		t.Errorf("problems in the mtools directory: %+v", probs)
	}
	got := map[string]uint32{}
	for _, r := range recs {
		got[r.Name] = r.Entry.Size
	}
	for n, sz := range want {
		if g, ok := got[n]; !ok || g != sz {
			t.Errorf("%q: size %d (found %v), want %d", n, g, ok, sz)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d: %q", len(got), len(want), recordNames(recs))
	}
}

func TestEncodeRecordReadByMtoolsAndFsck(t *testing.T) {
	img := mkfsImage(t)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	off, size := rootRegion(t, b)
	root := b[off : off+size]
	names := slices.Clone(interopNames)
	for i := range 20 {
		names = append(names, "long file name "+strings.Repeat("x", i)+".html")
	}
	used := NewShortNameSet()
	for _, n := range names {
		info, err := MakeShortName(n, used)
		if err != nil {
			t.Fatal(err)
		}
		used.Add(info.Short)
		rec, err := EncodeRecord(n, info, DirEntry{Attr: AttrArchive, CreateDate: 0x5d82, ModDate: 0x5d82, AccessDate: 0x5d82})
		if err != nil {
			t.Fatal(err)
		}
		at := FindFreeSlots(root, len(rec)/DirEntrySize, 0)
		if at < 0 {
			t.Fatal("root directory full")
		}
		copy(root[at*DirEntrySize:], rec)
	}
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runTool(t, "mdir", "-b", "-i", img, "::/")
	if err != nil {
		t.Fatalf("mdir: %v\n%s", err, out)
	}
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		listed = append(listed, strings.TrimPrefix(l, "::/"))
	}
	slices.Sort(listed)
	slices.Sort(names)
	if !slices.Equal(listed, names) {
		t.Errorf("mdir lists\n%q\nwant\n%q", listed, names)
	}
	fsckClean(t, img)
}

// fsckClean runs fsck.fat -n and fails unless it prints nothing but its
// version and summary: it exits 0 even after reporting bad LFN checksums.
func fsckClean(t *testing.T, img string) {
	t.Helper()
	out, err := runTool(t, "fsck.fat", "-n", img)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "fsck.fat ") || !strings.HasPrefix(lines[1], img+": ") {
		t.Errorf("fsck.fat -n: %v\n%s", err, out)
	}
}

// TestParseDirGolden reads a root directory mtools 4.0.32 wrote (see
// testdata/dir_mtools_root.txt for how it was made).
func TestParseDirGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "dir_mtools_root.bin"))
	if err != nil {
		t.Fatal(err)
	}
	recs, probs := ParseDir(raw, FAT32)
	if len(probs) != 0 {
		t.Errorf("problems: %+v", probs)
	}
	want := "Readme2.TXT/emoji \uf600 name.txt/foo/long file name.html/readme.txt/Ünïcødé.txt"
	if got := strings.Join(recordNames(recs), "/"); got != want {
		t.Errorf("names %q\nwant %q", got, want)
	}
}

// addTestdataSeeds adds the golden directories to the fuzz corpus.
func addTestdataSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "dir_*.bin"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}
