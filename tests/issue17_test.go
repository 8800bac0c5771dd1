package tests

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Differential findings against mtools and fsck.fat (issue 17): each test
// fails on the code before the fix.

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

// On FAT12/16, bytes 20-21 of an entry are OS/2's extended-attribute
// handle, not the high word of the first cluster: fsck.fat, mtools and Linux
// ignore them there. ftools reads the file, fverify finds nothing wrong, and
// when ftools rewrites the entry it writes them as zero, as Linux does.
func TestFAT1216IgnoresHighClusterWord(t *testing.T) {
	need(t, "mtype")
	for _, bits := range []string{"12", "16"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, data := verbsImage(t, bits)
			var off int
			patchImage(t, img, func(v *gvol) {
				off = v.find(0, "A       TXT")
				v.put16(off+20, 0x3412)
			})
			fsckClean(t, img, 0)
			if got := ok(t, "mtype", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatal("mtype does not read the oracle's own file")
			}
			if got := ok(t, "fcat", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatalf("fcat read %d bytes that differ from the %d written", len(got), len(data))
			}
			if c := firstCluster(t, img, "A.TXT"); c > 0xFFFF {
				t.Fatalf("first cluster %#x takes bytes 20-21 as its high word", c)
			}
			if out := ok(t, "fverify", img); !strings.Contains(out, "clean") {
				t.Fatalf("fverify:\n%s", out)
			}
			// Rewriting the entry writes zero there, as Linux does.
			ok(t, "fattrib", "-i", img, "+r", "::/A.TXT")
			if hi := binary.LittleEndian.Uint16(readImage(t, img)[off+20:]); hi != 0 {
				t.Fatalf("bytes 20-21 after fattrib: %#04x, want 0", hi)
			}
			fsckClean(t, img, 0)
		})
	}
}

// Overwriting a file whose chain is broken is refused before anything is
// allocated or written (it used to fail in Writer.Close, leaking the new
// file's clusters), and the refusal points at fverify.
func TestOverwriteBrokenFileLeaksNothing(t *testing.T) {
	img, _ := verbsImage(t, "16")
	patchImage(t, img, func(v *gvol) {
		c := v.cluster(v.find(0, "A       TXT"))
		v.set(c+1, 0) // the chain now runs into a free cluster
	})
	before := imageSum(t, img)
	src := filepath.Join(t.TempDir(), "new")
	writeFile(t, src, 3000, 9)
	msg := fails(t, "fcp", src, img+"::/A.TXT")
	if !strings.Contains(msg, "fverify") {
		t.Fatalf("refusal does not point at fverify: %q", msg)
	}
	if imageSum(t, img) != before {
		t.Fatal("the refused overwrite changed the image (leaked clusters)")
	}
}

// A cluster wrongly marked free inside another file's chain is never handed
// out: a new cross-link would make fsck.fat truncate both files.
func TestFreeClusterInsideChainNotReused(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "fsck.fat")
	dir := t.TempDir()
	img := filepath.Join(dir, "x.img")
	ok(t, "mkfs.fat", "-F", "16", "-s", "1", "-C", img, "20480")
	src := filepath.Join(dir, "a.bin")
	writeFile(t, src, 1500, 4) // three clusters, 2-4
	ok(t, "mcopy", "-i", img, src, "::/A.BIN")
	patchImage(t, img, func(v *gvol) { v.set(3, 0) })
	ok(t, "fcp", src, img+"::/NEW.BIN")
	ok(t, "fmkdir", "-i", img, "::/D")
	for _, p := range []string{"NEW.BIN", "D"} {
		if c := firstCluster(t, img, p); c == 3 {
			t.Fatalf("%s was given cluster 3, which A.BIN's chain runs through", p)
		}
	}
	r := run(t, "fsck.fat", "-n", img)
	if strings.Contains(r.stdout, "share clusters") || !strings.Contains(r.stdout, "Contains a free cluster (3)") {
		t.Fatalf("fsck.fat -n:\n%s", r.stdout)
	}
}

