package tests

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runEnv runs a command with env added to the test's environment.
func runEnv(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// fcp -r opens and reads host files on a few workers when copying in, and
// creates and writes them on a few workers when copying out (the tree
// holds more items than a batch, so that the plan lets go of items
// handed to the workers). Neither
// changes the outcome: the image is byte for byte the one the copy makes
// one file at a time (FTOOLS_CP_WORKERS=1), the tree copied out holds the
// same bytes and times, and a file that fails in the middle (a read error
// in, a name the host refuses out) is named as it was, with the rest
// copied and the same exit status.
func TestFcpWorkersSameOutcome(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for d := 0; d < 60; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("d%02d", d))
		mustMkdir(t, sub)
		for f := 0; f < 80; f++ {
			k := d*80 + f
			writeFile(t, filepath.Join(sub, fmt.Sprintf("file %04d.bin", k)), (k*7919)%9000, byte(k))
		}
	}
	// Files about the size the workers read whole, and larger ones,
	// which stream.
	for i, n := range []int{1 << 20, 1<<20 + 1, 3<<20 + 5, 0} {
		writeFile(t, filepath.Join(tree, "d15", fmt.Sprintf("big %d.bin", i)), n, byte(i))
	}
	// A file that cannot be read: its size is 0 and reading it fails
	// (EIO), as a failing disk's file would.
	if err := os.Symlink("/proc/self/mem", filepath.Join(tree, "d07", "unreadable.bin")); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.img")
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	if r := runEnv(t, env, "fmkfs", "-F", "32", "--size", "256M", base); r.code != 0 {
		t.Fatalf("fmkfs: %s", r.stderr)
	}
	orig, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	imgs := map[string]string{}
	ins := map[string]result{}
	for _, mode := range []string{"1", ""} {
		img := filepath.Join(dir, "workers"+mode+".img")
		if err := os.WriteFile(img, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		imgs[mode] = img
		ins[mode] = runEnv(t, append(env, "FTOOLS_CP_WORKERS="+mode), "fcp", "-r", "-i", img, tree, "::/")
	}
	one, many := ins["1"], ins[""]
	if one.code != 1 || many.code != 1 || one.stderr != many.stderr || !strings.Contains(many.stderr, "unreadable.bin") {
		t.Fatalf("copy in: one worker exit %d:\n%s\nworkers exit %d:\n%s", one.code, one.stderr, many.code, many.stderr)
	}
	a, _ := os.ReadFile(imgs["1"])
	b, _ := os.ReadFile(imgs[""])
	if !bytes.Equal(a, b) {
		t.Fatalf("the image copied in by the workers differs from the one copied one file at a time (first at byte %d)", firstDiff(a, b))
	}
	fsckClean(t, imgs[""], 0)

	// Out: a name the host refuses (300 bytes of UTF-8, 100 UTF-16 units
	// on the volume) in the middle of the tree.
	long := strings.Repeat("名", 100) + ".txt"
	cmd := exec.Command("fcp", "-i", imgs[""], "-", "::/tree/d12/"+long)
	cmd.Stdin = strings.NewReader("a long name\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fcp - ::/tree/d12/%s: %v\n%s", long, err, out)
	}
	outs := map[string]result{}
	for _, mode := range []string{"1", ""} {
		// One destination for both, so that the messages name the same
		// paths: moved aside after each copy.
		dst := filepath.Join(dir, "out")
		mustMkdir(t, dst)
		outs[mode] = runEnv(t, []string{"FTOOLS_CP_WORKERS=" + mode}, "fcp", "-r", "-i", imgs[""], "::/tree", dst)
		if err := os.Rename(dst, filepath.Join(dir, "out"+mode+"-done")); err != nil {
			t.Fatal(err)
		}
	}
	one, many = outs["1"], outs[""]
	if one.code != 1 || many.code != 1 || one.stderr != many.stderr || !strings.Contains(many.stderr, long) {
		t.Fatalf("copy out: one worker exit %d:\n%s\nworkers exit %d:\n%s", one.code, one.stderr, many.code, many.stderr)
	}
	got, want := treeOf(t, filepath.Join(dir, "out-done", "tree")), treeOf(t, filepath.Join(dir, "out1-done", "tree"))
	if len(got) != len(want) || len(want) < 60*80+4 {
		t.Fatalf("copied out by the workers: %d entries; one file at a time: %d", len(got), len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: workers %q, one at a time %q", p, got[p], w)
		}
	}
}

// treeOf describes every file and folder below root: its contents (for a
// file) and modification time.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.ModTime().UTC().String()
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %d bytes %x", len(b), b[:min(len(b), 64)])
			if len(b) > 64 {
				desc += fmt.Sprintf("..%x", b[len(b)-64:])
			}
		}
		m[strings.TrimPrefix(p, root)] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
