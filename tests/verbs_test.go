package tests

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// verbsImage makes a FAT image with mkfs.fat and fills it with mtools, so
// that the verbs are held against what mtools wrote: A.TXT (5000 bytes),
// "Long file name.txt", HIDDEN.SYS (hidden, system), DIR/B.BIN,
// DIR/SUB/C.TXT.
func verbsImage(t *testing.T, bits string) (img string, data []byte) {
	t.Helper()
	need(t, "mkfs.fat", "mcopy", "mmd", "mattrib")
	dir := t.TempDir()
	img = filepath.Join(dir, "v.img")
	size := map[string]string{"12": "1900", "16": "20480", "32": "70000"}[bits]
	ok(t, "mkfs.fat", "-F", bits, "-s", "1", "-C", img, size)
	src := filepath.Join(dir, "src")
	data = writeFile(t, src, 5000, 3)
	ok(t, "mcopy", "-i", img, src, "::/A.TXT")
	ok(t, "mcopy", "-i", img, src, "::/Long file name.txt")
	ok(t, "mcopy", "-i", img, src, "::/HIDDEN.SYS")
	ok(t, "mattrib", "-i", img, "+h", "+s", "::/HIDDEN.SYS")
	ok(t, "mmd", "-i", img, "::/DIR", "::/DIR/SUB")
	ok(t, "mcopy", "-i", img, src, "::/DIR/B.BIN")
	ok(t, "mcopy", "-i", img, src, "::/DIR/SUB/C.TXT")
	return img, data
}

func lines(s string) []string {
	out := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// mdirNames lists the names mdir -b prints for a directory (its members, as
// full paths), reduced to the last element.
func mdirNames(t *testing.T, img, dir string) []string {
	var names []string
	for _, l := range lines(ok(t, "mdir", "-b", "-a", "-i", img, dir)) {
		l = strings.TrimSuffix(l, "/")
		names = append(names, l[strings.LastIndex(l, "/")+1:])
	}
	sort.Strings(names)
	return names
}

func sorted(s []string) []string { sort.Strings(s); return s }

func TestFls(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, _ := verbsImage(t, bits)
			got := lines(ok(t, "fls", "-a", "-i", img))
			if want := mdirNames(t, img, "::/"); strings.Join(sorted(got), "|") != strings.Join(want, "|") {
				t.Errorf("fls -a: %q\nmdir -b: %q", got, want)
			}
			got = lines(ok(t, "fls", "-i", img, "::/DIR"))
			if want := mdirNames(t, img, "::/DIR"); strings.Join(sorted(got), "|") != strings.Join(want, "|") {
				t.Errorf("fls ::/DIR: %q\nmdir -b: %q", got, want)
			}
			// Hidden and system entries only with -a.
			if out := ok(t, "fls", "-i", img); strings.Contains(out, "HIDDEN") {
				t.Errorf("fls without -a shows a hidden file:\n%s", out)
			}
			long := ok(t, "fls", "-l", "-a", img+"::/")
			if !regexp.MustCompile(`(?m)^HSA +5000 \d{4}-\d\d-\d\d \d\d:\d\d HIDDEN\.SYS$`).MatchString(long) ||
				!regexp.MustCompile(`(?m)^D +<DIR> .* DIR$`).MatchString(long) {
				t.Errorf("fls -l -a:\n%s", long)
			}
			rec := ok(t, "fls", "-R", "-i", img, "::/DIR")
			if !strings.Contains(rec, "::/DIR:\nSUB\nB.BIN\n") || !strings.Contains(rec, "::/DIR/SUB:\nC.TXT\n") {
				t.Errorf("fls -R:\n%s", rec)
			}
			var listing struct {
				Entries []struct {
					Path, Name, ShortName, MTime, Attributes string
					Size                                     int64
					FirstCluster                             uint32 `json:"first_cluster"`
					Runs                                     int
					Dir                                      bool
				}
			}
			jsonOut(t, &listing, "fls", "--json", "-R", "-a", "-i", img)
			ents := listing.Entries
			if len(ents) != 7 {
				t.Fatalf("fls --json -R -a: %d entries, want 7: %+v", len(ents), ents)
			}
			for _, e := range ents {
				if e.Path == "/Long file name.txt" && (e.Size != 5000 || e.Runs != 1 || e.FirstCluster < 2 || e.Attributes != "A" || e.Dir) {
					t.Errorf("long name entry %+v", e)
				}
				if e.Path == "/DIR/SUB" && (!e.Dir || e.Attributes != "D") {
					t.Errorf("DIR/SUB entry %+v", e)
				}
			}
			msg := fails(t, "fls", "-i", img, "::/NOPE")
			if !strings.Contains(msg, "::/NOPE") || !strings.Contains(msg, "no such file") {
				t.Errorf("fls of a missing path: %q", msg)
			}
		})
	}
}