// A directory whose own chain is broken is not written to: the refusal names
// fverify and the image stays as it was.
func TestBrokenDirectoryChainRefused(t *testing.T) {
	img, _ := verbsImage(t, "16")
	for i := 0; i < 20; i++ { // DIR grows past one 512-byte cluster
		ok(t, "fmkdir", "-i", img, fmt.Sprintf("::/DIR/D%02d", i))
	}
	patchImage(t, img, func(v *gvol) {
		ch := v.chain(v.cluster(v.find(0, "DIR        ")))
		if len(ch) < 2 {
			t.Fatalf("DIR has %d clusters", len(ch))
		}
		v.set(ch[1], 0)
	})
	before := imageSum(t, img)
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, 100, 1)
	if msg := fails(t, "fcp", src, img+"::/DIR/NEW.TXT"); !strings.Contains(msg, "fverify") {
		t.Fatalf("refusal does not point at fverify: %q", msg)
	}
	if imageSum(t, img) != before {
		t.Fatal("the refused copy changed the image")
	}
}

// Long-name slots whose short entry was deleted are orphans; a new entry
// placed right after them must not take them for its own long name.
func TestNewEntryAfterOrphanLFN(t *testing.T) {
	need(t, "mdir", "fsck.fat")
	img, _ := verbsImage(t, "16")
	patchImage(t, img, func(v *gvol) {
		// The short entry and the chain go, the LFN slots stay.
		off := v.find(0, "LONGFI~1TXT")
		for _, c := range v.chain(v.cluster(off)) {
			v.set(c, 0)
		}
		v.b[off] = 0xE5
	})
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, 100, 1)
	ok(t, "fcp", src, img+"::/LONGFI~1.TXT")
	got := lines(ok(t, "fls", "-i", img))
	for _, n := range got {
		if strings.HasPrefix(n, "Long file name") {
			t.Fatalf("the new entry inherited the orphaned long name: %q", got)
		}
	}
	if want := mdirNames(t, img, "::/"); !strings.Contains(strings.Join(want, "|"), "LONGFI~1.TXT") {
		t.Fatalf("mdir: %q", want)
	}
	fsckClean(t, img, 0)
}

// ffallocate of exactly the free space, when the directory must grow to hold
// the new entry, fails before writing anything: the image stays byte for
// byte as it was (the man page's promise), old data in the free space too.
func TestFfallocateExactSpaceWithDirectoryGrowth(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mdel", "mmd")
	for _, tc := range []struct{ bits, blocks string }{{"16", "8000"}, {"32", "40000"}} {
		t.Run("FAT"+tc.bits, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "x.img")
			ok(t, "mkfs.fat", "-F", tc.bits, "-s", "1", "-C", img, tc.blocks)
			ok(t, "mmd", "-i", img, "::/DIR")
			empty := filepath.Join(dir, "empty")
			writeFile(t, empty, 0, 0)
			for i := 0; i < 14; i++ { // with "." and "..", one full cluster
				ok(t, "mcopy", "-i", img, empty, fmt.Sprintf("::/DIR/F%02d.TXT", i))
			}
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			free := int64(fi.FreeClusters) * fi.ClusterSize
			junk := filepath.Join(dir, "junk")
			writeFile(t, junk, int(free), 5)
			ok(t, "mcopy", "-i", img, junk, "::/JUNK")
			ok(t, "mdel", "-i", img, "::/JUNK")
			before := imageSum(t, img)
			msg := fails(t, "ffallocate", "-l", fmt.Sprint(free), "-i", img, "::/DIR/NEW.BIN")
			if !strings.Contains(msg, "no space left on volume") {
				t.Fatalf("ffallocate: %q", msg)
			}
			if imageSum(t, img) != before {
				t.Fatal("the failed ffallocate changed the image")
			}
			// One cluster less fits, entry and all.
			ok(t, "ffallocate", "-l", fmt.Sprint(free-fi.ClusterSize), "-i", img, "::/DIR/NEW.BIN")
			fsckClean(t, img, 0)
		})
	}
}

