package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigTree writes n files of size bytes in a few folders.
func bigTree(t *testing.T, root string, n, size int) {
	t.Helper()
	for i := 0; i < n; i++ {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i%8))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, fmt.Sprintf("file-%04d.bin", i)), size, byte(i))
	}
}

// A second writer fails at once naming the lock holder's PID, or waits for
// it with --wait; two fcp processes into one image both land, fsck-clean.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "fmkfs", "--size", "200M", img)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	bigTree(t, a, 40, 1<<20)
	bigTree(t, b, 40, 1<<20)

	// Hold the lock with a slow writer (--sync always makes it slow).
	slow := exec.Command("fcp", "-r", "--sync", "always", "-i", img, a, "::/a")
	var slowErr bytes.Buffer
	slow.Stderr = &slowErr
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	r := run(t, "fcp", "-r", "-i", img, b, "::/b")
	if r.code == 0 {
		t.Log("the first fcp finished before the second started; lock refusal not observed")
	} else if !strings.Contains(r.stderr, fmt.Sprintf("process %d holds its lock", slow.Process.Pid)) || !strings.Contains(r.stderr, "--wait") {
		t.Fatalf("second writer: %q, want the holder's PID %d and --wait", r.stderr, slow.Process.Pid)
	}
	// With --wait it goes through once the first is done.
	if r.code != 0 {
		ok(t, "fcp", "-r", "--wait", "-i", img, b, "::/b")
	}
	if err := slow.Wait(); err != nil {
		t.Fatalf("first fcp: %v\n%s", err, slowErr.String())
	}
	fsckClean(t, img, 0)
	for _, tree := range []string{"a", "b"} {
		out := filepath.Join(dir, "out-"+tree)
		ok(t, "fcp", "-r", "-i", img, "::/"+tree, out)
		ok(t, "diff", "-r", filepath.Join(dir, tree), out)
	}
	// Readers share: two fsinfo at once are fine (the lock is shared).
	ok(t, "fsinfo", img)
}

// SIGINT and SIGTERM stop a copy at a file boundary, commit what was
// copied, and exit 130 / 143 with a message; the volume is fsck-clean.
func TestInterrupt(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			ok(t, "fmkfs", "--size", "300M", img)
			src := filepath.Join(dir, "src")
			bigTree(t, src, 200, 1<<20)
			cmd := exec.Command("fcp", "-r", "--sync", "file", "-i", img, src, "::/")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code == 0 {
				t.Skip("the copy finished before the signal arrived")
			}
			if code != tc.code || !strings.Contains(stderr.String(), "interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig]) {
				t.Fatalf("exit %d, stderr %q; want %d and a message", code, stderr.String(), tc.code)
			}
			fsckClean(t, img, 0)
			// Every file that made it is whole.
			out := filepath.Join(dir, "out")
			ok(t, "fcp", "-r", "-i", img, "::/src", out)
			n := 0
			filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
				if err != nil || fi.IsDir() {
					return err
				}
				n++
				rel, _ := filepath.Rel(out, p)
				want, _ := os.ReadFile(filepath.Join(src, rel))
				got, _ := os.ReadFile(p)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: copied file differs from its source", rel)
				}
				return nil
			})
			if n == 0 || n == 200 {
				t.Logf("%d of 200 files were copied before the signal", n)
			}
		})
	}
}

// Images that cannot be used are clear errors, and the image stays as it
// was.
func TestBadImageFiles(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "fmkfs", "--size", "32M", img)
	src := filepath.Join(dir, "f")
	writeFile(t, src, 1000, 1)

	if msg := fails(t, "fsinfo", "/dev/zero"); !strings.Contains(msg, "not a regular file or block device") {
		t.Fatalf("/dev/zero: %q", msg)
	}
	if msg := fails(t, "fcp", "-i", dir, src, "::/"); !strings.Contains(msg, "not a regular file or block device") {
		t.Fatalf("a directory as the image: %q", msg)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg := fails(t, "fsinfo", fifo); !strings.Contains(msg, "not a regular file or block device") {
		t.Fatalf("a FIFO as the image: %q", msg)
	}
	before := imageSum(t, img)
	if msg := fails(t, "fcp", "-i", img+"@@64M", src, "::/"); !strings.Contains(msg, "offset") && !strings.Contains(msg, "past") {
		t.Fatalf("offset past the end: %q", msg)
	}
	if msg := fails(t, "fsinfo", filepath.Join(dir, "missing.img")); !strings.Contains(msg, "no such file") {
		t.Fatalf("missing image: %q", msg)
	}
	if imageSum(t, img) != before {
		t.Fatal("a refused command changed the image")
	}
}