func TestFcat(t *testing.T) {
	img, data := verbsImage(t, "32")
	out := ok(t, "fcat", "-i", img, "::/A.TXT", "::/dir/sub/c.txt")
	if !bytes.Equal([]byte(out), append(append([]byte{}, data...), data...)) {
		t.Errorf("fcat printed %d bytes, want the two files (%d bytes)", len(out), 2*len(data))
	}
	// A file larger than one 4 MiB read, written by mcopy.
	big := filepath.Join(t.TempDir(), "big")
	want := writeFile(t, big, 9<<20+123, 9)
	ok(t, "mcopy", "-i", img, big, "::/BIG")
	if got := ok(t, "fcat", img+"::/BIG"); !bytes.Equal([]byte(got), want) {
		t.Errorf("fcat of a 9 MiB file: %d bytes differ from %d", len(got), len(want))
	}
	if msg := fails(t, "fcat", "-i", img, "::/DIR"); !strings.Contains(msg, "is a directory") {
		t.Errorf("fcat of a directory: %q", msg)
	}
}

func TestFrmFmkdirFrmdir(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, _ := verbsImage(t, bits)
			free := mfree(t, img)
			if msg := fails(t, "frm", "-i", img, "::/DIR"); !strings.Contains(msg, "is a directory") {
				t.Errorf("frm of a directory without -r: %q", msg)
			}
			if msg := fails(t, "frmdir", "-i", img, "::/DIR"); !strings.Contains(msg, "directory not empty") {
				t.Errorf("frmdir of a full directory: %q", msg)
			}
			if msg := fails(t, "frmdir", "-i", img, "::/A.TXT"); !strings.Contains(msg, "not a directory") {
				t.Errorf("frmdir of a file: %q", msg)
			}
			ok(t, "frm", "-r", "-i", img, "::/DIR")
			fsckClean(t, img, 0)
			// DIR, SUB (one cluster each) and two 5000-byte files.
			if got := mfree(t, img); got != free+2*512+2*5120 {
				t.Errorf("free bytes after frm -r: %d, want %d", got, free+2*512+2*5120)
			}
			ok(t, "frm", "-i", img, "::/A.TXT", "::/Long file name.txt")
			ok(t, "fmkdir", "-i", img, "::/NEW")
			ok(t, "fmkdir", "-p", "-i", img, "::/P/Q/R", "::/NEW")
			if msg := fails(t, "fmkdir", "-i", img, "::/NEW"); !strings.Contains(msg, "exists") {
				t.Errorf("fmkdir of an existing directory: %q", msg)
			}
			fsckClean(t, img, 0)
			if got := mdirNames(t, img, "::/P/Q"); strings.Join(got, "|") != "R" {
				t.Errorf("mdir ::/P/Q: %q", got)
			}
			ok(t, "frmdir", "-i", img, "::/P/Q/R", "::/NEW")
			fsckClean(t, img, 0)
			if got := mdirNames(t, img, "::/"); strings.Join(got, "|") != "HIDDEN.SYS|P" {
				t.Errorf("root after removals: %q", got)
			}
		})
	}
}

// mfree is the free space mtools' minfo/mdir reports, in bytes.
func mfree(t *testing.T, img string) int64 {
	t.Helper()
	out := ok(t, "mdir", "-i", img, "::/")
	m := regexp.MustCompile(`([\d ]+) bytes free`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("mdir shows no free space:\n%s", out)
	}
	var n int64
	fmt.Sscan(strings.ReplaceAll(m[1], " ", ""), &n)
	return n
}

// mshowfat prints the clusters of a file as mtools sees them.
func mshowfat(t *testing.T, img, p string) string {
	t.Helper()
	out := ok(t, "mshowfat", "-i", img, p)
	return strings.TrimSpace(out[strings.Index(out, "<"):])
}