// Short names are in code page 850 unless --codepage says otherwise, as
// mtools and mkfs.fat have them: mtools' ØRE.TXT reads as ØRE.TXT (not
// ¥RE.TXT, its code page 437 reading), and ftools' ØRE.TXT reads back in
// mtools; mtools set to another code page agrees with --codepage.
func TestCodePage(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mdir", "mlabel")
	dir := t.TempDir()
	img := filepath.Join(dir, "x.img")
	ok(t, "mkfs.fat", "-F", "16", "-C", img, "20480")
	host := filepath.Join(dir, "ØRE.TXT")
	want := writeFile(t, host, 700, 2)
	ok(t, "mcopy", "-i", img, host, "::/")
	// mtools stored it as a bare short name, 0x9D in code page 850.
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dRE     TXT") })
	if got := lines(ok(t, "fls", "-i", img)); strings.Join(got, "|") != "ØRE.TXT" {
		t.Fatalf("fls: %q, want ØRE.TXT", got)
	}
	if got := ok(t, "fcat", "-i", img, "::/ØRE.TXT"); got != string(want) {
		t.Fatal("fcat ::/ØRE.TXT read the wrong bytes")
	}
	if got := lines(ok(t, "fls", "--codepage", "437", "-i", img)); strings.Join(got, "|") != "¥RE.TXT" {
		t.Fatalf("fls --codepage 437: %q, want ¥RE.TXT", got)
	}
	// The other way: ftools writes Ø as mtools reads it.
	host2 := filepath.Join(dir, "ØST.TXT")
	writeFile(t, host2, 10, 3)
	ok(t, "fcp", host2, img+"::/")
	if out := ok(t, "mdir", "-i", img, "::/"); !strings.Contains(out, "ØST") {
		t.Fatalf("mdir does not show ØST:\n%s", out)
	}
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dST~1   TXT") }) // long name and all
	back := filepath.Join(dir, "back")
	ok(t, "mcopy", "-i", img, "::/ØST.TXT", back)
	fsckClean(t, img, 0)

	// mtools in code page 437 and --codepage 437 agree; the label too.
	rc := filepath.Join(dir, "mtoolsrc")
	if err := os.WriteFile(rc, []byte("default_codepage=437\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yen := filepath.Join(dir, "¥EN.TXT")
	writeFile(t, yen, 10, 4)
	mt := exec.Command("mcopy", "-i", img, yen, "::/")
	mt.Env = append(os.Environ(), "MTOOLSRC="+rc)
	if out, err := mt.CombinedOutput(); err != nil {
		t.Fatalf("mcopy (code page 437): %v\n%s", err, out)
	}
	patchImage(t, img, func(v *gvol) { v.find(0, "\x9dEN     TXT") })
	if got := ok(t, "fls", "--codepage", "437", "-i", img); !strings.Contains(got, "¥EN.TXT") {
		t.Fatalf("fls --codepage 437:\n%s", got)
	}
	ok(t, "mlabel", "-i", img, "::ÆRØ")
	if got := ok(t, "flabel", img); !strings.Contains(got, "ÆRØ") {
		t.Fatalf("flabel: %q, want ÆRØ", got)
	}
	if msg := fails(t, "fls", "--codepage", "737", "-i", img); !strings.Contains(msg, "437, 850") {
		t.Fatalf("--codepage 737: %q", msg)
	}
	if msg := fails(t, "fmkfs", "--codepage", "999", "--size", "2M", filepath.Join(dir, "new.img")); !strings.Contains(msg, "code page 999") {
		t.Fatalf("fmkfs --codepage 999: %q", msg)
	}
}

// One image named two ways in one command is opened once: it neither fails
// on its own lock nor, with --wait, waits for itself. Two volumes in one
// file share the file's lock.
func TestOneImageNamedTwoWays(t *testing.T) {
	dir, img, src, want := smallImage(t, 3000)
	ok(t, "fcp", src, img+"::/A.BIN")
	link := filepath.Join(dir, "link.img")
	if err := os.Symlink("a.img", link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for i, other := range []string{"./a.img", link, "a.img@@0", img + "@@0x0"} {
		for _, wait := range []bool{false, true} {
			dst := fmt.Sprintf("::/C%d%v.BIN", i, wait)
			args := []string{img + "::/A.BIN", other + dst}
			if wait {
				args = append([]string{"--wait"}, args...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := exec.CommandContext(ctx, "fcp", args...).CombinedOutput()
			late := ctx.Err() != nil
			cancel()
			if late {
				t.Fatalf("fcp %q: still waiting after 30 s (for its own lock)", args)
			}
			if err != nil {
				t.Fatalf("fcp %q: %v\n%s", args, err, out)
			}
			if got := ok(t, "fcat", img+dst); got != string(want) {
				t.Fatalf("%s differs", dst)
			}
		}
	}
	// fmv moves within "one" image named two ways.
	ok(t, "fmv", img+"::/C0false.BIN", "./a.img::/MOVED.BIN")
	if got := ok(t, "fcat", "./a.img@@0::/MOVED.BIN"); got != string(want) {
		t.Fatal("MOVED.BIN differs")
	}
	fsckClean(t, img, 0)

	// Two volumes, at 0 and at 4 MiB, of one file.
	two := filepath.Join(dir, "two.img")
	ok(t, "fmkfs", "--size", "4M", two)
	ok(t, "fmkfs", "--size", "8M", two+"@@4M")
	ok(t, "fcp", src, two+"::/A.BIN")
	ok(t, "fcp", two+"::/A.BIN", two+"@@4M::/B.BIN")
	if got := ok(t, "fcat", two+"@@4M::/B.BIN"); got != string(want) {
		t.Fatal("copy between two volumes of one file differs")
	}
}

// With --wait, SIGINT and SIGTERM end the wait for another process's lock
// with exit status 130 and 143 and a message, changing nothing.
func TestSignalEndsLockWait(t *testing.T) {
	_, img, src, _ := smallImage(t, 100)
	holder, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	before := imageSum(t, img)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
		args []string
	}{
		{syscall.SIGINT, 130, "SIGINT", []string{"fls", "--wait", "-i", img}},
		{syscall.SIGTERM, 143, "SIGTERM", []string{"fcp", "--wait", src, img + "::/X.BIN"}},
		{syscall.SIGINT, 130, "SIGINT", []string{"fcp", "--wait", src, img + "::/X.BIN"}},
		{syscall.SIGTERM, 143, "SIGTERM", []string{"frm", "--wait", "-i", img, "::/X.BIN", "::/Y.BIN"}},
	} {
		t.Run(strings.Join(tc.args[:2], " ")+" "+tc.name, func(t *testing.T) {
			cmd := exec.Command(tc.args[0], tc.args[1:]...)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the command says it waits: it has caught the
			// signals by then.
			lines := make(chan string)
			var msg strings.Builder
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			timeout := time.After(20 * time.Second)
			for waiting := false; !waiting; {
				select {
				case l, more := <-lines:
					if !more {
						t.Fatalf("%s ended before waiting:\n%s", tc.args[0], msg.String())
					}
					msg.WriteString(l + "\n")
					waiting = strings.Contains(l, "waiting")
				case <-timeout:
					cmd.Process.Kill()
					t.Fatalf("%s did not say it waits for the lock:\n%s", tc.args[0], msg.String())
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			for ended := false; !ended; {
				select {
				case l, more := <-lines:
					msg.WriteString(l + "\n")
					ended = !more
				case <-timeout:
					cmd.Process.Kill()
					t.Fatalf("%s still waiting 20 s after %s", tc.args[0], tc.name)
				}
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit status %d, want %d\n%s", code, tc.code, msg.String())
			}
			if !strings.Contains(msg.String(), "interrupted by "+tc.name) {
				t.Fatalf("message:\n%s", msg.String())
			}
		})
	}
	if imageSum(t, img) != before {
		t.Fatal("an interrupted wait changed the image")
	}
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
	// Into itself is still refused, and a trailing slash means into.
	if msg := fails(t, "fmv", "-i", img, "::/Docs", "::/Docs/"); !strings.Contains(msg, "into itself") {
		t.Fatalf("fmv ::/Docs ::/Docs/: %q", msg)
	}
}

// A FAT volume without the 55 aa boot signature is used, as fsck.fat and
// mtools use it, with a warning from fverify.
func TestMissingBootSignature(t *testing.T) {
	need(t, "mdir", "mcopy")
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img, data := verbsImage(t, bits)
			patchImage(t, img, func(v *gvol) { v.put16(510, 0) })
			ok(t, "mdir", "-i", img, "::/")
			if got := ok(t, "fcat", "-i", img, "::/A.TXT"); got != string(data) {
				t.Fatal("fcat read the wrong bytes")
			}
			out := ok(t, "fverify", img)
			if !strings.Contains(out, "signature") {
				t.Fatalf("fverify does not warn of the missing signature:\n%s", out)
			}
			ok(t, "fcp", "-i", img, img+"::/A.TXT", "::/B.TXT")
			if got := ok(t, "mtype", "-i", img, "::/B.TXT"); got != string(data) {
				t.Fatal("mtype reads a different copy")
			}
		})
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
