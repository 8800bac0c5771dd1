package tests

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

var noSpaceRE = regexp.MustCompile(`no space left on volume: need (\d+) bytes, (\d+) free`)

// A tree copy that fills the volume stops with a clear message; the volume
// stays consistent, the file that did not fit is absent and the whole files
// copied before it are intact.
func TestFcpFullVolume(t *testing.T) {
	need(t, "fsck.fat", "mcopy", "mdir")
	cases := []struct {
		name  string
		args  []string
		size  int // of each file
		files int // more than fit
	}{
		{"fat12", []string{"--size", "1440K"}, 300 << 10, 6},
		{"fat16", []string{"--size", "16M", "--fat", "16"}, 3 << 20, 7},
		{"fat32", []string{"--size", "40M", "--fat", "32", "--cluster-size", "512"}, 8 << 20, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := newImage(t, tc.args...)
			src := filepath.Join(t.TempDir(), "fill")
			mustMkdir(t, src)
			data := make([][]byte, tc.files)
			for i := range data {
				data[i] = writeFile(t, filepath.Join(src, fmt.Sprintf("file%02d.bin", i)), tc.size, byte(i+1))
			}
			rep, r := fcpJSON(t, "-r", "-i", img, src, "::/")
			if r.code == 0 {
				t.Fatalf("filling the volume exited 0: %+v", rep)
			}
			m := noSpaceRE.FindStringSubmatch(r.stderr + rep.Error)
			if m == nil {
				t.Fatalf("no 'no space left on volume: need N bytes, M free' message:\nstderr: %s\nerror: %s", r.stderr, rep.Error)
			}
			needB, _ := strconv.ParseInt(m[1], 10, 64)
			freeB, _ := strconv.ParseInt(m[2], 10, 64)
			if needB <= freeB || needB < int64(tc.size) {
				t.Fatalf("message says need %d bytes, %d free; a file is %d bytes", needB, freeB, tc.size)
			}
			fsckClean(t, img, 0)
			fi := volInfo(t, img, 0)
			if int64(fi.FreeClusters)*fi.ClusterSize != freeB {
				t.Errorf("message says %d bytes free; fsinfo finds %d clusters of %d free afterwards", freeB, fi.FreeClusters, fi.ClusterSize)
			}
			copied := 0
			for copied < tc.files && mexists(t, img, fmt.Sprintf("/fill/file%02d.bin", copied)) {
				if got := mget(t, img, fmt.Sprintf("/fill/file%02d.bin", copied)); !bytes.Equal(got, data[copied]) {
					t.Fatalf("file%02d.bin, copied before the volume filled, reads back %d bytes that differ", copied, len(got))
				}
				copied++
			}
			if copied == 0 || copied == tc.files {
				t.Fatalf("%d of %d files are on the volume; want some but not all", copied, tc.files)
			}
			for i := copied; i < tc.files; i++ {
				if mexists(t, img, fmt.Sprintf("/fill/file%02d.bin", i)) {
					t.Fatalf("file%02d.bin is on the volume after file%02d.bin did not fit", i, copied)
				}
			}
			if rep.Files != copied {
				t.Errorf("--json reports %d files copied; the volume holds %d", rep.Files, copied)
			}
			// A single file too big for what is left fails the same way.
			msg := fails(t, "fcp", "-i", img, filepath.Join(src, "file00.bin"), "::/again.bin")
			if !noSpaceRE.MatchString(msg) {
				t.Fatalf("one file onto a full volume: %q", msg)
			}
			if mexists(t, img, "/again.bin") {
				t.Fatal("the file that did not fit is on the volume")
			}
			fsckClean(t, img, 0)
		})
	}
}

// The fixed root directory of FAT12/16 fills up: the error names the limit
// and the volume stays consistent.
func TestFcpFullRootDir(t *testing.T) {
	need(t, "fsck.fat", "mdir")
	img := newImage(t, "--size", "16M", "--fat", "16", "--root-entries", "512")
	if fi := volInfo(t, img, 0); fi.RootEntries != 512 {
		t.Fatalf("root has %d entries, want 512", fi.RootEntries)
	}
	src := filepath.Join(t.TempDir(), "many")
	mustMkdir(t, src)
	for i := 0; i < 600; i++ {
		writeFile(t, filepath.Join(src, fmt.Sprintf("F%03d.TXT", i)), 10, byte(i))
	}
	r := run(t, "fcp", "-r", "-i", img, src+"/.", "::/")
	if r.code == 0 {
		t.Fatal("600 files into a 512-entry root directory exited 0")
	}
	t.Logf("full root directory: %s", strings.TrimSpace(r.stderr))
	mustContain(t, "a full root directory", r.stderr, "512")
	fsckClean(t, img, 0)
	if n := mdirCount(t, img, "/"); n < 500 || n > 512 {
		t.Fatalf("mdir counts %d files in the root, want the 500-512 that fit", n)
	}
}

