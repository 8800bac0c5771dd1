package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	fio "github.com/ftools/ftools/pkg/io"
)

// Host files pass the page cache without staying there: a copy into a
// volume leaves its source as uncached as it found it, a copy out of one
// (fcp, fcat into a file) leaves little of its destination cached, and
// fverify --compare little of the original; --cache keeps today's
// behaviour, fverify's too. Residency is the file's own (mincore), not
// the machine's Cached figure, which other work on the machine moves.
func TestHostFilesLeavePageCache(t *testing.T) {
	need(t, "mkfs.fat")
	const size, most = 256 << 20, 64 << 20
	dir := t.TempDir()
	var sfs unix.Statfs_t
	if err := unix.Statfs(dir, &sfs); err != nil {
		t.Fatal(err)
	}
	if sfs.Type == unix.TMPFS_MAGIC {
		t.Fatalf("%s is tmpfs, where files are the page cache; this test wants a disk file system (set TMPDIR to one)", dir)
	}
	src, img := filepath.Join(dir, "big.bin"), filepath.Join(dir, "fat.img")
	want := writeFile(t, src, size, 7)
	ok(t, "mkfs.fat", "-C", "-F", "32", img, "1048576")
	drop := func(p string) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
	}
	cached := func(p string) int64 {
		n, err := fio.CachedBytes(p)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(what, p string, keep bool) {
		t.Helper()
		n := cached(p)
		switch {
		case !keep && n > most:
			t.Errorf("%s: %d MiB of %s stay in the page cache, want at most %d MiB", what, n>>20, filepath.Base(p), most>>20)
		case keep && n < size*3/4:
			t.Errorf("%s: %d MiB of %s in the page cache, want it kept (%d MiB)", what, n>>20, filepath.Base(p), size>>20)
		}
	}
	fcat := func(out string, args ...string) {
		t.Helper()
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command("fcat", args...)
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("fcat %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "page cache: ") {
			t.Errorf("fcat --stats names no page-cache mode:\n%s", stderr.String())
		}
	}
	same := func(p string) {
		t.Helper()
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: other bytes than the source's", p)
		}
		drop(p)
	}
	for _, keep := range []bool{false, true} {
		var flags []string
		name := "BIG"
		if keep {
			flags, name = []string{"--cache"}, "KEPT"
		}
		drop(src)
		r := run(t, "fcp", append(flags, "--stats", "-i", img, src, "::/"+name)...)
		if r.code != 0 || !strings.Contains(r.stderr, "page cache: ") {
			t.Fatalf("fcp in: exit %d, --stats names no page-cache mode:\n%s", r.code, r.stderr)
		}
		check("fcp in", src, keep)

		out := filepath.Join(dir, "out-"+name)
		ok(t, "fcp", append(flags, "-i", img, "::/"+name, out)...)
		check("fcp out", out, keep)
		same(out)

		cat := filepath.Join(dir, "cat-"+name)
		fcat(cat, append(flags, "--stats", "-i", img, "::/"+name)...)
		check("fcat > file", cat, keep)
		same(cat)
		os.Remove(out)
		os.Remove(cat)
	}
	drop(src)
	ok(t, "fverify", "--compare", src+"=::/BIG", img)
	check("fverify --compare", src, false)
	drop(src)
	ok(t, "fverify", "--cache", "--compare", src+"=::/BIG", img)
	check("fverify --cache --compare", src, true)
}