func TestFmv(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, data := verbsImage(t, bits)
			chain := mshowfat(t, img, "::/A.TXT")
			ok(t, "fmv", "-i", img, "::/A.TXT", "::/renamed.txt")
			ok(t, "fmv", "-i", img, "::/renamed.txt", "::/DIR") // into a directory
			if got := mshowfat(t, img, "::/DIR/renamed.txt"); got != chain {
				t.Errorf("chain after fmv %s, want %s", got, chain)
			}
			// A directory moves to the root and then into another one.
			ok(t, "fmv", "-i", img, "::/DIR/SUB", "::/TOP")
			ok(t, "fmkdir", "-i", img, "::/OTHER")
			ok(t, "fmv", "-i", img, "::/TOP", "::/OTHER/")
			fsckClean(t, img, 0)
			if got := ok(t, "fcat", "-i", img, "::/OTHER/TOP/C.TXT"); got != string(data) {
				t.Errorf("::/OTHER/TOP/C.TXT differs after moving its directory")
			}
			// mtools follows ".." of the moved directory back to OTHER.
			ok(t, "mcopy", "-i", img, "::/OTHER/TOP/../TOP/C.TXT", filepath.Join(t.TempDir(), "c"))
			if msg := fails(t, "fmv", "-i", img, "::/OTHER", "::/OTHER/TOP/X"); !strings.Contains(msg, "into itself") {
				t.Errorf("moving a directory into itself: %q", msg)
			}
			// Replacing a file frees the replaced file's clusters.
			free := mfree(t, img)
			ok(t, "fmv", "-i", img, "::/HIDDEN.SYS", "::/Long file name.txt")
			if got := mfree(t, img); got != free+5120 {
				t.Errorf("free bytes after replacing a file: %d, want %d", got, free+5120)
			}
			if got := lines(ok(t, "fls", "-a", "-i", img)); strings.Join(sorted(got), "|") != "DIR|Long file name.txt|OTHER" {
				t.Errorf("root after fmv: %q", got)
			}
			fsckClean(t, img, 0)
		})
	}
}

func TestFattrib(t *testing.T) {
	img, _ := verbsImage(t, "16")
	ok(t, "fattrib", "+r", "-a", "+h", "-i", img, "::/A.TXT", "::/DIR")
	fsckClean(t, img, 0)
	want := ok(t, "mattrib", "-i", img, "::/A.TXT", "::/DIR", "::/HIDDEN.SYS")
	got := ok(t, "fattrib", "-i", img, "::/A.TXT", "::/DIR", "::/HIDDEN.SYS")
	if got != want {
		t.Errorf("fattrib:\n%s\nmattrib:\n%s", got, want)
	}
	if !strings.HasPrefix(got, "      HR     ::/A.TXT\n") {
		t.Errorf("A.TXT attributes:\n%s", got)
	}
	ok(t, "fattrib", "-r", "-h", "-s", "+a", "-i", img, "::/HIDDEN.SYS")
	if got := ok(t, "mattrib", "-i", img, "::/HIDDEN.SYS"); got != "  A          ::/HIDDEN.SYS\n" {
		t.Errorf("mattrib after clearing: %q", got)
	}
	var js struct {
		Files []struct{ Path, Attributes string }
	}
	jsonOut(t, &js, "fattrib", "--json", "-i", img, "::/DIR")
	if len(js.Files) != 1 || js.Files[0].Attributes != "RHD" {
		t.Errorf("fattrib --json: %+v", js)
	}
}

func TestFlabel(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, _ := verbsImage(t, bits)
			if out := ok(t, "flabel", img); out != img+" has no label\n" {
				t.Errorf("flabel of an unlabelled volume: %q", out)
			}
			ok(t, "flabel", img, "Camera 1")
			fsckClean(t, img, 0)
			if out := ok(t, "mlabel", "-s", "-i", img, "::"); !strings.Contains(out, "Volume label is CAMERA 1") {
				t.Errorf("mlabel -s: %q", out)
			}
			if out := ok(t, "minfo", "-i", img, "::"); !strings.Contains(out, `label="CAMERA 1   "`) {
				t.Errorf("minfo does not show the boot sector label:\n%s", out)
			}
			if out := ok(t, "flabel", "-i", img); out != "CAMERA 1\n" {
				t.Errorf("flabel -i: %q", out)
			}
			ok(t, "mlabel", "-i", img, "::FROM MTOOLS")
			var js struct {
				Label     string
				BootLabel string  `json:"boot_label"`
				RootLabel *string `json:"root_label"`
			}
			jsonOut(t, &js, "flabel", "--json", img)
			if js.Label != "FROM MTOOLS" || js.RootLabel == nil || *js.RootLabel != "FROM MTOOLS" {
				t.Errorf("flabel --json after mlabel: %+v", js)
			}
			for _, bad := range []string{"TWELVE CHARS", "A*B", "über"} {
				fails(t, "flabel", img, bad)
			}
			ok(t, "flabel", "-c", "-i", img)
			fsckClean(t, img, 0)
			if out := ok(t, "mlabel", "-s", "-i", img, "::"); !strings.Contains(out, "has no label") {
				t.Errorf("mlabel -s after flabel -c: %q", out)
			}
			if out := ok(t, "minfo", "-i", img, "::"); !strings.Contains(out, `label="NO NAME    "`) {
				t.Errorf("minfo after flabel -c:\n%s", out)
			}
		})
	}
}