// mdirFilesRE is mdir's summary line.
var mdirFilesRE = regexp.MustCompile(`(?m)^\s*(\d+) files?\s`)

// mdirCount is the number of files mdir counts in a folder of the image.
func mdirCount(t *testing.T, img, dir string) int {
	t.Helper()
	out := ok(t, "mdir", "-i", img, "::"+dir)
	m := mdirFilesRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("mdir ::%s has no file count:\n%s", dir, out)
	}
	n, _ := strconv.Atoi(m[1])
	if dir != "/" {
		// mdir lists and counts a subfolder's "." and ".." entries.
		if !mdirDotsRE.MatchString(out) {
			t.Fatalf("mdir ::%s does not list \".\" and \"..\":\n%s", dir, out)
		}
		n -= 2
	}
	return n
}

var mdirDotsRE = regexp.MustCompile(`(?m)^\.\s+<DIR>[^\n]*\n\.\.\s+<DIR>`)

// 3,000 long names sharing a 42-character prefix in one folder.
func TestFcpManyNames(t *testing.T) {
	need(t, "fsck.fat", "mdir")
	img := newImage(t, "--size", "600M")
	src := filepath.Join(t.TempDir(), "camera")
	mustMkdir(t, src)
	for i := 0; i < 3000; i++ {
		writeFile(t, filepath.Join(src, fmt.Sprintf("a_very_long_common_prefix_for_camera_names_%05d.jpg", i)), 10, byte(i))
	}
	setTimes(t, src)
	ok(t, "fcp", "-r", "-i", img, src, "::/")
	fsckClean(t, img, 0)
	if n := mdirCount(t, img, "/camera"); n != 3000 {
		t.Fatalf("mdir counts %d files in ::/camera, want 3000", n)
	}
	out := t.TempDir()
	ok(t, "fcp", "-r", "-i", img, "::/camera", out)
	compareTrees(t, src, filepath.Join(out, "camera"), true)
}

// One 64 MiB file goes out in large writes and nothing of the data area is
// read back.
func TestFcpWritePath(t *testing.T) {
	img := newImage(t, "--size", "600M")
	src := filepath.Join(t.TempDir(), "big.bin")
	want := writeFile(t, src, 64<<20, 5)
	rep, r := fcpJSON(t, "--stats", "-i", img, src, "::/big.bin")
	if r.code != 0 {
		t.Fatalf("fcp exit %d: %s", r.code, r.stderr)
	}
	if rep.Files != 1 || rep.Bytes != 64<<20 || len(rep.Failed) != 0 {
		t.Fatalf("report: %+v", rep)
	}
	st := rep.Stats
	if st == nil {
		t.Fatal("--json --stats printed no stats")
	}
	t.Logf("64 MiB: %d writes, %d bytes written, %d reads, %d bytes read, %d flushes", st.WriteRequests, st.WriteBytes, st.ReadRequests, st.ReadBytes, st.Flushes)
	if st.WriteRequests == 0 || st.WriteRequests > 40 {
		t.Errorf("%d write requests for one 64 MiB file, want 1..40", st.WriteRequests)
	}
	if st.WriteBytes < 64<<20 || st.WriteBytes >= 70<<20 {
		t.Errorf("%d bytes written for one 64 MiB file, want 64 MiB .. 70 MiB", st.WriteBytes)
	}
	if st.ReadBytes >= 2<<20 {
		t.Errorf("%d bytes read while writing one file, want < 2 MiB (metadata only)", st.ReadBytes)
	}
	if st.Flushes != 3 { // data and FAT | entries and FSINFO | dirty bit cleared
		t.Errorf("%d flushes with the default --sync close, want 3", st.Flushes)
	}
	fsckClean(t, img, 0)
	if got := mget(t, img, "/big.bin"); !bytes.Equal(got, want) {
		t.Fatal("the 64 MiB file reads back different bytes")
	}
}

