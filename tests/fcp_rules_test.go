package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// problemPaths lists the paths of a report's problems, sorted.
func problemPaths(ps []fcpProblem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	sort.Strings(out)
	return out
}

// Host names that differ only in case (or in trailing dots and spaces)
// clash on FAT: found before anything is written, none overwritten in
// silence; -D a keeps them all.
func TestFcpCaseClash(t *testing.T) {
	need(t, "mcopy", "mdir", "fsck.fat")
	src := filepath.Join(t.TempDir(), "docs")
	mustMkdir(t, src)
	data := map[string][]byte{}
	for i, n := range []string{"readme.txt", "README.TXT", "ReadMe.txt", "notes.", "notes"} {
		data[n] = writeFile(t, filepath.Join(src, n), 100+i, byte(i))
	}

	img := newImage(t, "--size", "64M")
	rep, r := fcpJSON(t, "-r", "-i", img, src, "::/")
	if r.code != 1 || rep.ExitStatus != 1 {
		t.Fatalf("exit %d (JSON %d), want 1\n%s", r.code, rep.ExitStatus, r.stderr)
	}
	want := []string{filepath.Join(src, "ReadMe.txt"), filepath.Join(src, "notes."), filepath.Join(src, "readme.txt")}
	if diff := cmp.Diff(want, problemPaths(rep.Skipped)); diff != "" {
		t.Fatalf("skipped (-want +got):\n%s\n%s", diff, r.stderr)
	}
	for _, p := range rep.Skipped {
		if p.Reason == "" || !strings.Contains(r.stderr, "skipping '"+p.Path+"'") {
			t.Errorf("%s: reason %q, stderr does not name it:\n%s", p.Path, p.Reason, r.stderr)
		}
	}
	if !bytes.Equal(mget(t, img, "/docs/README.TXT"), data["README.TXT"]) || !bytes.Equal(mget(t, img, "/docs/notes"), data["notes"]) {
		t.Fatal("the files kept are not the ones copied first (in name order)")
	}
	fsckClean(t, img, 0)

	img = newImage(t, "--size", "64M")
	rep, r = fcpJSON(t, "-r", "-D", "a", "-i", img, src, "::/")
	if r.code != 0 || len(rep.Renamed) != 3 || rep.Files != 5 {
		t.Fatalf("-D a: exit %d, %d renamed, %d files\n%s", r.code, len(rep.Renamed), rep.Files, r.stderr)
	}
	if diff := cmp.Diff([]string{"README.TXT", "ReadMe-1.txt", "notes", "notes-1", "readme-2.txt"}, mdirNames(t, img, "::/docs")); diff != "" {
		t.Fatalf("-D a: mdir (-want +got):\n%s", diff)
	}
	if !bytes.Equal(mget(t, img, "/docs/readme-2.txt"), data["readme.txt"]) || !bytes.Equal(mget(t, img, "/docs/notes-1"), data["notes."]) {
		t.Fatal("-D a: renamed files hold the wrong data")
	}
	fsckClean(t, img, 0)

	// Copying the tree again overwrites what was there (cp's rule); -n
	// keeps it and names each file it leaves.
	rep, r = fcpJSON(t, "-r", "-n", "-i", img, src, "::/")
	if r.code != 1 || len(rep.Skipped) != 5 {
		t.Fatalf("-n onto the same tree: exit %d, %d skipped\n%s", r.code, len(rep.Skipped), r.stderr)
	}
}

