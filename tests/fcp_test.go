package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fcpReport is fcp --json's output.
type fcpReport struct {
	Files      int          `json:"files"`
	Dirs       int          `json:"dirs"`
	Bytes      int64        `json:"bytes"`
	Skipped    []fcpProblem `json:"skipped"`
	Failed     []fcpProblem `json:"failed"`
	Renamed    []fcpRenamed `json:"renamed"`
	Error      string       `json:"error"`
	Signal     string       `json:"signal"`
	ExitStatus int          `json:"exit_status"`
	Stats      *struct {
		WriteRequests    int64 `json:"write_requests"`
		WriteBytes       int64 `json:"write_bytes"`
		ReadRequests     int64 `json:"read_requests"`
		ReadBytes        int64 `json:"read_bytes"`
		Flushes          int64 `json:"flushes"`
		MaxReadsInFlight int64 `json:"max_reads_in_flight"`
	} `json:"stats"`
}

// fcpProblem is a path fcp skipped or failed on, and why.
type fcpProblem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// fcpRenamed is a source stored under another name.
type fcpRenamed struct {
	Path   string `json:"path"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// fcpJSON runs fcp --json whatever its exit status and decodes its report.
func fcpJSON(t *testing.T, args ...string) (fcpReport, result) {
	t.Helper()
	r := run(t, "fcp", append([]string{"--json"}, args...)...)
	var rep fcpReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("fcp --json %s: output is not JSON: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	return rep, r
}

// volInfo is fsinfo --json for the volume at offset in img.
func volInfo(t *testing.T, img string, offset int64) fsinfoJSON {
	t.Helper()
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", mimg(img, offset))
	return fi
}

// newImage makes an image with fmkfs in a fresh temp dir.
func newImage(t *testing.T, args ...string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "fmkfs", append(args, img)...)
	return img
}

// mustMkdir makes host directories.
func mustMkdir(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// fcpTreeEpoch is the mtime of the first entry of a test tree: even
// seconds (FAT keeps 2-second steps), well in the past.
var fcpTreeEpoch = time.Date(2021, 3, 4, 5, 6, 8, 0, time.UTC)

// makeTree builds the round-trip tree under root (which it creates): long,
// Unicode and case-variant names, folders three deep, an empty folder,
// files around the cluster size cs and one of 3 MiB. Every entry gets its
// own even-second mtime in the past.
func makeTree(t *testing.T, root string, cs int) {
	t.Helper()
	mustMkdir(t, filepath.Join(root, "empty"), filepath.Join(root, "level one", "level two", "level three"))
	files := []struct {
		name string
		size int
	}{
		{"A file name that is much longer than eight dot three allows.txt", 1000},
		{"Ünïcødé ñame.txt", 77},
		{"日本語.txt", 3},
		{"lower.txt", 10},
		{"UPPER.TXT", 11},
		{"MiXeD.Txt", 12},
		{"sizes/zero.bin", 0},
		{"sizes/one.bin", 1},
		{"sizes/cs-1.bin", cs - 1},
		{"sizes/cs.bin", cs},
		{"sizes/cs+1.bin", cs + 1},
		{"big.bin", 3 << 20},
		{"level one/one.txt", 100},
		{"level one/level two/two.txt", 200},
		{"level one/level two/level three/three.txt", 300},
	}
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.name))
		mustMkdir(t, filepath.Dir(p))
		writeFile(t, p, f.size, byte(i+1))
	}
	setTimes(t, root)
}

// setTimes gives every entry under root (root included) a distinct
// even-second mtime, after all of them exist.
func setTimes(t *testing.T, root string) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		mt := fcpTreeEpoch.Add(time.Duration(2*i) * time.Hour).Add(time.Duration(2*i) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

// treeEntry is what compareTrees looks at for one path.
type treeEntry struct {
	dir   bool
	mtime time.Time
	data  []byte
}

func readTree(t *testing.T, root string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := treeEntry{dir: d.IsDir(), mtime: fi.ModTime()}
		if !e.dir {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file", p)
			}
			if e.data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compareTrees fails the test unless got holds exactly want's names (case
// included), with the same bytes and file mtimes (and folder mtimes when
// dirTimes is set).
func compareTrees(t *testing.T, want, got string, dirTimes bool) {
	t.Helper()
	w, g := readTree(t, want), readTree(t, got)
	if diff := cmp.Diff(sortedKeys(w), sortedKeys(g)); diff != "" {
		t.Fatalf("%s and %s hold different names (-want +got):\n%s", want, got, diff)
	}
	for name, we := range w {
		ge := g[name]
		if we.dir != ge.dir {
			t.Errorf("%s: directory %v, want %v", name, ge.dir, we.dir)
			continue
		}
		if !we.dir && !bytes.Equal(we.data, ge.data) {
			t.Errorf("%s: %d bytes that differ from the %d of the source", name, len(ge.data), len(we.data))
		}
		if (!we.dir || dirTimes) && !we.mtime.Equal(ge.mtime) {
			t.Errorf("%s: mtime %s, want %s", name, ge.mtime.UTC(), we.mtime.UTC())
		}
	}
}

// compareFile fails the test unless two host files hold the same bytes.
func compareFile(t *testing.T, want, got string) {
	t.Helper()
	w, err1 := os.ReadFile(want)
	g, err2 := os.ReadFile(got)
	if err1 != nil || err2 != nil {
		t.Fatalf("reading %s and %s: %v, %v", want, got, err1, err2)
	}
	if !bytes.Equal(w, g) {
		t.Fatalf("%s: %d bytes that differ from the %d of %s", got, len(g), len(w), want)
	}
}

func sortedKeys(m map[string]treeEntry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// mget reads one file out of the image with mcopy.
func mget(t *testing.T, img, p string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "mget.bin")
	ok(t, "mcopy", "-n", "-i", img, "::"+p, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mexists says whether mdir finds a path in the image.
func mexists(t *testing.T, img, p string) bool {
	t.Helper()
	return run(t, "mdir", "-i", img, "::"+p).code == 0
}

// fcp copies a host tree into every kind of volume; mtools and fcp read it
// back with the same names, bytes and mtimes, and fsck.fat finds nothing.
func TestFcpRoundTrip(t *testing.T) {
	need(t, "fsck.fat", "mcopy")
	cases := []struct {
		name   string
		args   []string
		offset int64
	}{
		{"fat12", []string{"--size", "8M", "--fat", "12"}, 0},
		{"fat16", []string{"--size", "64M"}, 0},
		{"fat32", []string{"--size", "600M"}, 0},
		{"fat32-4k-sectors", []string{"--size", "1G", "--fat", "32", "--sector-size", "4096"}, 0},
		{"mbr", []string{"--size", "100M", "--table", "mbr"}, 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			img := newImage(t, tc.args...)
			fi := volInfo(t, img, tc.offset)
			src := filepath.Join(dir, "tree")
			makeTree(t, src, int(fi.ClusterSize))

			in := []string{"-r", "-i", img, src, "::/"}
			outFlags := []string{"-i", img}
			if tc.offset != 0 {
				in = []string{"-r", "-i", img + "@@1M", src, "::/"}
				outFlags = []string{"--partition", "1", "-i", img}
			}
			ok(t, "fcp", in...)
			fsckClean(t, img, tc.offset)

			out1 := filepath.Join(dir, "mcopy-out")
			mustMkdir(t, out1)
			ok(t, "mcopy", "-s", "-m", "-n", "-i", mimg(img, tc.offset), "::/tree", out1)
			compareTrees(t, src, filepath.Join(out1, "tree"), false)

			out2 := filepath.Join(dir, "fcp-out")
			mustMkdir(t, out2)
			ok(t, "fcp", append(append([]string{"-r"}, outFlags...), "::/tree", out2)...)
			compareTrees(t, src, filepath.Join(out2, "tree"), true)
			fsckClean(t, img, tc.offset)
			if tc.offset != 0 {
				// IMAGE@@OFFSET::/path needs no -i.
				one := filepath.Join(dir, "one.txt")
				ok(t, "fcp", img+"@@1048576::/tree/level one/one.txt", one)
				compareFile(t, filepath.Join(src, "level one", "one.txt"), one)
			}
		})
	}
}

// fcp reads trees that mcopy wrote onto volumes mkfs.fat made.
func TestFcpReadsMcopyTrees(t *testing.T) {
	need(t, "mkfs.fat", "mcopy")
	for _, fatType := range []string{"12", "16", "32"} {
		t.Run("fat"+fatType, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			ok(t, "mkfs.fat", "-C", "-F", fatType, img, map[string]string{"12": "8192", "16": "65536", "32": "307200"}[fatType])
			fi := volInfo(t, img, 0)
			src := filepath.Join(dir, "tree")
			makeTree(t, src, int(fi.ClusterSize))
			ok(t, "mcopy", "-s", "-m", "-i", img, src, "::/")
			out := filepath.Join(dir, "out")
			mustMkdir(t, out)
			ok(t, "fcp", "-r", "-i", img, "::/tree", out)
			compareTrees(t, src, filepath.Join(out, "tree"), false)
			// Reading never changes the volume.
			fsckClean(t, img, 0)
		})
	}
}

// cpFixture is a fresh FAT16 image and a host folder holding photos/a.jpg,
// photos/sub/b.jpg, one.txt and two.txt.
type cpFixture struct {
	img, host string
	data      map[string][]byte // host-relative path -> bytes
}

func newCpFixture(t *testing.T) cpFixture {
	t.Helper()
	f := cpFixture{img: newImage(t, "--size", "64M"), host: t.TempDir(), data: map[string][]byte{}}
	mustMkdir(t, filepath.Join(f.host, "photos", "sub"))
	for i, name := range []string{"photos/a.jpg", "photos/sub/b.jpg", "one.txt", "two.txt"} {
		f.data[name] = writeFile(t, f.h(name), 1000+i*5000, byte(10+i))
	}
	return f
}

// h is the host path of a fixture file.
func (f cpFixture) h(rel string) string { return filepath.Join(f.host, filepath.FromSlash(rel)) }

// want fails the test unless the image holds p with the bytes of the
// fixture's host file rel.
func (f cpFixture) want(t *testing.T, p, rel string) {
	t.Helper()
	if got := mget(t, f.img, p); !bytes.Equal(got, f.data[rel]) {
		t.Fatalf("::%s: %d bytes, want the %d of %s", p, len(got), len(f.data[rel]), rel)
	}
}

func (f cpFixture) absent(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if mexists(t, f.img, p) {
			t.Fatalf("::%s exists; it should not", p)
		}
	}
}

// wantHost fails the test unless host file p holds the bytes of rel.
func (f cpFixture) wantHost(t *testing.T, p, rel string) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, f.data[rel]) {
		t.Fatalf("%s: %d bytes, want the %d of %s", p, len(got), len(f.data[rel]), rel)
	}
}

func mustContain(t *testing.T, what, msg string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Fatalf("%s: %q does not mention %q", what, msg, w)
		}
	}
}

// fcp follows cp's rules for where a copy lands and which mistakes are
// errors.
func TestFcpCpSemantics(t *testing.T) {
	need(t, "mcopy", "mmd", "mdir", "fsck.fat")
	cases := []struct {
		name string
		fn   func(t *testing.T, f cpFixture)
	}{
		{"dir-into-existing-dir", func(t *testing.T, f cpFixture) {
			ok(t, "mmd", "-i", f.img, "::/x", "::/y")
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), "::/x/")
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), "::/y")
			for _, d := range []string{"/x", "/y"} {
				f.want(t, d+"/photos/a.jpg", "photos/a.jpg")
				f.want(t, d+"/photos/sub/b.jpg", "photos/sub/b.jpg")
				f.absent(t, d+"/a.jpg")
			}
		}},
		{"dir-dot-copies-contents", func(t *testing.T, f cpFixture) {
			ok(t, "mmd", "-i", f.img, "::/x")
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos")+"/.", "::/x")
			f.want(t, "/x/a.jpg", "photos/a.jpg")
			f.want(t, "/x/sub/b.jpg", "photos/sub/b.jpg")
			f.absent(t, "/x/photos")
		}},
		{"volume-root-as-source", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), f.h("one.txt"), "::/")
			out := t.TempDir()
			ok(t, "fcp", "-r", "-i", f.img, "::/", out)
			f.wantHost(t, filepath.Join(out, "one.txt"), "one.txt")
			f.wantHost(t, filepath.Join(out, "photos", "a.jpg"), "photos/a.jpg")
			f.wantHost(t, filepath.Join(out, "photos", "sub", "b.jpg"), "photos/sub/b.jpg")
			ents, _ := os.ReadDir(out)
			if len(ents) != 2 {
				t.Fatalf("copying ::/ made %d entries in the destination, want 2 (one.txt, photos)", len(ents))
			}
		}},
		{"new-dest-names-the-file", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-i", f.img, f.h("one.txt"), "::/renamed.bin")
			f.want(t, "/renamed.bin", "one.txt")
			f.absent(t, "/one.txt")
			out := filepath.Join(t.TempDir(), "back.txt")
			ok(t, "fcp", "-i", f.img, "::/renamed.bin", out)
			f.wantHost(t, out, "one.txt")
		}},
		{"new-dest-names-the-dir", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), "::/Album")
			f.want(t, "/Album/a.jpg", "photos/a.jpg")
			f.want(t, "/Album/sub/b.jpg", "photos/sub/b.jpg")
			out := filepath.Join(t.TempDir(), "back")
			ok(t, "fcp", "-r", "-i", f.img, "::/Album", out)
			f.wantHost(t, filepath.Join(out, "a.jpg"), "photos/a.jpg")
			f.wantHost(t, filepath.Join(out, "sub", "b.jpg"), "photos/sub/b.jpg")
		}},
		{"several-sources-into-dir", func(t *testing.T, f cpFixture) {
			ok(t, "mmd", "-i", f.img, "::/x")
			ok(t, "fcp", "-i", f.img, f.h("one.txt"), f.h("two.txt"), "::/x")
			f.want(t, "/x/one.txt", "one.txt")
			f.want(t, "/x/two.txt", "two.txt")
			msg := fails(t, "fcp", "-i", f.img, f.h("one.txt"), f.h("two.txt"), "::/x/one.txt")
			mustContain(t, "several sources onto a file", msg, "not a directory")
		}},
		{"wildcards", func(t *testing.T, f cpFixture) {
			ok(t, "mmd", "-i", f.img, "::/DCIM")
			pics := map[string]string{"IMG_0001.JPG": "photos/a.jpg", "IMG_0002.JPG": "photos/sub/b.jpg", "img_0003.jpg": "one.txt"}
			for name, rel := range pics {
				ok(t, "mcopy", "-i", f.img, f.h(rel), "::/DCIM/"+name)
			}
			ok(t, "mcopy", "-i", f.img, f.h("two.txt"), "::/DCIM/NOTES.TXT")
			out := t.TempDir()
			ok(t, "fcp", "-i", f.img, "::/DCIM/*.jpg", out)
			ents, _ := os.ReadDir(out)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if diff := cmp.Diff([]string{"IMG_0001.JPG", "IMG_0002.JPG", "img_0003.jpg"}, names); diff != "" {
				t.Fatalf("'::/DCIM/*.jpg' copied (-want +got):\n%s", diff)
			}
			for name, rel := range pics {
				f.wantHost(t, filepath.Join(out, name), rel)
			}
			out2 := t.TempDir()
			ok(t, "fcp", "-i", f.img, "::/dcim/IMG_000?.JpG", out2)
			if ents, _ := os.ReadDir(out2); len(ents) != 3 {
				t.Fatalf("'::/dcim/IMG_000?.JpG' copied %d files, want 3", len(ents))
			}
			msg := fails(t, "fcp", "-i", f.img, "::/DCIM/*.png", t.TempDir())
			mustContain(t, "a pattern that matches nothing", msg, "*.png")
		}},
		{"no-clobber-keeps-old", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-i", f.img, f.h("one.txt"), "::/f.txt")
			r := run(t, "fcp", "-n", "-i", f.img, f.h("two.txt"), "::/f.txt")
			t.Logf("fcp -n onto an existing file: exit %d, stderr %q", r.code, r.stderr)
			f.want(t, "/f.txt", "one.txt")
			out := filepath.Join(t.TempDir(), "f.txt")
			writeFile(t, out, 5, 99)
			run(t, "fcp", "--no-clobber", "-i", f.img, "::/f.txt", out)
			if b, _ := os.ReadFile(out); len(b) != 5 {
				t.Fatalf("fcp --no-clobber overwrote a host file (now %d bytes)", len(b))
			}
		}},
		{"overwrite-frees-old-clusters", func(t *testing.T, f cpFixture) {
			big := filepath.Join(f.host, "big.bin")
			writeFile(t, big, 3<<20, 3)
			small := f.h("photos/sub/b.jpg") // 6000 bytes
			fresh := volInfo(t, f.img, 0)
			ok(t, "fcp", "-i", f.img, big, "::/f.bin")
			ok(t, "fcp", "-i", f.img, small, "::/f.bin")
			f.want(t, "/f.bin", "photos/sub/b.jpg")
			fsckClean(t, f.img, 0)
			after := volInfo(t, f.img, 0)
			need := uint32((6000 + fresh.ClusterSize - 1) / fresh.ClusterSize)
			if after.FreeClusters != fresh.FreeClusters-need {
				t.Fatalf("after overwriting a 3 MiB file with 6000 bytes: %d free clusters, want %d (fresh %d minus %d)",
					after.FreeClusters, fresh.FreeClusters-need, fresh.FreeClusters, need)
			}
			// And back: the small file replaced by the big one.
			ok(t, "fcp", "-i", f.img, big, "::/f.bin")
			if got := mget(t, f.img, "/f.bin"); len(got) != 3<<20 {
				t.Fatalf("overwriting with 3 MiB left %d bytes", len(got))
			}
			fsckClean(t, f.img, 0)
		}},
		{"dir-onto-file", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-i", f.img, f.h("one.txt"), "::/photos")
			msg := fails(t, "fcp", "-r", "-i", f.img, f.h("photos"), "::/")
			mustContain(t, "a directory onto a file", msg, "cannot overwrite non-directory")
			f.want(t, "/photos", "one.txt")
			ok(t, "mmd", "-i", f.img, "::/d", "::/d/one.txt")
			msg = fails(t, "fcp", "-i", f.img, f.h("one.txt"), "::/d")
			mustContain(t, "a file onto a directory", msg, "cannot overwrite directory")
			hostFile := filepath.Join(t.TempDir(), "file")
			writeFile(t, hostFile, 3, 1)
			msg = fails(t, "fcp", "-r", "-i", f.img, "::/d", hostFile)
			mustContain(t, "an image directory onto a host file", msg, "cannot overwrite non-directory")
		}},
		{"dir-without-r", func(t *testing.T, f cpFixture) {
			msg := fails(t, "fcp", "-i", f.img, f.h("photos"), "::/")
			mustContain(t, "a directory without -r", msg, "-r not specified; omitting directory")
			f.absent(t, "/photos")
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), "::/")
			msg = fails(t, "fcp", "-i", f.img, "::/photos", t.TempDir())
			mustContain(t, "an image directory without -r", msg, "-r not specified; omitting directory")
		}},
		{"missing-source", func(t *testing.T, f cpFixture) {
			msg := fails(t, "fcp", "-i", f.img, f.h("nosuch.txt"), "::/")
			mustContain(t, "a missing host source", msg, "nosuch.txt")
			msg = fails(t, "fcp", "-i", f.img, "::/nosuch.txt", t.TempDir())
			mustContain(t, "a missing image source", msg, "nosuch.txt")
			// The sources that exist are still copied; the exit status says one was not.
			msg = fails(t, "fcp", "-i", f.img, f.h("nosuch.txt"), f.h("one.txt"), "::/")
			mustContain(t, "one missing source of two", msg, "nosuch.txt")
			f.want(t, "/one.txt", "one.txt")
			// Every missing source is named, as cp does.
			msg = fails(t, "fcp", "-i", f.img, f.h("nosuch1.txt"), f.h("nosuch2.txt"), "::/")
			mustContain(t, "two missing sources", msg, "nosuch1.txt", "nosuch2.txt")
		}},
		{"missing-dest-dir", func(t *testing.T, f cpFixture) {
			msg := fails(t, "fcp", "-i", f.img, f.h("one.txt"), "::/no/such/one.txt")
			mustContain(t, "a missing destination folder", msg, "does not exist")
			f.absent(t, "/no")
			ok(t, "fcp", "-i", f.img, f.h("two.txt"), "::/two.txt")
			host := t.TempDir()
			msg = fails(t, "fcp", "-i", f.img, "::/two.txt", filepath.Join(host, "no", "such", "x"))
			mustContain(t, "a missing host destination folder", msg, "does not exist")
			if ents, _ := os.ReadDir(host); len(ents) != 0 {
				t.Fatalf("a failed copy-out left %d entries behind", len(ents))
			}
			// -r makes no missing parent either (cp makes none).
			msg = fails(t, "fcp", "-r", "-i", f.img, f.h("one.txt"), "::/no/such/one.txt")
			mustContain(t, "a missing destination folder with -r", msg, "does not exist")
			f.absent(t, "/no")
		}},
		{"times", func(t *testing.T, f cpFixture) {
			old := time.Date(2019, 5, 6, 7, 8, 10, 0, time.UTC)
			if err := os.Chtimes(f.h("one.txt"), old, old); err != nil {
				t.Fatal(err)
			}
			stamp := time.Date(2022, 6, 7, 8, 9, 10, 0, time.UTC)
			t.Setenv("SOURCE_DATE_EPOCH", fmt.Sprint(stamp.Unix()))
			ok(t, "fcp", "-i", f.img, f.h("one.txt"), "::/kept.txt")
			ok(t, "fcp", "--no-preserve", "-i", f.img, f.h("one.txt"), "::/stamped.txt")
			dir := t.TempDir()
			for name, want := range map[string]time.Time{"kept.txt": old, "stamped.txt": stamp} {
				ok(t, "mcopy", "-m", "-i", f.img, "::/"+name, filepath.Join(dir, name))
				if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.ModTime().Equal(want) {
					t.Fatalf("::/%s has mtime %v, want %s", name, fi.ModTime().UTC(), want)
				}
			}
			ok(t, "fcp", "-i", f.img, "::/kept.txt", filepath.Join(dir, "out.txt"))
			if fi, _ := os.Stat(filepath.Join(dir, "out.txt")); !fi.ModTime().Equal(old) {
				t.Fatalf("copy-out with -p (the default): mtime %v, want %s", fi.ModTime().UTC(), old)
			}
			ok(t, "fcp", "--no-preserve", "-i", f.img, "::/kept.txt", filepath.Join(dir, "np.txt"))
			if fi, _ := os.Stat(filepath.Join(dir, "np.txt")); fi.ModTime().Equal(old) {
				t.Fatal("copy-out with --no-preserve kept the image's mtime")
			}
		}},
		{"stats-on-stderr", func(t *testing.T, f cpFixture) {
			r := run(t, "fcp", "--stats", "-i", f.img, f.h("one.txt"), "::/")
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("fcp --stats: exit %d, stdout %q", r.code, r.stdout)
			}
			mustContain(t, "fcp --stats", r.stderr, "writes: ", "flushes: 3") // data | entries | dirty bit
			rep, _ := fcpJSON(t, "-i", f.img, f.h("two.txt"), "::/")
			if rep.Stats != nil || rep.Files != 1 || rep.Bytes != int64(len(f.data["two.txt"])) {
				t.Fatalf("fcp --json without --stats: %+v", rep)
			}
		}},
		{"image-to-image", func(t *testing.T, f cpFixture) {
			ok(t, "fcp", "-r", "-i", f.img, f.h("photos"), f.h("one.txt"), "::/")
			ok(t, "fcp", "-i", f.img, "::/one.txt", "::/copy.txt")
			f.want(t, "/copy.txt", "one.txt")
			ok(t, "fcp", "-r", "-i", f.img, "::/photos", "::/photos2")
			f.want(t, "/photos2/sub/b.jpg", "photos/sub/b.jpg")
			msg := fails(t, "fcp", "-r", "-i", f.img, "::/photos", "::/photos/sub")
			mustContain(t, "a folder into itself", msg, "into itself")

			other := newImage(t, "--size", "8M", "--fat", "12")
			ok(t, "fcp", f.img+"::/one.txt", other+"::/g")
			ok(t, "fcp", "-r", f.img+"::/photos", other+"::/")
			g := cpFixture{img: other, data: f.data}
			g.want(t, "/g", "one.txt")
			g.want(t, "/photos/sub/b.jpg", "photos/sub/b.jpg")
			fsckClean(t, other, 0)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newCpFixture(t)
			tc.fn(t, f)
			fsckClean(t, f.img, 0)
		})
	}
}
