package tests

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	// damagedTimeout is how long one command may run on a corpus image: the
	// images are at most a few MiB, so anything longer is a hang.
	damagedTimeout = 20 * time.Second
	// damagedMaxRSS bounds a command's peak resident set: more means an
	// allocation was sized from an unchecked on-disk count.
	damagedMaxRSS = 512 << 20
	// classWriteMax is the largest damage class image the writers are run on.
	classWriteMax = 4 << 20
)

// bounded is a finished command run under the corpus limits.
type bounded struct {
	argv           []string
	stdout, stderr string
	outBytes       int64 // all of stdout, of which stdout holds the start
	code           int
}

// capWriter keeps the first 1 MiB written and counts the rest.
type capWriter struct {
	buf bytes.Buffer
	n   int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := 1<<20 - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	w.n += int64(len(p))
	return len(p), nil
}

// boundedRunner runs the commands for one image. After one hang it waits only
// hungTimeout for the others, so a broken build still finishes the test in
// reasonable time (the hang has already failed it).
type boundedRunner struct {
	t       *testing.T
	timeout time.Duration
}

const hungTimeout = 5 * time.Second

// run runs a command with a timeout and checks what every command must do on
// any image: finish, not panic, stay within the memory bound, print no raw
// control characters, and either succeed or fail with "name: message" lines
// on stderr.
func (rn *boundedRunner) run(name string, args ...string) bounded {
	t := rn.t
	t.Helper()
	if rn.timeout == 0 {
		rn.timeout = damagedTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), rn.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	var out, errb capWriter
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := bounded{argv: append([]string{name}, args...), stdout: out.buf.String(), stderr: errb.buf.String(), outBytes: out.n}
	line := strings.Join(r.argv, " ")
	if ctx.Err() != nil {
		t.Errorf("%s: no answer after %v (hang)\nstderr:\n%s", line, rn.timeout, tailOf(r.stderr))
		rn.timeout = hungTimeout
		r.code = -1
		return r
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", line, err)
	}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > damagedMaxRSS {
			t.Errorf("%s: peak RSS %d MiB (limit %d MiB)", line, ru.Maxrss>>10, damagedMaxRSS>>20)
		}
	}
	for _, bad := range []string{"panic:", "goroutine ", "runtime error", "fatal error:"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("%s: crashed (stderr has %q), exit %d\n%s", line, bad, r.code, tailOf(r.stderr))
			return r
		}
	}
	if i := strings.IndexFunc(r.stderr, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }); i >= 0 {
		t.Errorf("%s: stderr holds the raw control character %#x (names must be quoted):\n%q", line, r.stderr[i], tailOf(r.stderr))
	}
	switch {
	case r.code < 0:
		t.Errorf("%s: killed by a signal: %v", line, cmd.ProcessState)
	case r.code == 0:
	case name == "fverify" && (r.code == 1 || r.code == 4) && r.stderr == "":
		// problems found (and maybe fixed): the report is on stdout
	default:
		if strings.TrimSpace(r.stderr) == "" {
			t.Errorf("%s: exit %d without an error message", line, r.code)
		}
		for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
			if !strings.HasPrefix(l, name+": ") && !strings.HasPrefix(l, "warning: ") {
				t.Errorf("%s: exit %d, stderr line %q is not a %q error", line, r.code, l, name+": ...")
				break
			}
		}
	}
	return r
}

