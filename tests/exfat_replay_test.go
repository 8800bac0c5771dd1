package tests

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// The power-cut tests of the exFAT writers: as tests/replay_test.go does
// for FAT, each case records one command's writes and flushes on an exFAT
// volume that holds files, rebuilds the images a power cut could leave,
// and holds each to what pkg/exfat's package doc promises: at worst the
// VolumeDirty flag, lost clusters (marked in use, named by no entry), a
// moved file under both names, or a FAT chain longer than its file; every
// file holding its bytes from before the run or from after it. fsck.exfat
// -n (exfatprogs 1.2) says "clean" for the first two; for two entries
// sharing clusters it says which one it would truncate, and the test then
// makes sure those are the old and new names of a move.

// exfatShared are fsck.exfat's lines for two entries that share clusters.
var exfatShared = []*regexp.Regexp{
	regexp.MustCompile(`^ERROR: /.*: cluster is already allocated for the other file\. truncated to 0 bytes at 0x[0-9a-f]+\. Truncate \(y/N\)\? n$`),
	regexp.MustCompile(`: corrupted\. directories \d+, files \d+$`),
	regexp.MustCompile(`: files corrupted \d+, files fixed 0$`),
}

// exfatLonger are fsck.exfat's lines for a chain longer than its file.
var exfatLonger = []*regexp.Regexp{
	regexp.MustCompile(`^ERROR: /.*: more clusters are allocated\. truncate to \d+ bytes at 0x[0-9a-f]+\. Truncate \(y/N\)\? n$`),
	regexp.MustCompile(`: corrupted\. directories \d+, files \d+$`),
	regexp.MustCompile(`: files corrupted \d+, files fixed 0$`),
}

// exfatAlways are the lines fsck.exfat -n prints on every volume it
// finds clean (VolumeDirty and lost clusters included).
var exfatAlways = regexp.MustCompile(`^(exfatprogs version : .*|.*: clean\. directories \d+, files \d+|)$`)

// exfatCrashKinds are fverify's kinds for the leftovers every cut may
// leave.
var exfatCrashKinds = []string{exfat.KindDirty, exfat.KindLost}

// exfatOldTree fills the volume before the run: files, folders, a file
// with a FAT chain (written into a nearly full volume's holes).
func exfatOldTree(t *testing.T, img, dir string) {
	t.Helper()
	src := hostFiles(t, dir, "old", 100, 0, 1, 700, 3000, 9000, 40000)
	ok(t, "fcp", "-r", "-i", img, src, "::/old")
	ok(t, "fmkdir", "-i", img, "::/A", "::/B", "::/A/sub", "::/A/sub/deeper", "::/empty1", "::/empty2")
	for i, name := range []string{"HELLO.TXT", "a fairly long name 1.txt", "another long file name 2.dat", "x.bin"} {
		p := filepath.Join(dir, fmt.Sprintf("m%d", i))
		writeFile(t, p, 1000+i*1500, byte(i+1))
		ok(t, "fcp", "-i", img, p, "::/A/"+name)
	}
	writeFile(t, filepath.Join(dir, "deep"), 5000, 77)
	ok(t, "fcp", "-i", img, filepath.Join(dir, "deep"), "::/A/sub/deeper/deep file.bin")
}

// recordExFAT is recordRun on an exFAT volume.
func recordExFAT(t *testing.T, rc *replayCase) *replayRun {
	t.Helper()
	need(t, "fsck.exfat")
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	ok(t, "fmkfs", "--type", "exfat", "--size", "40M", "--label", "Old label", img)
	if rc.prepare != nil {
		rc.prepare(t, img, dir)
	}
	fsckExFAT(t, img, 0)
	base := filepath.Join(dir, "base.img")
	ok(t, "cp", "--sparse=always", img, base)
	ok(t, "cp", "--sparse=always", img, base+".kept")
	before, err := readVolume(img)
	if err != nil {
		t.Fatalf("reading the prepared image: %v", err)
	}
	ops := runLogged(t, rc, img, dir)
	fsckExFAT(t, img, 0)
	ok(t, "fverify", img)
	after, err := readVolume(img)
	if err != nil {
		t.Fatalf("reading the image after the run: %v", err)
	}
	return &replayRun{rc: rc, before: before, after: after, ops: ops, state: base, base: base + ".kept"}
}

