package tests

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// maxRSS is the peak resident memory every command but fverify keeps to,
// whatever the volume's size, and maxVerifyRSS fverify's (issue 15;
// fsck.fat -n needs some 770 MiB on the 2 TiB volume).
const (
	maxRSS       = 64 << 20
	maxVerifyRSS = 128 << 20
)

// peakRSS runs a command and returns its result and its peak resident
// memory in bytes: getrusage's ru_maxrss of the process, as os/exec's
// ProcessState reports it (Linux gives KiB). A child that os/exec starts
// directly is made with vfork and inherits this test process's memory in
// that figure, so the command runs under a small intermediary (this test
// binary re-executed, see rssRun) that reports its own child's.
func peakRSS(t *testing.T, name string, args ...string) (result, int64) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(os.Args[0], append([]string{rssRunArg, report, name}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	b, rerr := os.ReadFile(report)
	kib, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if rerr != nil || perr != nil {
		t.Fatalf("%s %s: no peak RSS reported (%v %v)\n%s", name, strings.Join(args, " "), rerr, perr, errb.String())
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, kib << 10
}

// rssRunArg makes the test binary run a command and write its peak RSS
// (KiB) to a file instead of running tests: TestMain checks for it.
const rssRunArg = "-ftools-rss-run"

// rssRun runs args[1:] with this process's streams, writes its ru_maxrss
// to the file args[0], and returns its exit status.
func rssRun(args []string) int {
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 2
	}
	if err := os.WriteFile(args[0], []byte(strconv.FormatInt(ru.Maxrss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return cmd.ProcessState.ExitCode()
}

// lean runs a command that must succeed within maxRSS.
func lean(t *testing.T, name string, args ...string) string {
	t.Helper()
	return leanWithin(t, maxRSS, name, args...)
}

// leanWithin runs a command that must succeed within limit bytes.
func leanWithin(t *testing.T, limit int64, name string, args ...string) string {
	t.Helper()
	r, rss := peakRSS(t, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\n%s%s", name, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	t.Logf("%-10s %5.1f MiB  %s", name, float64(rss)/(1<<20), strings.Join(args, " "))
	if rss > limit {
		t.Errorf("%s %s: peak RSS %.1f MiB, want at most %d MiB", name, strings.Join(args, " "), float64(rss)/(1<<20), limit>>20)
	}
	return r.stdout
}

// The commands keep to 64 MiB on volumes whose FAT alone is 256 MiB: a
// sparse 2 TiB FAT32 of 512-byte sectors (32 KiB clusters) and a sparse
// 16 TiB one of 4 KiB sectors (the largest file ext4 holds; 256 KiB
// clusters), each filled with a folder of 20,000 long names, a tree and a
// large file, then listed, read, changed, recounted, checked by fverify
// (within maxVerifyRSS) and emptied, and checked by fsck.fat at the end.
func TestMemoryBoundedOnHugeVolumes(t *testing.T) {
	need(t, "fsck.fat")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	many := filepath.Join(tree, "many")
	if err := os.MkdirAll(filepath.Join(tree, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	// 20,000 names of three slots: FAT's 60,000-entry folder, nearly.
	for i := 0; i < 20000; i++ {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("a long file name %05d.txt", i)), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		writeFile(t, filepath.Join(tree, "sub", "deeper", fmt.Sprintf("f%02d.bin", i)), 5000+i*1000, byte(i))
	}
	big := filepath.Join(dir, "big.bin")
	bigData := writeFile(t, big, 48<<20, 7)
	for _, g := range []struct{ name, size, sector string }{
		{"2TiB", "2T", "512"},
		{"16TiB-4Kn", "16383G", "4096"},
	} {
		t.Run(g.name, func(t *testing.T) {
			img := filepath.Join(dir, g.name+".img")
			ok(t, "fmkfs", "--size", g.size, "--sector-size", g.sector, "--label", "HUGE", img)
			defer os.Remove(img)
			lean(t, "fcp", "-r", "-i", img, tree, "::/t")
			lean(t, "fcp", "-i", img, big, "::/t/big.bin")
			if n := strings.Count(lean(t, "fls", "-R", "-i", img, "::/"), "\n"); n < 20050 {
				t.Errorf("fls -R listed %d lines, want the 20,050 files at least", n)
			}
			if got := lean(t, "fcat", "-i", img, "::/t/big.bin"); got != string(bigData) {
				t.Errorf("fcat gave %d bytes, not the %d copied", len(got), len(bigData))
			}
			lean(t, "fmkdir", "-i", img, "::/new")
			lean(t, "fmv", "-i", img, "::/t/many/a long file name 00007.txt", "::/new/")
			lean(t, "fattrib", "-i", img, "+r", "::/new/a long file name 00007.txt")
			lean(t, "flabel", "-i", img, "BIGGER")
			lean(t, "ffallocate", "-l", "300M", "-i", img, "::/new/pre.bin")
			lean(t, "fsinfo", img)
			lean(t, "fsinfo", "--recount", img)
			// The check, with the 20,000 names still there.
			if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.Contains(out, "20052 files") || !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
				t.Errorf("fverify:\n%s", out)
			}
			// The repair of damage spread over the FATs, in the same bound;
			// fsck.fat checks the result at the end.
			damageHuge(t, img)
			r, rss := peakRSS(t, "fverify", "--repair", img)
			t.Logf("%-10s %5.1f MiB  --repair %s", "fverify", float64(rss)/(1<<20), img)
			if r.code != 1 || !strings.Contains(r.stdout, "fat-copies") || !strings.Contains(r.stdout, "lost") || !strings.Contains(r.stdout, ", 0 remaining\n") || !afterRepairClean(r.stdout) {
				t.Errorf("fverify --repair: exit %d\n%s%s", r.code, tailOf(r.stdout), r.stderr)
			}
			if rss > maxVerifyRSS {
				t.Errorf("fverify --repair: peak RSS %.1f MiB, want at most %d MiB", float64(rss)/(1<<20), maxVerifyRSS>>20)
			}
			if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
				t.Errorf("fverify after the repair:\n%s", out)
			}
			lean(t, "frm", "-r", "-i", img, "::/t/many")
			out := lean(t, "fsinfo", img)
			if !strings.Contains(out, "BIGGER") {
				t.Errorf("fsinfo does not show the new label:\n%s", out)
			}
			fsckClean(t, img, 0)
		})
	}
}

// damageHuge damages the FAT32 volume img, too large to read whole, as a
// crash and a bad writer might: a lost chain of 200,000 clusters in the
// middle of the volume, in both FATs (the repair saves it as files), and
// FAT 2 with end marks every million clusters that FAT 1 does not hold
// (FAT 1 stays the sound copy, as lost clusters count against neither),
// so that the repair rewrites sectors all over FAT 2, more windows than it
// keeps in memory.
func damageHuge(t *testing.T, img string) {
	t.Helper()
	f, bs := openBootSector(t, img)
	defer f.Close()
	le := binary.LittleEndian
	bps, res, fatSectors := int64(le.Uint16(bs[11:])), int64(le.Uint16(bs[14:])), int64(le.Uint32(bs[36:]))
	clusters := (int64(le.Uint32(bs[32:])) - res - int64(bs[16])*fatSectors) / int64(bs[13])
	entry := func(k int, c int64) int64 { return (res+int64(k)*fatSectors)*bps + 4*c }
	const n = 200000
	start := clusters / 2
	chain := make([]byte, 4*n)
	for i := int64(0); i < n; i++ {
		next := uint32(start + i + 1)
		if i == n-1 {
			next = 0x0FFFFFFF
		}
		le.PutUint32(chain[4*i:], next)
	}
	for k := 0; k < 2; k++ {
		if _, err := f.WriteAt(chain, entry(k, start)); err != nil {
			t.Fatal(err)
		}
	}
	for c := int64(3_000_000); c < clusters; c += 1_000_000 {
		if c >= start && c < start+n {
			continue
		}
		if _, err := f.WriteAt([]byte{0xFF, 0xFF, 0xFF, 0x0F}, entry(1, c)); err != nil {
			t.Fatal(err)
		}
	}
}

// A folder at FAT's slot limit (60,000 short names; exFAT: 60,000 files)
// is listed within 48 MiB, and every command that reads or changes one
// member of it, or the folder as a whole, keeps to maxRSS (fverify to
// maxVerifyRSS) on FAT32 and exFAT alike. Adding one member to the exFAT
// folder (fmkdir, ffallocate, fcp of one file) and fsort peaked at 59-66
// MiB: the folder is held whole, and the walk that guards the allocation
// bitmap before the first cluster is handed out reads it a second time.
// With 24-byte stream entries and commits that no longer copy the
// folder's sectors they are at 55-57 MiB.
func TestFullFolderMemory(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "m60s")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60000; i++ {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("F%05d.TXT", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one := filepath.Join(dir, "one.txt")
	if err := os.WriteFile(one, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fs := range []struct{ name, fsck string }{{"FAT32", "fsck.fat"}, {"exFAT", "fsck.exfat"}} {
		t.Run(fs.name, func(t *testing.T) {
			img := filepath.Join(dir, fs.name+".img")
			defer os.Remove(img)
			if fs.name == "FAT32" {
				ok(t, "fmkfs", "-F", "32", "--size", "400M", img)
			} else {
				ok(t, "fmkfs", "--type", "exfat", "--size", "1G", "--cluster-size", "4K", img)
			}
			ok(t, "fcp", "-r", "-i", img, src, "::/")
			for _, args := range [][]string{{"-i", img, "::/m60s"}, {"-l", "-i", img, "::/m60s"}, {"-R", "-i", img, "::/"}, {"--json", "-i", img, "::/m60s"}} {
				if n := strings.Count(leanWithin(t, 48<<20, "fls", args...), "\n"); n < 60000 {
					t.Errorf("fls %s listed %d lines, want the 60,000 names", strings.Join(args, " "), n)
				}
			}
			lean(t, "fcp", "-i", img, one, "::/m60s/one.txt")
			if got := lean(t, "fcat", "-i", img, "::/m60s/one.txt"); got != "one\n" {
				t.Errorf("fcat of the file copied in: %q", got)
			}
			lean(t, "fmkdir", "-i", img, "::/m60s/sub")
			lean(t, "ffallocate", "-l", "1M", "-i", img, "::/m60s/pre.bin")
			lean(t, "fmv", "-i", img, "::/m60s/F00005.TXT", "::/m60s/moved.txt")
			lean(t, "fattrib", "-i", img, "+r", "::/m60s/F00007.TXT")
			lean(t, "frm", "-i", img, "::/m60s/F00009.TXT")
			lean(t, "fsort", img)
			lean(t, "ftrim", img)
			leanWithin(t, maxVerifyRSS, "fverify", "-l", "--json", img)
			if out, err := exec.Command(fs.fsck, "-n", img).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", fs.fsck, err, out)
			}
			lean(t, "frm", "-r", "-i", img, "::/m60s")
			if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
				t.Errorf("fverify after frm -r:\n%s", out)
			}
		})
	}
}

// A tree of 100,000 small files (0-4 KiB, 1,000 to a folder, as the
// million-file bench's) is copied in, listed (--json), checked and copied
// out within the bounds: maxRSS for fcp and fls, maxVerifyRSS for
// fverify. fcp -r in peaked at 83-86 MiB (97 with a million files) with
// some 30 MiB live: the collector's slack came on top, until the commands
// kept a soft memory limit below the bound.
func TestManyFilesMemory(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	pattern := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), 160)[:4096]
	for d := 0; d < 100; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("folder%04d", d))
		mustMkdir(t, sub)
		for f := 0; f < 1000; f++ {
			k := d*1000 + f
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file_%07d.dat", k)), pattern[:(k*2654435761)%4097%4096], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	img := filepath.Join(dir, "f.img")
	ok(t, "fmkfs", "-F", "32", "--size", "1G", "--cluster-size", "4K", img)
	lean(t, "fcp", "-r", "-i", img, tree, "::/")
	if n := strings.Count(lean(t, "fls", "-R", "--json", "-i", img, "::/"), `"path"`); n != 100000+100+1 {
		t.Errorf("fls -R --json listed %d entries, want 100,101", n)
	}
	if out := leanWithin(t, maxVerifyRSS, "fverify", img); !strings.Contains(out, "100000 files") || !strings.HasSuffix(strings.TrimSpace(out), ": clean") {
		t.Errorf("fverify:\n%s", out)
	}
	out := filepath.Join(dir, "out")
	mustMkdir(t, out)
	lean(t, "fcp", "-r", "-i", img, "::/tree", out)
	if got := len(mustReadDir(t, filepath.Join(out, "tree", "folder0099"))); got != 1000 {
		t.Errorf("copied out: folder0099 holds %d files, want 1,000", got)
	}
}

// afterRepairClean says whether fverify --repair's last line is the check
// made again after the repair, and clean.
func afterRepairClean(out string) bool {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	return strings.Contains(last, " after the repair: ") && strings.HasSuffix(last, ": clean")
}