// tailOf is the end of a long text, for messages.
func tailOf(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// gunzipTo writes the image in a .img.gz file to dst.
func gunzipTo(t *testing.T, src, dst string) []byte {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// corpusListing is what fls --json reports about the files of an image; on
// images it cannot list, a guess from the base tree.
func corpusListing(rn *boundedRunner, img string) (files, top []string) {
	t := rn.t
	t.Helper()
	r := rn.run("fls", "-R", "-a", "--json", "-i", img, "::/")
	var listing struct {
		Entries []struct {
			Path string `json:"path"`
			Dir  bool   `json:"dir"`
		} `json:"entries"`
	}
	if r.code == 0 {
		if err := json.Unmarshal([]byte(r.stdout), &listing); err != nil && r.outBytes < 1<<20 {
			t.Errorf("fls --json: output is not JSON: %v\n%s", err, tailOf(r.stdout))
		}
	}
	for _, e := range listing.Entries {
		if !e.Dir {
			files = append(files, e.Path)
		}
		if strings.Count(e.Path, "/") == 1 {
			top = append(top, e.Path)
		}
	}
	if len(files) == 0 {
		files = []string{"/HELLO.TXT"}
	}
	if len(top) == 0 {
		top = []string{"/SUB"}
	}
	return files, top
}

// pickSpread returns up to n entries spread over list, always the first and those
// with suspicious names.
func pickSpread(list []string, n int) []string {
	var out []string
	for i, p := range list {
		if i == 0 || strings.Contains(p, "..") || (len(out) < n && i%max(1, len(list)/n) == 0) {
			out = append(out, p)
		}
	}
	return out
}

// TestDamagedCorpus runs every command over every image of the damaged
// corpus: read commands on one copy (which they must leave unchanged),
// write commands each on a fresh copy, fcp copying out into a folder it
// must not leave.
func TestDamagedCorpus(t *testing.T) {
	images, _ := filepath.Glob(filepath.Join(damagedDir, "*.img.gz"))
	if len(images) < 40 {
		t.Fatalf("%d images in %s; regenerate with FTOOLS_GEN_CORPUS=1", len(images), damagedDir)
	}
	hostDir := t.TempDir()
	host := filepath.Join(hostDir, "small.txt")
	writeFile(t, host, 3000, 9)
	for _, gz := range images {
		name := strings.TrimSuffix(filepath.Base(gz), ".img.gz")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			orig := filepath.Join(root, "orig.img")
			want := gunzipTo(t, gz, orig)
			rn := &boundedRunner{t: t}
			damagedReads(rn, root, orig, want)
			// The FAT16 and FAT32 images of a damage class hold the damage
			// of its FAT12 image on 8 and 33 MiB: the writers are run on
			// the FAT12 one (TestFverifyAgainstFsck repairs them all).
			if !strings.HasPrefix(name, "class-") || len(want) <= classWriteMax {
				damagedWrites(rn, root, want, host)
			}
		})
	}
}

// damagedReads runs the read-only commands on img and checks they did not
// change it.
func damagedReads(rn *boundedRunner, root, img string, want []byte) {
	t := rn.t
	for _, argv := range [][]string{
		{"fsinfo", img},
		{"fsinfo", "--json", img},
		{"fverify", img},
		{"fverify", "--json", img},
		{"fls", "-R", "-l", "-a", "-i", img, "::/"},
	} {
		r := rn.run(argv[0], argv[1:]...)
		if strings.Contains(strings.Join(argv, " "), "--json") && r.stdout != "" && r.outBytes < 1<<20 && !json.Valid([]byte(r.stdout)) {
			t.Errorf("%s: stdout is not JSON:\n%s", strings.Join(r.argv, " "), tailOf(r.stdout))
		}
	}
	files, _ := corpusListing(rn, img)
	for _, p := range pickSpread(files, 4) {
		r := rn.run("fcat", "-i", img, "::"+p)
		if r.outBytes > int64(len(want))+1<<20 {
			t.Errorf("fcat ::%s wrote %d bytes from a %d-byte image", p, r.outBytes, len(want))
		}
	}
	// Copy the whole tree out into a folder deep inside root, then make sure
	// nothing landed anywhere else.
	out := filepath.Join(root, "a", "b", "c", "jail", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	rn.run("fcp", "-r", "--no-progress", "-i", img, "::/", out)
	ancestors := map[string]bool{".": true, "a": true, "a/b": true, "a/b/c": true, "a/b/c/jail": true, "a/b/c/jail/out": true}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		inside := ancestors[rel] || rel == "orig.img" || strings.HasPrefix(rel, "a/b/c/jail/out/")
		if !inside {
			t.Errorf("fcp -r ::/ %s created %s outside the destination", out, p)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("fcp -r created a symlink %s", p)
		}
		return nil
	})
	if got, err := os.ReadFile(img); err != nil {
		t.Fatal(err)
	} else if !bytes.Equal(got, want) {
		t.Errorf("the read-only commands changed the image")
	}
}

// damagedWrites runs each writing command on a fresh copy of the image,
// then checks what it wrote once more with fverify.
func damagedWrites(rn *boundedRunner, root string, want []byte, host string) {
	t := rn.t
	dir := filepath.Join(root, "w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "w.img")
	if err := os.WriteFile(img, want, 0o644); err != nil {
		t.Fatal(err)
	}
	files, top := corpusListing(rn, img)
	file := files[0]
	cmds := [][]string{
		{"fcp", "--no-progress", "-i", img, host, "::/NEW.TXT"},
		{"fmkdir", "-i", img, "::/newdir"},
		{"frm", "-r", "-i", img, "::" + top[len(top)-1]},
		{"fmv", "-i", img, "::" + file, "::/MOVED.TXT"},
		{"fattrib", "+r", "-i", img, "::" + file},
		{"flabel", img, "NEWLABEL"},
		{"ffallocate", "-l", "64K", "-i", img, "::/x"},
		{"fsinfo", "--recount", img},
		{"fverify", "--repair", img},
	}
	for _, argv := range cmds {
		if err := os.WriteFile(img, want, 0o644); err != nil {
			t.Fatal(err)
		}
		if rn.run(argv[0], argv[1:]...).code == 0 {
			rn.run("fverify", img)
		}
	}
}