// A host file system that fills up under the image is an error, and the
// volume's metadata is left as it was (fsck-clean, no dirty bit).
func TestHostFull(t *testing.T) {
	need(t, "mount", "umount")
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	if r := run(t, "mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt); r.code != 0 {
		t.Fatalf("mount tmpfs (the tests run as root): %s", r.stderr)
	}
	defer run(t, "umount", mnt)
	img := filepath.Join(mnt, "disk.img")
	ok(t, "fmkfs", "--size", "64M", img)
	var before fsinfoJSON
	jsonOut(t, &before, "fsinfo", "--json", img)
	src := filepath.Join(dir, "big")
	writeFile(t, src, 40<<20, 9)
	msg := fails(t, "fcp", "-i", img, src, "::/")
	if !strings.Contains(msg, "no space left on device") {
		t.Fatalf("host full: %q", msg)
	}
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	if fi.Dirty || fi.FreeClusters != before.FreeClusters {
		t.Fatalf("after the failed copy: dirty %v, %d clusters free, %d before", fi.Dirty, fi.FreeClusters, before.FreeClusters)
	}
	fsckClean(t, img, 0)

	// The same file system read-only: writing is refused with the
	// system's word for it, reading still works.
	ok(t, "mount", "-o", "remount,ro", mnt)
	before2 := imageSum(t, img)
	if msg := fails(t, "fcp", "-i", img, src, "::/"); !strings.Contains(msg, "read-only file system") {
		t.Fatalf("read-only image: %q", msg)
	}
	ok(t, "fsinfo", img)
	if imageSum(t, img) != before2 {
		t.Fatal("the read-only image changed")
	}
}

// Two names in an image that differ only by case (FAT forbids it, a
// hand-made image can hold it) are copied out once, with a warning for the
// other, so that a case-insensitive host never sees one overwrite the other.
func TestCopyOutCaseCollision(t *testing.T) {
	need(t, "mkfs.fat")
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "mkfs.fat", "-C", "-F", "16", img, "20000")
	writeRootEntries(t, img, []rawName{{"Case.txt", "CASE1   TXT"}, {"case.TXT", "CASE2   TXT"}})
	out := filepath.Join(dir, "out")
	r := run(t, "fcp", "-r", "-i", img, "::/", out)
	if !strings.Contains(r.stderr, "the same as \"Case.txt\" but for case") {
		t.Fatalf("no warning for the case twin: exit %d\n%s", r.code, r.stderr)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 1 || ents[0].Name() != "Case.txt" {
		t.Fatalf("copied out %v, want only Case.txt", ents)
	}
}

// Copying out never writes through a symbolic link inside the destination
// (to a folder or a file outside it); DEST itself may be a link, as with cp.
func TestCopyOutSymlinks(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "fmkfs", "--size", "32M", img)
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	writeFile(t, filepath.Join(src, "sub", "f.txt"), 100, 1)
	writeFile(t, filepath.Join(src, "g.txt"), 100, 2)
	ok(t, "fcp", "-r", "-i", img, src+"/.", "::/")

	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	os.Symlink(outside, filepath.Join(out, "sub"))
	os.Symlink(filepath.Join(outside, "g.txt"), filepath.Join(out, "g.txt"))
	r := run(t, "fcp", "-r", "-i", img, "::/.", out)
	if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Fatalf("fcp through links: exit %d, stderr %q", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("fcp wrote %v outside the destination", ents)
	}
	// DEST given as a link to a folder is followed, as cp does.
	link := filepath.Join(dir, "link")
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	os.Symlink(real, link)
	ok(t, "fcp", "-i", img, "::/g.txt", link)
	if _, err := os.Stat(filepath.Join(real, "g.txt")); err != nil {
		t.Fatalf("DEST as a link: %v", err)
	}
}

// A sparse 2 TiB FAT32 with one folder of 60,000 entries: fmkfs, fcp,
// fsinfo --recount and fverify work on it (the bench script reports their
// time and peak memory).
func TestLargeVolume(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "big.img")
	ok(t, "fmkfs", "--size", "2T", img)
	src := filepath.Join(dir, "names")
	os.Mkdir(src, 0o755)
	const n = 20000 // 24-character names: 2 long-name slots + 1 = 60,000 entries
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("a long name %08d.txt", i)), []byte{'x'}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok(t, "fcp", "-r", "-i", img, src, "::/big")
	ok(t, "fsinfo", "--recount", img)
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	if fi.FATType != "FAT32" || fi.ClusterSize != 32<<10 || len(fi.Warnings) != 0 {
		t.Fatalf("2 TiB volume: %s, %d-byte clusters, warnings %q", fi.FATType, fi.ClusterSize, fi.Warnings)
	}
	if r := run(t, "fverify", img); r.code != 0 {
		t.Fatalf("fverify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var listing struct{ Entries []struct{ Name string } }
	jsonOut(t, &listing, "fls", "--json", "-i", img, "::/big")
	if len(listing.Entries) != n {
		t.Fatalf("fls lists %d names in ::/big, want %d", len(listing.Entries), n)
	}
}

// The progress bar appears on a terminal (a pseudo-terminal from script(1))
// for a large copy, and never when stderr is not a terminal.
func TestProgressBar(t *testing.T) {
	need(t, "script")
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "fmkfs", "--size", "100M", img)
	src := filepath.Join(dir, "big.bin")
	writeFile(t, src, 20<<20, 4)
	out, err := exec.Command("script", "-qec", fmt.Sprintf("fcp -i %s %s ::/a.bin", img, src), "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("fcp under script: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "copying") || !strings.Contains(string(out), "MiB") {
		t.Fatalf("no progress bar on a terminal:\n%q", out)
	}
	r := run(t, "fcp", "-i", img, src, "::/b.bin")
	if r.stderr != "" {
		t.Fatalf("output on a non-terminal stderr: %q", r.stderr)
	}
	out, _ = exec.Command("script", "-qec", fmt.Sprintf("fcp --no-progress -i %s %s ::/c.bin", img, src), "/dev/null").CombinedOutput()
	if strings.Contains(string(out), "copying") {
		t.Fatalf("--no-progress still drew a bar:\n%q", out)
	}
}