// fsckExFATState runs fsck.exfat -n on the state and returns an error
// naming a line it may not print, and whether it found the volume clean.
func (rr *replayRun) fsckExFATState() (bool, error) {
	out, _ := exec.Command("fsck.exfat", "-n", rr.state).CombinedOutput()
	clean := true
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if exfatAlways.MatchString(line) {
			continue
		}
		clean = false
		allowed := false
		for _, re := range rr.rc.allowFsck {
			allowed = allowed || re.MatchString(line)
		}
		if !allowed {
			return false, fmt.Errorf("fsck.exfat -n says %q:\n%s", line, out)
		}
	}
	return clean, nil
}

// checkExFATState holds one crash state of a writer to the promises.
func (rr *replayRun) checkExFATState() error {
	clean, err := rr.fsckExFATState()
	if err != nil {
		return err
	}
	fv, kinds, err := rr.fverifyKinds(append(slices.Clip(exfatCrashKinds), rr.rc.quietKinds...))
	if err != nil {
		return err
	}
	// What fsck.exfat calls damage, fverify reports as one of the case's
	// allowed kinds, and the other way round.
	caseKind := false
	for _, k := range rr.rc.allowKinds {
		caseKind = caseKind || kinds[k]
	}
	if clean == caseKind {
		return fmt.Errorf("fsck.exfat clean %v, but fverify reports %+v", clean, fv.Problems)
	}
	return rr.checkTree(fv, kinds[exfat.KindRename])
}

// checkExFATFormat holds a crash state of fmkfs over an old volume: refused
// or reported, or a volume holding exactly the old tree or the new one
// (empty, or filled by --from); fverify never calls clean what fsck.exfat
// finds damaged. A volume whose VolumeDirty flag is set claims not to be
// clean (fmkfs --from formats it so until the fill is done), which
// fsck.exfat -n does not report and fverify does.
func (rr *replayRun) checkExFATFormat() error {
	out, _ := exec.Command("fsck.exfat", "-n", rr.state).CombinedOutput()
	fsckClean := true
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fsckClean = fsckClean && exfatAlways.MatchString(line)
	}
	fv, err := rr.fverify()
	if err != nil {
		return err
	}
	fvClean := fv.Error == "" && fv.Summary != nil && fv.Summary.Clean
	if fvClean && !fsckClean {
		return fmt.Errorf("fverify calls clean a volume fsck.exfat does not:\n%s", out)
	}
	if !fsckClean && !fvClean {
		return nil // refused or reported by both
	}
	for _, p := range fv.Problems {
		if p.Kind == exfat.KindDirty {
			return nil // marked dirty: it does not claim to be clean and complete
		}
	}
	st, err := readVolume(rr.state)
	if err != nil {
		if fvClean {
			return fmt.Errorf("fverify calls the volume clean, but it cannot be read: %w", err)
		}
		return nil
	}
	if !sameTree(st, rr.after) && !sameTree(st, rr.before) {
		return fmt.Errorf("a volume fsck.exfat calls clean holds neither the old file system nor the new one: %d files, %d directories, label %q (fverify: %+v)",
			len(st.files), len(st.dirs), st.label, fv.Problems)
	}
	return nil
}

// exfatBootTorn are fsck.exfat's words for a main boot region torn by a
// cut (its sector 0 and checksum sector disagree; the backup, still the
// old one, is what the volume is then read by).
var exfatBootTorn = []*regexp.Regexp{
	regexp.MustCompile(`^checksum of boot region is not correct\. 0x[0-9a-f]+, but expected 0x[0-9a-f]+$`),
	regexp.MustCompile(`^boot region is corrupted\. try to restore the region from backup\. Fix \(y/N\)\? n$`),
}

