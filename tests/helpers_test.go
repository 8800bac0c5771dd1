// Package tests holds ftools' end-to-end tests: they build the commands,
// run them on images and loop devices, and hold every image against the
// oracles (fsck.fat -n and mtools), and every image the oracles write
// against our reader.
package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// binDir holds the commands built once for the whole test binary.
var binDir string

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == rssRunArg {
		os.Exit(rssRun(os.Args[2:]))
	}
	dir, err := os.MkdirTemp("", "ftools-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	build := exec.Command("go", "build", "-o", dir+"/", "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the commands: %v\n%s", err, out)
		os.Exit(2)
	}
	binDir = dir
	os.Setenv("PATH", dir+":"+os.Getenv("PATH")+":/usr/sbin:/sbin")
	// mtools refuses images whose geometry it dislikes unless told not to
	// check; our images are checked by fsck.fat instead.
	os.Setenv("MTOOLS_SKIP_CHECK", "1")
	os.Setenv("TZ", "UTC")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// need fails the test when an oracle is missing: the README's test command
// installs them, so a missing one is a broken set-up, not a reason to skip.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: run scripts/deps (the README's test command does)", tool)
		}
	}
}

// result is a finished command.
type result struct {
	stdout, stderr string
	code           int
}

// run runs a command and returns its output and exit status.
func run(t *testing.T, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return result{out.String(), errb.String(), code}
}

// ok runs a command that must succeed and returns its stdout.
func ok(t *testing.T, name string, args ...string) string {
	t.Helper()
	r := run(t, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// fails runs a command that must fail and returns its stderr.
func fails(t *testing.T, name string, args ...string) string {
	t.Helper()
	r := run(t, name, args...)
	if r.code == 0 {
		t.Fatalf("%s %s: succeeded, want an error\nstdout:\n%s", name, strings.Join(args, " "), r.stdout)
	}
	return r.stderr
}

// fsckClean runs fsck.fat -n on an image (or a byte range of it, copied out
// first) and fails the test unless it is clean.
func fsckClean(t *testing.T, img string, offset int64) {
	t.Helper()
	need(t, "fsck.fat")
	target := img
	if offset != 0 {
		target = extract(t, img, offset)
	}
	r := run(t, "fsck.fat", "-n", target)
	if r.code != 0 {
		t.Fatalf("fsck.fat -n %s (offset %d): exit %d\n%s%s", img, offset, r.code, r.stdout, r.stderr)
	}
}

// extract copies the part of img from offset to its end into a sparse temp
// file, for tools that cannot take an offset.
func extract(t *testing.T, img string, offset int64) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "part.img")
	ok(t, "dd", "if="+img, "of="+out, "bs=1M", "iflag=skip_bytes", fmt.Sprintf("skip=%d", offset), "conv=sparse", "status=none")
	return out
}

// mimg is the mtools image argument for an image with a volume at offset.
func mimg(img string, offset int64) string {
	if offset == 0 {
		return img
	}
	return fmt.Sprintf("%s@@%d", img, offset)
}

// jsonOut runs a command with --json and decodes its output into v.
func jsonOut(t *testing.T, v any, name string, args ...string) {
	t.Helper()
	out := ok(t, name, args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%s %s: output is not JSON: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// writeFile writes n pseudo-random bytes to a host file and returns them.
func writeFile(t *testing.T, path string, n int, seed byte) []byte {
	t.Helper()
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTripMtools copies a file into the volume with mcopy, reads it back and
// compares: the volume must be usable by mtools.
func roundTripMtools(t *testing.T, img string, offset int64) {
	t.Helper()
	need(t, "mcopy", "mdir")
	dir := t.TempDir()
	src := filepath.Join(dir, "in.bin")
	want := writeFile(t, src, 100_000, 7)
	mi := mimg(img, offset)
	ok(t, "mcopy", "-i", mi, src, "::/IN.BIN")
	if out := ok(t, "mdir", "-i", mi, "::/"); !strings.Contains(out, "IN") {
		t.Fatalf("mdir does not list IN.BIN:\n%s", out)
	}
	back := filepath.Join(dir, "back.bin")
	ok(t, "mcopy", "-i", mi, "::/IN.BIN", back)
	got, err := os.ReadFile(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("mcopy read back %d bytes that differ from the %d written", len(got), len(want))
	}
}

// openBootSector opens the image img for writing, to damage or patch it by
// hand, and returns it with its first 512 bytes (the boot sector).
func openBootSector(t *testing.T, img string) (*os.File, []byte) {
	t.Helper()
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	bs := make([]byte, 512)
	if _, err := f.ReadAt(bs, 0); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f, bs
}

// patchImage applies f to a parsed copy of img and writes it back.
func patchImage(t *testing.T, img string, f func(v *gvol)) {
	t.Helper()
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	f(parseGvol(b))
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readImage reads an image whole.
func readImage(t *testing.T, img string) []byte {
	t.Helper()
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallImage makes a 4 MiB image with fmkfs in a fresh directory, and a
// host file of n bytes next to it.
func smallImage(t *testing.T, n int) (dir, img, src string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	img = filepath.Join(dir, "a.img")
	ok(t, "fmkfs", "--size", "4M", img)
	src = filepath.Join(dir, "src")
	return dir, img, src, writeFile(t, src, n, 6)
}

// firstCluster is the first cluster fls --json reports for ::/name.
func firstCluster(t *testing.T, img, name string) uint32 {
	t.Helper()
	var listing struct {
		Entries []struct {
			Name         string `json:"name"`
			FirstCluster uint32 `json:"first_cluster"`
		} `json:"entries"`
	}
	jsonOut(t, &listing, "fls", "--json", "-a", "-i", img, "::/")
	for _, e := range listing.Entries {
		if e.Name == name {
			return e.FirstCluster
		}
	}
	t.Fatalf("fls --json: no %s in the root", name)
	return 0
}

// sfdisk writes the partition table script describes into img.
func sfdisk(t *testing.T, img, script string, flags ...string) {
	t.Helper()
	cmd := exec.Command("sfdisk", append(append([]string{"-q"}, flags...), img)...)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk %s: %v\n%s", img, err, out)
	}
}