// The trees: a link back to a parent folder, a dangling link, a
// FIFO. fcp copies the rest, names each, and exits 1.
func TestFcpSymlinkTrees(t *testing.T) {
	need(t, "mdir", "fsck.fat")
	dir := t.TempDir()
	L := filepath.Join(dir, "L")
	mustMkdir(t, filepath.Join(L, "sub"))
	writeFile(t, filepath.Join(L, "sub", "file"), 10, 1)
	if err := os.Symlink("..", filepath.Join(L, "sub", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(L, "sub", "flink")); err != nil {
		t.Fatal(err)
	}
	img := newImage(t, "--size", "64M")
	rep, r := fcpJSON(t, "-r", "-i", img, L, "::/")
	if r.code != 1 || !strings.Contains(r.stderr, "symbolic link to a directory") {
		t.Fatalf("a link to a parent: exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff([]string{"file", "flink"}, mdirNames(t, img, "::/L/sub")); diff != "" {
		t.Fatalf("::/L/sub (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{filepath.Join(L, "sub", "up")}, problemPaths(rep.Skipped)); diff != "" {
		t.Fatalf("skipped (-want +got):\n%s", diff)
	}
	// -L follows it, once: the loop is found by device and inode.
	rep, r = fcpJSON(t, "-r", "-L", "-i", img, L, "::/M")
	if r.code != 1 || !strings.Contains(r.stderr, "a loop") || rep.Files != 2 {
		t.Fatalf("-L: exit %d, %d files\n%s", r.code, rep.Files, r.stderr)
	}
	fsckClean(t, img, 0)

	D := filepath.Join(dir, "D")
	mustMkdir(t, D)
	writeFile(t, filepath.Join(D, "a"), 10, 2)
	writeFile(t, filepath.Join(D, "zzz"), 10, 3)
	if err := os.Symlink("nowhere", filepath.Join(D, "zz-dangling")); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("mkfifo", filepath.Join(D, "fifo")).Run(); err != nil {
		t.Fatal(err)
	}
	rep, r = fcpJSON(t, "-r", "-i", img, D, "::/")
	if r.code != 1 || rep.Files != 2 {
		t.Fatalf("dangling link and FIFO: exit %d, %d files\n%s", r.code, rep.Files, r.stderr)
	}
	if diff := cmp.Diff([]string{filepath.Join(D, "zz-dangling")}, problemPaths(rep.Failed)); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{filepath.Join(D, "fifo")}, problemPaths(rep.Skipped)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "zzz"}, mdirNames(t, img, "::/D")); diff != "" {
		t.Errorf("::/D (-want +got):\n%s", diff)
	}
	fsckClean(t, img, 0)
}

// Names FAT or Windows cannot take: trailing dots and spaces are dropped
// with a note, device names and forbidden characters refused with a
// reason (or renamed with -D a); messages stay one line each.
func TestFcpBadNames(t *testing.T) {
	need(t, "mdir", "fsck.fat")
	src := filepath.Join(t.TempDir(), "n")
	mustMkdir(t, src)
	for i, n := range []string{"dot.", "space ", "CON", "aux.c", "Lpt1.txt", "a:b", "new\nline", "ok.txt"} {
		writeFile(t, filepath.Join(src, n), 10, byte(i))
	}
	img := newImage(t, "--size", "64M")
	rep, r := fcpJSON(t, "-r", "-i", img, src+"/.", "::/")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff([]string{"dot", "ok.txt", "space"}, mdirNames(t, img, "::/")); diff != "" {
		t.Errorf("volume (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, p := range rep.Skipped {
		skipped = append(skipped, filepath.Base(p.Path)+": "+p.Reason)
	}
	sort.Strings(skipped)
	for i, want := range []string{"CON: the name \"CON\" is a DOS device name", "Lpt1.txt: the name \"Lpt1.txt\" is a DOS device name",
		"a:b: the name \"a:b\" holds ':'", "aux.c: the name \"aux.c\" is a DOS device name", "new\nline: the name \"new\\nline\" holds '\\n'"} {
		if i >= len(skipped) || !strings.HasPrefix(skipped[i], want) {
			t.Errorf("skipped: %q, want %q first", skipped, want)
			break
		}
	}
	if len(rep.Renamed) != 2 {
		t.Errorf("renamed: %+v, want dot. and space ", rep.Renamed)
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(l, "fcp: ") {
			t.Errorf("a message is broken across lines: %q", l)
		}
		if strings.Contains(l, "CleanLongName") || strings.Contains(l, "fat: ") {
			t.Errorf("a message speaks of internals: %q", l)
		}
	}
	if !strings.Contains(r.stderr, `'`+src+`/./new\x0aline'`) && !strings.Contains(r.stderr, `new\x0aline'`) {
		t.Errorf("the newline is not escaped:\n%s", r.stderr)
	}
	fsckClean(t, img, 0)

	img = newImage(t, "--size", "64M")
	if r := run(t, "fcp", "-r", "-D", "a", "-i", img, src+"/.", "::/"); r.code != 0 {
		t.Fatalf("-D a: exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff([]string{"CON-1", "Lpt1-1.txt", "a_b", "aux-1.c", "dot", "new_line", "ok.txt", "space"}, mdirNames(t, img, "::/")); diff != "" {
		t.Errorf("-D a (-want +got):\n%s", diff)
	}
	fsckClean(t, img, 0)
}

// Exit status 0 only when everything named was copied; --json lists
// every problem with its reason, and an error before the copy is JSON too.
func TestFcpExitStatusAndJSON(t *testing.T) {
	img := newImage(t, "--size", "64M")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	writeFile(t, good, 10, 1)
	bad := filepath.Join(dir, "a:b")
	writeFile(t, bad, 10, 2)

	rep, r := fcpJSON(t, "-i", img, good, "::/")
	if r.code != 0 || rep.ExitStatus != 0 || rep.Files != 1 || len(rep.Skipped)+len(rep.Failed) != 0 {
		t.Fatalf("all copied: exit %d, %+v", r.code, rep)
	}
	rep, r = fcpJSON(t, "-i", img, good, bad, filepath.Join(dir, "missing"), "::/")
	if r.code != 1 || rep.ExitStatus != 1 || rep.Files != 1 {
		t.Fatalf("one skipped, one missing: exit %d, %+v", r.code, rep)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != bad || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Reason, "no such file") {
		t.Fatalf("problems: %+v %+v", rep.Skipped, rep.Failed)
	}
	for _, args := range [][]string{
		{"-i", filepath.Join(dir, "nosuch.img"), good, "::/"},
		{"--alloc", "worst-fit", "-i", img, good, "::/"},
		{"-D", "x", "-i", img, good, "::/"},
		{"-i", img, good, bad, "::/good.txt"},
	} {
		r := run(t, "fcp", append([]string{"--json"}, args...)...)
		var e struct {
			Error      string `json:"error"`
			ExitStatus int    `json:"exit_status"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || r.code != 1 || e.ExitStatus != 1 || e.Error == "" {
			t.Errorf("fcp --json %q: exit %d, stdout %q (%v)", args, r.code, r.stdout, err)
		}
	}
	// -Q stops at the first file not copied: "a:b" comes before good.txt.
	img2 := newImage(t, "--size", "64M")
	rep, r = fcpJSON(t, "-Q", "-r", "-i", img2, dir+"/.", "::/")
	if r.code != 1 || rep.Files != 0 || !strings.Contains(rep.Error, "-Q") {
		t.Fatalf("-Q: exit %d, %+v", r.code, rep)
	}
}

// "-" as SOURCE reads standard input into a named file; as DEST it writes
// files to standard output; -t converts line ends both ways and gives
// the file back byte for byte.
func TestFcpStdinStdoutText(t *testing.T) {
	need(t, "mcopy")
	img := newImage(t, "--size", "64M")
	cmd := exec.Command("fcp", "-i", img, "-", "::/HI.TXT")
	cmd.Stdin = strings.NewReader("hi\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("echo hi | fcp - ::/HI.TXT: %v\n%s", err, out)
	}
	if got := string(mget(t, img, "/HI.TXT")); got != "hi\n" {
		t.Fatalf("::/HI.TXT holds %q", got)
	}
	if out := ok(t, "fcp", "-i", img, "::/HI.TXT", "::/HI.TXT", "-"); out != "hi\nhi\n" {
		t.Fatalf("fcp ::/HI.TXT ::/HI.TXT -: %q", out)
	}

	dir := t.TempDir()
	text := "line one\nline two\r\nbare\rcr\n\nend"
	src := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, "fcp", "-t", "-i", img, src, "::/T.TXT")
	if got, want := string(mget(t, img, "/T.TXT")), strings.ReplaceAll(text, "\n", "\r\n"); got != want {
		t.Fatalf("-t in: the volume holds %q, want %q", got, want)
	}
	back := filepath.Join(dir, "back.txt")
	ok(t, "fcp", "-t", "-i", img, "::/T.TXT", back)
	compareFile(t, src, back)
	// mcopy -t reads what fcp -t wrote as the same text.
	plain := "a\nb\n"
	ok(t, "fcp", "-t", "-i", img, writeText(t, dir, "p.txt", plain), "::/P.TXT")
	if got := ok(t, "mcopy", "-t", "-i", img, "::/P.TXT", "-"); got != plain {
		t.Fatalf("mcopy -t reads %q", got)
	}
}

func writeText(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// --alloc first-fit places files as mcopy (and the Linux driver) do, from
// FSINFO's next free cluster + 1 through the holes; the default takes one
// contiguous run. mshowfat shows the chains.
func TestFcpAllocFirstFit(t *testing.T) {
	need(t, "mshowfat", "mcopy", "fsck.fat")
	dir := t.TempDir()
	img := newImage(t, "--size", "600M")
	cs := int(volInfo(t, img, 0).ClusterSize)
	writeFile(t, filepath.Join(dir, "two"), 2*cs, 1)
	one := filepath.Join(dir, "one")
	writeFile(t, one, cs, 2)
	five := filepath.Join(dir, "five")
	writeFile(t, five, 5*cs-100, 3)
	ok(t, "fsinfo", "--next-cluster", "100", img)
	for _, n := range []string{"H1", "KEEP", "H2"} {
		ok(t, "fcp", "--alloc", "first-fit", "-i", img, filepath.Join(dir, "two"), "::/"+n)
	}
	ok(t, "fcp", "--alloc", "first-fit", "-i", img, one, "::/TAIL")
	if got := strings.TrimSpace(ok(t, "mshowfat", "-i", img, "::/KEEP")); got != "::/KEEP <103-104>" {
		t.Fatalf("mshowfat ::/KEEP: %q, want <103-104> (the first file started at next cluster 100 + 1)", got)
	}
	ok(t, "frm", "-i", img, "::/H1", "::/H2")
	ok(t, "fsinfo", "--next-cluster", "100", img)
	mc := filepath.Join(dir, "mcopy.img")
	ctg := filepath.Join(dir, "contiguous.img")
	for _, c := range []string{mc, ctg} {
		ok(t, "cp", "--sparse=always", img, c)
	}
	ok(t, "fcp", "--alloc", "first-fit", "-i", img, five, "::/NEW.BIN")
	ok(t, "mcopy", "-i", mc, five, "::/NEW.BIN")
	ok(t, "fcp", "-i", ctg, five, "::/NEW.BIN")
	got := strings.TrimSpace(ok(t, "mshowfat", "-i", img, "::/NEW.BIN"))
	if want := "::/NEW.BIN <101-102> <105-106> <108>"; got != want {
		t.Errorf("first-fit: %q, want %q", got, want)
	}
	if m := strings.TrimSpace(ok(t, "mshowfat", "-i", mc, "::/NEW.BIN")); m != got {
		t.Errorf("first-fit %q, mcopy %q on the same volume", got, m)
	}
	if c := strings.TrimSpace(ok(t, "mshowfat", "-i", ctg, "::/NEW.BIN")); c != "::/NEW.BIN <108-112>" {
		t.Errorf("contiguous: %q, want one run <108-112>", c)
	}
	fsckClean(t, img, 0)
}

// Copy-out (and image-to-image) reads the image in large requests with
// several in flight, and small files that lie next to each other share
// requests.
func TestFcpCopyOutRequests(t *testing.T) {
	need(t, "mcopy", "fsck.fat")
	img := newImage(t, "--size", "600M")
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	want := writeFile(t, big, 64<<20, 9)
	small := filepath.Join(dir, "small")
	mustMkdir(t, small)
	for i := range 300 {
		writeFile(t, filepath.Join(small, fmt.Sprintf("f%03d", i)), 3000+i*37, byte(i))
	}
	setTimes(t, small)
	ok(t, "fcp", "-r", "-i", img, big, small, "::/")

	out := t.TempDir()
	rep, r := fcpJSON(t, "--stats", "-i", img, "::/big.bin", out)
	if r.code != 0 || rep.Stats == nil {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	st := rep.Stats
	t.Logf("64 MiB out: %d reads, %d bytes, up to %d in flight", st.ReadRequests, st.ReadBytes, st.MaxReadsInFlight)
	if st.ReadRequests > 24 || st.ReadBytes > 66<<20 {
		t.Errorf("%d reads of %d bytes for one 64 MiB file, want at most 24 (16 of 4 MiB and metadata)", st.ReadRequests, st.ReadBytes)
	}
	if st.MaxReadsInFlight < 2 {
		t.Errorf("at most %d read in flight, want 2 or more", st.MaxReadsInFlight)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "big.bin")); !bytes.Equal(got, want) {
		t.Fatal("big.bin came out different")
	}
	rep, r = fcpJSON(t, "-r", "--stats", "-i", img, "::/small", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Logf("300 small files out: %d reads", rep.Stats.ReadRequests)
	if rep.Stats.ReadRequests > 20 {
		t.Errorf("%d reads for 300 adjacent small files (1.2 MiB), want at most 20", rep.Stats.ReadRequests)
	}
	compareTrees(t, small, filepath.Join(out, "small"), false)

	// From one image to another, the same read-ahead feeds the writes: 16
	// reads of 4 MiB, and the metadata of both images (boot sectors,
	// FSINFO, the target's FAT in windows, counted before the copy to
	// plan its room).
	other := newImage(t, "--size", "600M")
	rep, r = fcpJSON(t, "--stats", img+"::/big.bin", other+"::/")
	if r.code != 0 || rep.Stats.MaxReadsInFlight < 2 || rep.Stats.ReadRequests > 36 {
		t.Fatalf("image to image: exit %d, %d reads, up to %d in flight\n%s", r.code, rep.Stats.ReadRequests, rep.Stats.MaxReadsInFlight, r.stderr)
	}
	if !bytes.Equal(mget(t, other, "/big.bin"), want) {
		t.Fatal("big.bin differs after an image-to-image copy")
	}
	fsckClean(t, other, 0)
}

// A volume whose dirty bit is set gets a warning naming fverify, and the
// copy goes on.
func TestFcpDirtyVolume(t *testing.T) {
	img := newImage(t, "--size", "64M", "--fat", "16")
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{0}
	f.ReadAt(b, 0x25)
	b[0] |= 1
	f.WriteAt(b, 0x25)
	f.Close()
	if !volInfo(t, img, 0).Dirty {
		t.Fatal("set-up: the dirty bit is not set")
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, src, 10, 1)
	r := run(t, "fcp", "-i", img, src, "::/")
	if r.code != 0 || !strings.Contains(r.stderr, "dirty") || !strings.Contains(r.stderr, "fverify") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !mexists(t, img, "/a.txt") {
		t.Fatal("the copy did not go on")
	}
}

// mcopy's flags mean what they mean in mcopy: -s recursive, -v names each
// file, -o overwrites, -m keeps times, -b is accepted.
func TestFcpMcopyFlags(t *testing.T) {
	img := newImage(t, "--size", "64M")
	src := filepath.Join(t.TempDir(), "s")
	mustMkdir(t, filepath.Join(src, "d"))
	writeFile(t, filepath.Join(src, "d", "x"), 10, 1)
	r := run(t, "fcp", "-s", "-v", "-b", "-m", "-i", img, src, "::/")
	if r.code != 0 || !strings.Contains(r.stderr, "'"+filepath.Join(src, "d", "x")+"' -> '::/s/d/x'") {
		t.Fatalf("-s -v -b -m: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "fcp", "--version"); r.code != 0 || r.stdout == "" {
		t.Fatalf("--version: %d %q", r.code, r.stdout)
	}
	if r := run(t, "fcp", "-o", "-n", "-i", img, src, "::/"); r.code == 0 || !strings.Contains(r.stderr, "contradicts") {
		t.Fatalf("-o -n: exit %d %q", r.code, r.stderr)
	}
}

// An existing name that reads as a wildcard wins over the wildcard, and
// "\[" escapes a bracket (issue 17, item 1).
func TestFcpLiteralNameWins(t *testing.T) {
	need(t, "mcopy")
	img := newImage(t, "--size", "64M")
	dir := t.TempDir()
	lit := writeFile(t, filepath.Join(dir, "lit"), 100, 1)
	b67 := writeFile(t, filepath.Join(dir, "b67"), 200, 2)
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "lit"), "::/[br]67.bin")
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "b67"), "::/b67.bin")
	for _, arg := range []string{"::/[br]67.bin", `::/\[br]67.bin`} {
		out := filepath.Join(t.TempDir(), "out")
		ok(t, "fcp", "-i", img, arg, out)
		if got, _ := os.ReadFile(out); !bytes.Equal(got, lit) {
			t.Errorf("fcp %s copied %d bytes, want the 100 of [br]67.bin", arg, len(got))
		}
	}
	ok(t, "frm", "-i", img, "::/[br]67.bin")
	out := filepath.Join(t.TempDir(), "out")
	ok(t, "fcp", "-i", img, "::/[br]67.bin", out)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, b67) {
		t.Errorf("without the literal name, the pattern copied %d bytes, want b67.bin's 200", len(got))
	}
}