// exfatReplayCases are the exFAT writers, each on a volume that holds
// files already.
func exfatReplayCases() []*replayCase {
	prepSrc := func(sizes ...int) func(t *testing.T, img, dir string) {
		return func(t *testing.T, img, dir string) {
			exfatOldTree(t, img, dir)
			hostFiles(t, dir, "src", 1, sizes...)
		}
	}
	moved := func(name, from, to string, args ...string) *replayCase {
		return &replayCase{name: name, prepare: exfatOldTree, args: append([]string{"fmv", "-i", "IMG"}, args...),
			moved: [][2]string{{from, to}}, allowFsck: exfatShared, allowKinds: []string{exfat.KindRename}, minFlushes: 3}
	}
	return []*replayCase{
		{name: "exfat-fcp-new-files", prepare: prepSrc(0, 1, 511, 512, 513, 5000, 70000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src/.", "::/old"}, minFlushes: 3},
		{name: "exfat-fcp-tree", prepare: prepSrc(100, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 14000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/new tree"}, minFlushes: 3},
		// A new directory made whole for its 61 members: more than one
		// cluster of zeros, written with the data before its entry.
		{name: "exfat-fcp-big-dir", prepare: prepSrc(manySizes(90)...),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/new tree"}, minFlushes: 3},
		{name: "exfat-fcp-replace", prepare: func(t *testing.T, img, dir string) {
			exfatOldTree(t, img, dir)
			writeFile(t, filepath.Join(dir, "r1"), 12000, 201)
		}, args: []string{"fcp", "-i", "IMG", "DIR/r1", "::/old/file with a long name 03.bin"}, minFlushes: 3},
		{name: "exfat-fcp-replace-tight", prepare: func(t *testing.T, img, dir string) {
			exfatOldTree(t, img, dir)
			tightVolume(t, img, dir, "::/kernel8.img", 3<<20, 1<<20)
			writeFile(t, filepath.Join(dir, "k2"), 3<<20+5000, 203)
		}, args: []string{"fcp", "-i", "IMG", "DIR/k2", "::/kernel8.img"}, mayEmpty: []string{"kernel8.img"}, minFlushes: 5},
		{name: "exfat-fcp-sync-file", prepare: prepSrc(100, 2000, 3000, 4000, 5000),
			args: []string{"fcp", "-r", "--sync", "file", "-i", "IMG", "DIR/src", "::/new"}, minFlushes: 6},
		{name: "exfat-fcp-sync-none", prepare: prepSrc(100, 2000, 3000, 4000),
			args: []string{"fcp", "-r", "--sync", "none", "-i", "IMG", "DIR/src", "::/new"}, prefixOnly: true},
		{name: "exfat-frm", prepare: exfatOldTree,
			args: []string{"frm", "-i", "IMG", "::/old/file with a long name 03.bin", "::/A/a fairly long name 1.txt"}, minFlushes: 3},
		{name: "exfat-frm-r", prepare: exfatOldTree,
			args: []string{"frm", "-r", "-i", "IMG", "::/A/sub"}, minFlushes: 3},
		moved("exfat-fmv-within-dir", "A/x.bin", "A/a much longer name for x.bin", "::/A/x.bin", "::/A/a much longer name for x.bin"),
		moved("exfat-fmv-across-dirs", "A/HELLO.TXT", "B/HELLO.TXT", "::/A/HELLO.TXT", "::/B/"),
		moved("exfat-fmv-dir-across-dirs", "A/sub", "B/moved sub", "::/A/sub", "::/B/moved sub"),
		moved("exfat-fmv-replace", "A/another long file name 2.dat", "old/file with a long name 04.bin", "::/A/another long file name 2.dat", "::/old/file with a long name 04.bin"),
		{name: "exfat-fmkdir", prepare: exfatOldTree,
			args: []string{"fmkdir", "-p", "-i", "IMG", "::/B/new folder/inside", "::/another new folder", "::/old/n"}, minFlushes: 3},
		{name: "exfat-frmdir", prepare: exfatOldTree,
			args: []string{"frmdir", "-i", "IMG", "::/empty1", "::/empty2", "::/A"}, exit: 1, minFlushes: 3},
		{name: "exfat-fattrib", prepare: exfatOldTree,
			args: []string{"fattrib", "+r", "+h", "-i", "IMG", "::/old/file with a long name 04.bin", "::/A/HELLO.TXT"}, minFlushes: 3},
		{name: "exfat-flabel", prepare: exfatOldTree,
			args: []string{"flabel", "-i", "IMG", "New label"}, minFlushes: 2},
		// fsort switches the root by the main boot region (its sector 0
		// and checksum sector: a torn write leaves them disagreeing, and
		// the backup, with the old root, in use), then the backup: a cut
		// between leaves the backup older.
		{name: "exfat-fsort", prepare: exfatOldTree, quietKinds: []string{exfat.KindBackupBoot},
			allowFsck: exfatBootTorn, allowKinds: []string{exfat.KindBootChecksum},
			args: []string{"fsort", "-r", "IMG"}, minFlushes: 4},
		{name: "exfat-ftrim", prepare: trimmable(exfatOldTree),
			args: []string{"ftrim", "IMG"}},
		{name: "exfat-ffallocate-new", prepare: exfatOldTree,
			args: []string{"ffallocate", "-l", "300K", "-i", "IMG", "::/B/preallocated file.bin"}, minFlushes: 3},
		// fresize: moved data and directories, then the bitmap, the
		// main boot region and its backup last (as fsort: a torn main
		// region leaves the backup, the old volume, in use; a cut
		// between the two leaves the backup older).
		{name: "exfat-fresize-shrink", prepare: beyondEndOf(exfatOldTree, 24<<20),
			args: []string{"fresize", "IMG", "24M"}, minFlushes: 4,
			quietKinds: []string{exfat.KindBackupBoot}, allowFsck: exfatBootTorn, allowKinds: []string{exfat.KindBootChecksum}},
		// Growing past what one bitmap cluster counts: the cluster after
		// the bitmap holds the up-case table, so the bitmap moves.
		{name: "exfat-fresize-grow-bitmap-moves", prepare: func(t *testing.T, img, dir string) {
			exfatOldTree(t, img, dir)
			ok(t, "truncate", "-s", "200M", img)
		}, args: []string{"fresize", "IMG", "max"}, minFlushes: 3,
			quietKinds: []string{exfat.KindBackupBoot}, allowFsck: exfatBootTorn, allowKinds: []string{exfat.KindBootChecksum}},
		// A bitmap that moved once, with free clusters after it, grows
		// into them.
		{name: "exfat-fresize-grow-bitmap-extends", prepare: func(t *testing.T, img, dir string) {
			ok(t, "truncate", "-s", "140M", img)
			ok(t, "fresize", img, "max")
			exfatOldTree(t, img, dir)
			ok(t, "frm", "-r", "-i", img, "::/old")
			ok(t, "truncate", "-s", "300M", img)
		}, args: []string{"fresize", "IMG", "max"}, minFlushes: 3,
			quietKinds: []string{exfat.KindBackupBoot}, allowFsck: exfatBootTorn, allowKinds: []string{exfat.KindBootChecksum}},
		{name: "exfat-ffallocate-extend", prepare: exfatOldTree,
			args:      []string{"ffallocate", "-l", "100K", "-i", "IMG", "::/old/file with a long name 03.bin"},
			allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
	}
}

func TestExFATReplayWriters(t *testing.T) {
	for i, rc := range exfatReplayCases() {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			rc.exfat = true
			rr := recordExFAT(t, rc)
			n, err := rr.replay(t, uint64(i+1))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// fmkfs --type exfat over an exFAT volume that holds files; and with
// --from, filling the new volume, which stays dirty until it is filled.
func TestExFATReplayFmkfs(t *testing.T) {
	withSrc := func(t *testing.T, img, dir string) {
		exfatOldTree(t, img, dir)
		hostFiles(t, dir, "src", 1, 100, 5000, 70000, 3000)
	}
	for i, rc := range []*replayCase{
		{name: "exfat-fmkfs", prepare: exfatOldTree, format: true, exfat: true,
			args: []string{"fmkfs", "--type", "exfat", "--label", "New", "IMG"}, minFlushes: 1},
		{name: "exfat-fmkfs-from", prepare: withSrc, format: true, exfat: true,
			args: []string{"fmkfs", "--type", "exfat", "--label", "New", "--from", "DIR/src", "IMG"}, minFlushes: 2},
	} {
		t.Run(rc.name, func(t *testing.T) {
			rr := recordExFAT(t, rc)
			if writelog.Discards(rr.ops) != 1 {
				t.Errorf("fmkfs logged %d discards, want 1 (the volume's range)", writelog.Discards(rr.ops))
			}
			n, err := rr.replay(t, uint64(300+i))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}
