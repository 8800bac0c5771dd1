package tests

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO, a process substitution or a character device named as a SOURCE
// is read to its end and copied as a file, as cp and mcopy copy it; inside
// a tree copied with -r such things are still skipped, each named.
func TestFcpStreamSources(t *testing.T) {
	need(t, "bash", "fsck.fat")
	img := newImage(t, "--size", "16M")
	dir := t.TempDir()

	// A process substitution: bash passes /dev/fd/N, a pipe.
	r := run(t, "bash", "-c", `fcp -i "$1" <(printf 'from a pipe\n') ::/ps.txt`, "bash", img)
	if r.code != 0 {
		t.Fatalf("fcp <(...): exit %d\n%s", r.code, r.stderr)
	}
	if got := ok(t, "fcat", "-i", img, "::/ps.txt"); got != "from a pipe\n" {
		t.Fatalf("ps.txt holds %q", got)
	}

	// A named FIFO, larger than a chunk of the pipe, written while fcp
	// reads it.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	data := writeFile(t, filepath.Join(dir, "data"), 300000, 5)
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	ok(t, "fcp", "-i", img, fifo, "::/")
	if got := ok(t, "fcat", "-i", img, "::/fifo"); got != string(data) {
		t.Fatalf("::/fifo holds %d bytes, want the %d written into the FIFO", len(got), len(data))
	}

	// A character device: /dev/null gives an empty file.
	ok(t, "fcp", "-i", img, "/dev/null", "::/EMPTY.TXT")
	if got := ok(t, "fls", "-l", "-i", img, "::/EMPTY.TXT"); !strings.Contains(got, " 0 ") {
		t.Fatalf("::/EMPTY.TXT: %q", got)
	}

	// Inside a tree: skipped and named, the rest copied, exit 1.
	tree := filepath.Join(dir, "tree")
	mustMkdir(t, tree)
	if err := syscall.Mkfifo(filepath.Join(tree, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tree, "a.txt"), 10, 1)
	rep, r := fcpJSON(t, "-r", "-i", img, tree, "::/")
	if r.code != 1 || rep.Files != 1 || len(rep.Skipped) != 1 || !strings.HasSuffix(rep.Skipped[0].Path, "tree/pipe") {
		t.Fatalf("a FIFO in a tree: exit %d, %+v\n%s", r.code, rep, r.stderr)
	}
	if !strings.Contains(r.stderr, "tree/pipe") {
		t.Fatalf("the FIFO in the tree is not named: %s", r.stderr)
	}
	fsckClean(t, img, 0)
}