// A folder cannot hold more than 65,536 entries (32-byte slots): 21,846
// names of 3 slots each do not fit.
func TestFcpFolderEntryLimit(t *testing.T) {
	need(t, "fsck.fat")
	img := newImage(t, "--size", "600M")
	src := filepath.Join(t.TempDir(), "huge")
	mustMkdir(t, src)
	for i := 0; i < 21846; i++ {
		// 16 characters: two long-name slots plus the short entry.
		f, err := os.Create(filepath.Join(src, fmt.Sprintf("entry_name_%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r := run(t, "fcp", "-r", "-i", img, src, "::/")
	if r.code == 0 {
		t.Fatal("21,846 three-slot names into one folder exited 0")
	}
	t.Logf("entry limit: %s", lastLines(r.stderr, 3))
	if !strings.Contains(r.stderr, "65536") && !strings.Contains(r.stderr, "65,536") && !strings.Contains(r.stderr, "at most") {
		t.Fatalf("the error does not name the 65,536-entry limit:\n%s", lastLines(r.stderr, 10))
	}
	if strings.Contains(r.stderr, ":://") {
		t.Errorf("messages show image paths with a doubled slash (\":://\"):\n%s", lastLines(r.stderr, 3))
	}
	fsckClean(t, img, 0)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// rawName is a long name and the short name it is stored under, for
// entries written into an image by hand.
type rawName struct{ long, short string }

// hostileNames are long names a hand-made image may hold that must never
// become host paths.
var hostileNames = []rawName{
	{"../../evil", "EVIL1   TXT"},
	{`..\..\evil2`, "EVIL2   TXT"},
	{"ctl\x01name.txt", "CTLNAME TXT"},
	{"..", "DOTDOT  TXT"},
}

// Names in an image that hold "/", "\", ".." or control characters are
// skipped on copy-out, each named, with exit status 1; nothing lands
// outside DEST.
func TestFcpHostileNames(t *testing.T) {
	need(t, "mkfs.fat", "mcopy")
	base := t.TempDir()
	mustMkdir(t, filepath.Join(base, "img"), filepath.Join(base, "x", "y", "out"), filepath.Join(base, "x", "y", "out2"))
	img := filepath.Join(base, "img", "disk.img")
	ok(t, "mkfs.fat", "-C", "-F", "16", img, "16384")
	good := filepath.Join(base, "img", "good.txt")
	want := writeFile(t, good, 100, 1)
	ok(t, "mcopy", "-i", img, good, "::/good.txt")
	writeHostileEntries(t, img)
	if out := ok(t, "mdir", "-i", img, "::/"); !strings.Contains(out, "evil") {
		t.Fatalf("mdir does not see the hand-made entries:\n%s", out)
	}

	out := filepath.Join(base, "x", "y", "out")
	rep, r := fcpJSON(t, "-r", "-i", img, "::/", out)
	t.Logf("fcp -r ::/ with hostile names: exit %d, report %+v\nstderr:\n%s", r.code, rep, r.stderr)
	if r.code != 1 {
		t.Errorf("exit %d; want 1: every skipped entry is named and makes the status 1", r.code)
	}
	for _, h := range hostileNames {
		if !strings.Contains(r.stderr, fmt.Sprintf("%q", h.long)) && !strings.Contains(r.stderr, h.long) {
			t.Errorf("no warning names %q:\n%s", h.long, r.stderr)
		}
	}
	if len(rep.Skipped) != len(hostileNames) {
		t.Errorf("--json lists %d skipped entries %q, want %d", len(rep.Skipped), rep.Skipped, len(hostileNames))
	}
	if got, err := os.ReadFile(filepath.Join(out, "good.txt")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("good.txt was not copied next to the hostile names: %v", err)
	}
	// The same entries reached through a wildcard ("*" cannot match a
	// name holding "/"): each is skipped with a warning, never read as a
	// path ("..", backslashes) of the volume.
	out2 := filepath.Join(base, "x", "y", "out2")
	r = run(t, "fcp", "-r", "-i", img, "::/*", out2)
	t.Logf("fcp -r '::/*': exit %d\n%s", r.code, r.stderr)
	if r.code != 1 {
		t.Errorf("fcp -r '::/*' exit %d, want 1 as for fcp -r ::/", r.code)
	}
	for _, h := range hostileNames[1:] {
		if !strings.Contains(r.stderr, fmt.Sprintf("the name %q", h.long)) {
			t.Errorf("fcp -r '::/*': no warning skips %q", h.long)
		}
	}
	if strings.Contains(r.stderr, "../../evil") {
		t.Errorf("fcp -r '::/*' read the root again (it reports \"../../evil\", which \"*\" cannot match): the entry named \"..\" was taken for the parent folder")
	}
	if ents, _ := os.ReadDir(out2); len(ents) != 1 {
		t.Errorf("fcp -r '::/*' made %d entries in DEST, want 1 (good.txt)", len(ents))
	}

	allowed := map[string]bool{}
	for _, p := range []string{"img", "img/disk.img", "img/good.txt", "x", "x/y", "x/y/out", "x/y/out/good.txt", "x/y/out2", "x/y/out2/good.txt"} {
		allowed[p] = true
	}
	var extra []string
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(base, p)
		if err == nil && rel != "." && !allowed[filepath.ToSlash(rel)] {
			extra = append(extra, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(extra)
	if diff := cmp.Diff([]string(nil), extra); diff != "" {
		t.Fatalf("copying out made unexpected paths (-want +got):\n%s", diff)
	}
}

// writeHostileEntries writes long-name slots and a short entry for each of
// hostileNames into the first free slots of a FAT12/16 root directory.
func writeHostileEntries(t *testing.T, img string) { writeRootEntries(t, img, hostileNames) }

// writeRootEntries appends hand-made entries (empty files) to the root
// directory of a FAT16 image made by mkfs.fat.
func writeRootEntries(t *testing.T, img string, names []rawName) {
	t.Helper()
	f, bs := openBootSector(t, img)
	defer f.Close()
	bps := int64(binary.LittleEndian.Uint16(bs[0x0b:]))
	reserved := int64(binary.LittleEndian.Uint16(bs[0x0e:]))
	fats := int64(bs[0x10])
	rootEntries := int(binary.LittleEndian.Uint16(bs[0x11:]))
	fatSize := int64(binary.LittleEndian.Uint16(bs[0x16:]))
	if bps != 512 || fatSize == 0 || rootEntries == 0 {
		t.Fatalf("not the FAT16 layout the test expects: bps %d, FAT size %d, root entries %d", bps, fatSize, rootEntries)
	}
	rootOff := (reserved + fats*fatSize) * bps
	root := make([]byte, rootEntries*32)
	if _, err := f.ReadAt(root, rootOff); err != nil {
		t.Fatal(err)
	}
	free := 0
	for free < rootEntries && root[free*32] != 0 {
		free++
	}
	var ents []byte
	for _, h := range names {
		ents = append(ents, lfnEntries(h.long, h.short)...)
		ents = append(ents, shortEntry(h.short)...)
	}
	if free*32+len(ents) > len(root) {
		t.Fatal("root directory too small for the hand-made entries")
	}
	if _, err := f.WriteAt(ents, rootOff+int64(free*32)); err != nil {
		t.Fatal(err)
	}
}

// lfnChecksum is the checksum of an 11-byte short name that every long-name
// slot carries.
func lfnChecksum(short string) byte {
	var sum byte
	for i := 0; i < 11; i++ {
		sum = (sum&1)<<7 + sum>>1 + short[i]
	}
	return sum
}

// lfnEntries encodes long as long-name slots, in on-disk order (the slot
// with the 0x40 flag first).
func lfnEntries(long, short string) []byte {
	units := utf16.Encode([]rune(long))
	if len(units)%13 != 0 {
		units = append(units, 0)
		for len(units)%13 != 0 {
			units = append(units, 0xFFFF)
		}
	}
	n := len(units) / 13
	sum := lfnChecksum(short)
	out := make([]byte, 0, n*32)
	charOffs := []int{1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30}
	for seq := n; seq >= 1; seq-- {
		e := make([]byte, 32)
		e[0] = byte(seq)
		if seq == n {
			e[0] |= 0x40
		}
		e[11] = 0x0F
		e[13] = sum
		for i, off := range charOffs {
			binary.LittleEndian.PutUint16(e[off:], units[(seq-1)*13+i])
		}
		out = append(out, e...)
	}
	return out
}

// shortEntry is an empty file's short entry (cluster 0, size 0) dated
// 2020-01-01 12:00:00.
func shortEntry(short string) []byte {
	e := make([]byte, 32)
	copy(e, short)
	e[11] = 0x20
	tm := uint16(12 << 11)
	dt := uint16((2020-1980)<<9 | 1<<5 | 1)
	for _, off := range []int{0x0e, 0x16} {
		binary.LittleEndian.PutUint16(e[off:], tm)
		binary.LittleEndian.PutUint16(e[off+2:], dt)
	}
	binary.LittleEndian.PutUint16(e[0x12:], dt)
	return e
}
