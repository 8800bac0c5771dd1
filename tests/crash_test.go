package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// allowedAfterCrash are the only things fsck.fat -n may say about a volume
// whose writer was killed: the dirty bit, lost (unused but allocated)
// clusters, a stale free count, and FAT copies that differ while the first
// is intact (the copies are written one after the other; fsck.fat and the
// Linux driver use the first). Never a cross-link, a file longer than its
// chain, or a damaged directory. The dirty bit lives in the primary boot
// sector only (as Linux keeps it), so fsck.fat also notes that the backup
// differs in exactly that byte (0x41 on FAT32, 0x25 on FAT12/16).
var allowedAfterCrash = regexp.MustCompile(`^(fsck\.fat .*|There are differences between boot sector and its backup\.|This is mostly harmless\. Differences: \(offset:original/backup\)|  (65|37):01/00|  Not automatically fixing this\.|Dirty bit is set\. Fs was not properly unmounted and some data may be corrupt\.| Automatically removing dirty bit\.|FATs differ but appear to be intact\.|  Using first FAT\.|Reclaimed \d+ unused clusters? \(\d+ bytes\)( in \d+ chains?)?\.|Free cluster summary wrong \(\d+ vs\. really \d+\)|  Auto-correcting\.|Leaving filesystem unchanged\.|.*: \d+ files, \d+/\d+ clusters|)$`)

func checkCrashed(t *testing.T, img, what string) {
	t.Helper()
	r := run(t, "fsck.fat", "-n", img)
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		if !allowedAfterCrash.MatchString(line) {
			t.Fatalf("%s: fsck.fat -n says %q:\n%s%s", what, line, r.stdout, r.stderr)
		}
	}
}

// killAfter starts a command, SIGKILLs it after d (if still running) and
// waits for it.
func killAfter(t *testing.T, d time.Duration, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	cmd.Process.Kill()
	cmd.Wait()
}

// Killing fcp -r, ffallocate or fsinfo --recount at many points leaves the
// old files intact and fsck.fat with nothing worse than lost clusters, a
// stale free count or the dirty bit.
func TestCrashConsistency(t *testing.T) {
	need(t, "fsck.fat", "cp", "diff")
	dir := t.TempDir()
	template := filepath.Join(dir, "template.img")
	ok(t, "fmkfs", "--size", "300M", "--fat", "32", template)
	old := filepath.Join(dir, "old")
	bigTree(t, old, 20, 100_000)
	ok(t, "fcp", "-r", "-i", template, old, "::/old")
	src := filepath.Join(dir, "src")
	bigTree(t, src, 150, 1<<20)

	img := filepath.Join(dir, "disk.img")
	fresh := func() {
		os.Remove(img)
		ok(t, "cp", "--sparse=always", template, img)
	}
	oldIntact := func(what string) {
		out := filepath.Join(dir, "old-out")
		os.RemoveAll(out)
		ok(t, "fcp", "-r", "-i", img, "::/old", out)
		if r := run(t, "diff", "-r", old, out); r.code != 0 {
			t.Fatalf("%s: the files that were there before differ:\n%s", what, r.stdout)
		}
	}
	delays := []time.Duration{5, 20, 50, 90, 140, 200, 280, 380, 500, 700}
	for i, d := range delays {
		d *= time.Millisecond
		sync := []string{"close", "file"}[i%2]
		fresh()
		killAfter(t, d, "fcp", "-r", "--sync", sync, "-i", img, src, "::/new")
		what := "fcp -r --sync " + sync + " killed after " + d.String()
		checkCrashed(t, img, what)
		oldIntact(what)
	}
	for _, d := range []time.Duration{2, 10, 40} {
		d *= time.Millisecond
		fresh()
		killAfter(t, d, "ffallocate", "-l", "200M", "-i", img, "::/pre.bin")
		checkCrashed(t, img, "ffallocate killed after "+d.String())
		oldIntact("ffallocate")
		fresh()
		ok(t, "fsinfo", "--free-count", "7", img)
		killAfter(t, d, "fsinfo", "--recount", img)
		r := run(t, "fsck.fat", "-n", img)
		for _, line := range strings.Split(r.stdout, "\n") {
			if !allowedAfterCrash.MatchString(line) {
				t.Fatalf("fsinfo --recount killed after %s: fsck.fat -n says %q", d, line)
			}
		}
		oldIntact("fsinfo --recount")
	}
}