// Every writing verb takes --stats and --sync, and prints a JSON summary.
func TestVerbsStatsJSON(t *testing.T) {
	img, _ := verbsImage(t, "32")
	r := run(t, "fmkdir", "--stats", "--sync", "file", "-i", img, "::/S")
	if r.code != 0 || !strings.Contains(r.stderr, "write") {
		t.Errorf("fmkdir --stats: exit %d, stderr %q", r.code, r.stderr)
	}
	var sum struct {
		Done   []string
		Failed []struct{ Path, Reason string }
		Stats  map[string]any
	}
	jsonOut(t, &sum, "frmdir", "--json", "--stats", "-i", img, "::/S")
	if len(sum.Done) != 1 || sum.Failed == nil || len(sum.Failed) != 0 || sum.Stats == nil {
		t.Errorf("frmdir --json --stats: %+v", sum)
	}
	fsckClean(t, img, 0)
}

// fmv renames a directory to another case of its name, as mv does on a
// case-insensitive file system, instead of moving it into itself.
func TestFmvCaseOnlyDirectoryRename(t *testing.T) {
	img, _ := verbsImage(t, "16")
	ok(t, "fmkdir", "-i", img, "::/docs")
	ok(t, "fcp", "-i", img, img+"::/A.TXT", "::/docs/IN.TXT")
	ok(t, "fmv", "-i", img, "::/docs", "::/Docs")
	got := strings.Join(lines(ok(t, "fls", "-i", img)), "|")
	if !strings.Contains(got, "Docs") || strings.Contains(got, "docs") {
		t.Fatalf("fls after the rename: %q", got)
	}
	if !strings.Contains(strings.Join(mdirNames(t, img, "::/"), "|"), "Docs") {
		t.Fatalf("mdir: %q", mdirNames(t, img, "::/"))
	}
	ok(t, "fcat", "-i", img, "::/Docs/IN.TXT")
	fsckClean(t, img, 0)
	// A move onto itself, spelled the same, is an error, as mv's is; the
	// image stays as it was.
	for _, c := range [][2]string{{"::/Docs", "::/Docs"}, {"::/Docs/IN.TXT", "::/Docs/IN.TXT"}} {
		before := imageSum(t, img)
		if msg := fails(t, "fmv", "-i", img, c[0], c[1]); !strings.Contains(msg, "are the same file") {
			t.Errorf("fmv %s %s: %q", c[0], c[1], msg)
		}
		if imageSum(t, img) != before {
			t.Errorf("fmv %s %s changed the image", c[0], c[1])
		}
	}
	// Into itself is still refused, and a trailing slash means into.
	if msg := fails(t, "fmv", "-i", img, "::/Docs", "::/Docs/"); !strings.Contains(msg, "into itself") {
		t.Fatalf("fmv ::/Docs ::/Docs/: %q", msg)
	}
}

// A path ending in a slash names a directory: "::/file/" is an error for
// every command, as "file/" is for rm, cat and ls, never the file.
func TestTrailingSlashOnFile(t *testing.T) {
	img, data := verbsImage(t, "16")
	before := imageSum(t, img)
	for _, args := range [][]string{
		{"frm", "-i", img, "::/A.TXT/"},
		{"frm", "-r", "-i", img, "::/A.TXT/"},
		{"fcat", "-i", img, "::/A.TXT/"},
		{"fls", "-i", img, "::/A.TXT/"},
		{"fattrib", "-i", img, "+h", "::/A.TXT/"},
		{"ffallocate", "-l", "1M", "-i", img, "::/A.TXT/"},
		{"fmv", "-i", img, "::/A.TXT/", "::/B.TXT"},
		{"frmdir", "-i", img, "::/A.TXT/"},
	} {
		if msg := fails(t, args[0], args[1:]...); !strings.Contains(msg, "not a directory") {
			t.Errorf("%s: %q, want 'not a directory'", strings.Join(args, " "), msg)
		}
	}
	if imageSum(t, img) != before {
		t.Fatal("a refused command changed the image")
	}
	if got := ok(t, "fcat", "-i", img, "::/A.TXT"); got != string(data) {
		t.Fatal("A.TXT changed")
	}
	// Directories with a slash still work.
	ok(t, "fls", "-i", img, "::/DIR/")
	ok(t, "frm", "-r", "-i", img, "::/DIR/")
	fsckClean(t, img, 0)
}
