package tests

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
	"github.com/ftools/ftools/pkg/vol"
)

// The power-cut tests. Each case prepares an image, runs one writing
// command on it with FTOOLS_WRITE_LOG set, so that pkg/io records every
// write, zeroing call and flush the command issued, and then rebuilds the
// images a power cut could have left (package writelog: every in-order
// prefix of the log and, within each flush epoch, each write alone, all
// but one, and random subsets of the writes torn into 512-byte units, in
// log order or shuffled). Every one of those images must pass:
//
//   - fsck.fat -n finds at most the dirty bit, lost clusters, a wrong free
//     count, or FAT copies that differ while the first is intact (plus
//     what a case allows by name, such as an interrupted rename);
//   - fverify finds the same classes of problems as fsck.fat;
//   - every file and directory the run kept is still there, and every file
//     holds exactly its bytes from before the run or from after it (so an
//     entry never names data that was not fully written).
//
// The tests sample the reorderings; FTOOLS_REPLAY_FULL=1 checks every
// deterministic state and many more random ones.

// replayFull reports whether the long run was asked for.
func replayFull() bool { return os.Getenv("FTOOLS_REPLAY_FULL") != "" }

func replayOptions(seed uint64) writelog.Options {
	if replayFull() {
		return writelog.Options{Unit: 512, Samples: 200, Seed: seed}
	}
	return writelog.Options{Unit: 512, Samples: 6, Family: 8, Seed: seed}
}

// tree is what a volume holds: file contents and directories by path.
type tree struct {
	files map[string][]byte
	dirs  map[string]bool
	label string
	// short maps the path of a file under its short name (when that
	// differs from its long name) to its path.
	short map[string]string
}

// readVolume reads every file and directory of the FAT or exFAT volume
// in img (through pkg/vol), read-only. An unreadable file or directory is
// an error.
func readVolume(img string) (*tree, error) { return readVolumeAt(img, 0) }

// readVolumeAt is readVolume for the volume at byte off of img.
func readVolumeAt(img string, off int64) (*tree, error) {
	dev, err := fio.Open(img, fio.Options{Buffered: true, NoLock: true, Offset: off})
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	v, err := vol.Open(dev)
	if err != nil {
		return nil, err
	}
	tr := &tree{files: map[string][]byte{}, dirs: map[string]bool{}, short: map[string]string{}}
	if tr.label, err = v.Label(); err != nil {
		return nil, err
	}
	err = fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			tr.dirs[p] = true
			return nil
		}
		b, err := fs.ReadFile(v, p)
		if err != nil {
			return err
		}
		tr.files[p] = b
		if info, err := d.Info(); err == nil {
			if e := v.Entry(info); e.ShortName != "" && e.ShortName != e.Name {
				tr.short[path.Join(path.Dir(p), e.ShortName)] = p
			}
		}
		return nil
	})
	return tr, err
}

// fsckClasses maps the lines fsck.fat -n prints for the allowed crash
// leftovers to fverify's problem kinds.
var fsckClasses = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`^Dirty bit is set`), fat.KindDirty},
	{regexp.MustCompile(`^Reclaimed \d+ unused clusters?`), fat.KindLost},
	{regexp.MustCompile(`^Free cluster summary wrong`), fat.KindFSInfo},
	{regexp.MustCompile(`^FATs differ but appear to be intact`), fat.KindFATCopies},
}

// crashAllowedKinds are fverify's kinds for the allowed leftovers. A
// directory the run makes is written whole, its entries included, before
// the entry that names it: no crash state may show its first sector as
// Mkdir wrote it (an end marker after "." and "..") with entries durable
// behind it, so fverify's after-end is not among them.
var crashAllowedKinds = []string{fat.KindDirty, fat.KindLost, fat.KindFSInfo, fat.KindFATCopies}

// fverifyOut is the part of fverify --json the tests read.
type fverifyOut struct {
	Error    string `json:"error"`
	Problems []struct {
		Kind string `json:"kind"`
		Path string `json:"path"`
		Msg  string `json:"message"`
	} `json:"problems"`
	Summary *struct {
		Clean bool `json:"clean"`
	} `json:"summary"`
}

// replayCase is one recorded run.
type replayCase struct {
	name string
	fat  string // "12", "16" or "32"
	size string // the image's size, if not the default for fat
	// prepare fills the image before the recorded run; dir is a scratch
	// folder for host files.
	prepare func(t *testing.T, img, dir string)
	// args is the recorded command; "IMG" stands for the image and
	// "DIR/" starts a host path in the scratch folder.
	args []string
	// exit is the command's expected exit status (0 unless said).
	exit int
	// moved lists directory and file moves (old, new path): a crash
	// leaves each file below old reachable under its old or its new path.
	moved [][2]string
	// allowFsck are further fsck.fat lines this case may leave, with the
	// fverify kinds that go with them (an interrupted rename).
	allowFsck  []*regexp.Regexp
	allowKinds []string
	// prefixOnly: the policy promises consistency after a process crash
	// only (--sync none): check the in-order prefixes alone.
	prefixOnly bool
	// minFlushes is the least number of flushes the run must issue.
	minFlushes int
	// format: the run makes a new file system; see checkFormatState.
	format bool
	// tableAt: the run writes a partition table too, its partition at
	// this byte (fmkfs --table); without format, the volume lies in a
	// partition at this byte (fresize --resize-partition).
	tableAt int64
	// damaged: prepare leaves problems for the run (fverify --repair) to fix.
	damaged bool
	// exfat: the volume is exFAT (tests/exfat_replay_test.go).
	exfat bool
	// mayEmpty lists files a cut may leave 0 bytes long: a file replaced
	// by one that fits only in its clusters is emptied first.
	mayEmpty []string
	// inPlace lists files updated in place: a cut leaves each sector
	// with its old or its new bytes (sectorsOldOrNew).
	inPlace []string
	// quietKinds are kinds fverify may report that fsck.exfat does not
	// look for (a backup boot region older than the main one), so that
	// they do not count against its verdict.
	quietKinds []string
	// undo is the undo file ("DIR/name") a run that is not crash-safe
	// writes: a state that fails the checks must pass them once
	// fresize --undo-apply has put the old volume back.
	undo string
	// noKill says why TestKillEveryWriter leaves the case out (the replay
	// still checks every state a cut leaves).
	noKill string
}

func (rc *replayCase) expand(img, dir string) []string {
	var out []string
	for _, a := range rc.args {
		a = strings.ReplaceAll(a, "IMG", img)
		if strings.HasPrefix(a, "DIR/") {
			a = filepath.Join(dir, a[4:])
		}
		out = append(out, a)
	}
	return out
}

// replayRun is a recorded run ready to be replayed.
type replayRun struct {
	rc            *replayCase
	before, after *tree
	ops           []writelog.Op
	state         string // the image file Replay rewrites
	base          string // the image before the run, kept
}

// recordRun prepares the image, runs the case's command with the write log
// on and returns what the replay needs.
func recordRun(t *testing.T, rc *replayCase) *replayRun {
	t.Helper()
	need(t, "fsck.fat")
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	size := map[string]string{"12": "2M", "16": "16M", "32": "40M"}[rc.fat]
	if rc.size != "" {
		size = rc.size
	}
	ok(t, "fmkfs", "--size", size, "--fat", rc.fat, "--label", "OLDLABEL", img)
	if rc.prepare != nil {
		rc.prepare(t, img, dir)
	}
	// A run on a partition (not a format) reads the volume there.
	volAt := int64(0)
	if !rc.format {
		volAt = rc.tableAt
	}
	if !rc.damaged {
		fsckClean(t, img, volAt)
	}
	base := filepath.Join(dir, "base.img")
	ok(t, "cp", "--sparse=always", img, base)
	ok(t, "cp", "--sparse=always", img, base+".kept")
	before, err := readVolumeAt(img, volAt)
	if err != nil {
		t.Fatalf("reading the prepared image: %v", err)
	}
	ops := runLogged(t, rc, img, dir)
	fsckClean(t, img, rc.tableAt)
	after, err := readVolumeAt(img, rc.tableAt)
	if err != nil {
		t.Fatalf("reading the image after the run: %v", err)
	}
	return &replayRun{rc: rc, before: before, after: after, ops: ops, state: base, base: base + ".kept"}
}

// runLogged runs the case's command on img with the write log on, checks
// its exit status and flushes, and returns its writes and flushes.
func runLogged(t *testing.T, rc *replayCase, img, dir string) []writelog.Op {
	t.Helper()
	logPath := filepath.Join(dir, "write.log")
	args := rc.expand(img, dir)
	var boot []byte
	if !rc.format && rc.tableAt == 0 {
		boot = readImage(t, img)[:512]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), fio.EnvWriteLog+"="+logPath)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, isExit := err.(*exec.ExitError); isExit {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != rc.exit {
		t.Fatalf("%s: exit %d, want %d\n%s", strings.Join(args, " "), code, rc.exit, out)
	}
	ops := loggedOps(t, logPath, img)
	writes, flushes := writelog.Counts(ops)
	if writes == 0 {
		t.Fatalf("%s wrote nothing", strings.Join(args, " "))
	}
	if flushes < rc.minFlushes {
		t.Errorf("%s issued %d flushes, want at least %d", strings.Join(args, " "), flushes, rc.minFlushes)
	}
	if !rc.prefixOnly && writesStructure(ops) && ops[len(ops)-1].Kind != writelog.KindFlush {
		t.Errorf("%s: the last write is not followed by a flush: exit 0 would not mean durable", strings.Join(args, " "))
	}
	if boot != nil {
		if err := dirtyFirst(boot, ops, !rc.prefixOnly && !slices.Contains(args, "always")); err != nil {
			t.Errorf("%s: %v", strings.Join(args, " "), err)
		}
	}
	t.Logf("%s: %d writes, %d flushes", strings.Join(args[:1], " "), writes, flushes)
	return ops
}

// loggedOps reads the changes and flushes the write log at logPath holds
// for the image img.
func loggedOps(t *testing.T, logPath, img string) []writelog.Op {
	t.Helper()
	ops, err := writelog.ReadOps(logPath, img)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// dirtyFirst checks the crash order of the dirty flag on a volume whose
// boot sector (before the run) is boot: a run that finds it clear sets it
// in its very first write (not when it opens the volume: a refusal writes
// nothing), and, with flushes, makes it durable before metadata that no
// data came before: the first flush may cover the flag, file data and the
// FAT of the new chains (which leave at worst lost clusters), but a run
// that starts with metadata (the FATs, FAT12/16's root directory) flushes
// the flag first. FAT12 has no dirty bit.
func dirtyFirst(boot []byte, ops []writelog.Op, flushes bool) error {
	le := binary.LittleEndian
	var dirty func(b []byte) bool
	var metaStart, metaEnd int64
	switch {
	case exfat.IsExFAT(boot):
		// VolumeFlags bit 1; the FAT lies at FatOffset for FatLength
		// sectors per copy.
		dirty = func(b []byte) bool { return b[106]&2 != 0 }
		ss := int64(1) << boot[108]
		metaStart = int64(le.Uint32(boot[80:])) * ss
		metaEnd = metaStart + int64(le.Uint32(boot[84:]))*ss*int64(boot[110])
	case le.Uint16(boot[22:]) == 0:
		// FAT32: the dirty bit is bit 0 of byte 65.
		dirty = func(b []byte) bool { return b[65]&1 != 0 }
		bps := int64(le.Uint16(boot[11:]))
		metaStart = int64(le.Uint16(boot[14:])) * bps
		metaEnd = metaStart + int64(boot[16])*int64(le.Uint32(boot[36:]))*bps
	case string(boot[54:59]) == "FAT12":
		return nil
	default:
		// FAT16: byte 37; the FATs and then the fixed root directory.
		dirty = func(b []byte) bool { return b[37]&1 != 0 }
		bps := int64(le.Uint16(boot[11:]))
		metaStart = int64(le.Uint16(boot[14:])) * bps
		metaEnd = metaStart + int64(boot[16])*int64(le.Uint16(boot[22:]))*bps + int64(le.Uint16(boot[17:]))*32
	}
	if dirty(boot) || !writesStructure(ops) {
		return nil
	}
	if op := ops[0]; op.Kind != writelog.KindWrite || op.Off != 0 || len(op.Data) < 512 || !dirty(op.Data) {
		return fmt.Errorf("the first write (at byte %d, %d bytes) does not set the dirty flag in the boot sector", op.Off, op.N)
	}
	if !flushes {
		return nil
	}
	data := false
	for _, op := range ops[1:] {
		switch {
		case op.Kind == writelog.KindFlush:
			return nil
		case op.Off >= metaEnd:
			data = true
		case op.Off+op.N > metaStart && !data:
			return fmt.Errorf("metadata (byte %d) is written before any data and before a flush has made the dirty flag durable", op.Off)
		}
	}
	return nil
}

// writesStructure reports whether ops write anything: a run that only
// discards free clusters (ftrim) changes no structure, so it needs no
// dirty flag, and no flush at its end (a discard owes none).
func writesStructure(ops []writelog.Op) bool {
	for _, o := range ops {
		if o.Kind == writelog.KindWrite || o.Kind == writelog.KindZero {
			return true
		}
	}
	return false
}

// replay checks every crash state of a recorded run and returns the number
// of states checked.
func (rr *replayRun) replay(t *testing.T, seed uint64) (int, error) {
	t.Helper()
	opts := replayOptions(seed)
	opts.PrefixOnly = rr.rc.prefixOnly
	check := rr.checkState
	switch {
	case rr.rc.exfat && rr.rc.format:
		check = rr.checkExFATFormat
	case rr.rc.exfat:
		check = rr.checkExFATState
	case rr.rc.format:
		check = rr.checkFormatState
	case rr.rc.undo != "":
		check = rr.checkUndoState
	}
	n, err := writelog.Replay(rr.state, rr.ops, opts, func(writelog.State) error { return rr.keepFailed(t, check()) })
	if err != nil || writelog.Discards(rr.ops) == 0 {
		return n, err
	}
	// A discarded range may read back its old bytes as well as zeros:
	// the other world too, from the image before the run.
	if out, err := exec.Command("cp", "--sparse=always", rr.base, rr.state).CombinedOutput(); err != nil {
		return n, fmt.Errorf("restoring the image before the run: %v %s", err, out)
	}
	opts.DiscardKeepsOld = true
	m, err := writelog.Replay(rr.state, rr.ops, opts, func(writelog.State) error { return rr.keepFailed(t, check()) })
	return n + m, err
}

// keepFailed keeps the image of a state that failed, for a look with
// fsck, fverify and mtools.
func (rr *replayRun) keepFailed(t *testing.T, err error) error {
	if err == nil {
		return nil
	}
	keep := filepath.Join(os.TempDir(), "ftools-replay-"+rr.rc.name+".img")
	if out, cerr := exec.Command("cp", "--sparse=always", rr.state, keep).CombinedOutput(); cerr != nil {
		t.Logf("keeping the failed state: %v %s", cerr, out)
		return err
	}
	return fmt.Errorf("%w\n(the image is kept as %s)", err, keep)
}

// fsck runs fsck.fat -n on the state and returns the classes of the
// allowed leftovers it found, or an error naming a line it may not print.
func (rr *replayRun) fsck() (map[string]bool, bool, error) {
	target := rr.state
	if rr.rc.tableAt != 0 {
		// A volume in a partition: fsck.fat reads a copy of it.
		target = rr.state + ".part"
		dd := exec.Command("dd", "if="+rr.state, "of="+target, "bs=1M", "iflag=skip_bytes", fmt.Sprintf("skip=%d", rr.rc.tableAt), "conv=sparse", "status=none")
		if out, err := dd.CombinedOutput(); err != nil {
			return nil, false, fmt.Errorf("extracting the partition: %v %s", err, out)
		}
		defer os.Remove(target)
	}
	cmd := exec.Command("fsck.fat", "-n", target)
	out, _ := cmd.CombinedOutput()
	classes := map[string]bool{}
	extra := false
	for _, line := range strings.Split(string(out), "\n") {
		for _, c := range fsckClasses {
			if c.re.MatchString(line) {
				classes[c.kind] = true
			}
		}
		if allowedAfterCrash.MatchString(line) {
			continue
		}
		allowed := false
		for _, re := range rr.rc.allowFsck {
			if re.MatchString(line) {
				allowed, extra = true, true
			}
		}
		if !allowed {
			return nil, false, fmt.Errorf("fsck.fat -n says %q:\n%s", line, out)
		}
	}
	return classes, extra, nil
}

// fverify runs fverify --json on the state.
func (rr *replayRun) fverify() (*fverifyOut, error) {
	out, _ := exec.Command("fverify", "--json", rr.state).Output()
	var fv fverifyOut
	if err := json.Unmarshal(out, &fv); err != nil {
		return nil, fmt.Errorf("fverify --json: %v\n%s", err, out)
	}
	return &fv, nil
}

// checkState holds one crash state to the rules in the comment at the top.
func (rr *replayRun) checkState() error {
	classes, extra, err := rr.fsck()
	if err != nil {
		return err
	}
	fv, kinds, err := rr.fverifyKinds(crashAllowedKinds)
	if err != nil {
		return err
	}
	// fverify agrees with fsck.fat on the allowed classes (beyond them, a
	// case's own allowance may be named differently by each). fsck.fat
	// counts free clusters after reclaiming lost ones, fverify compares
	// FSINFO with the FAT as it is: with lost clusters, their verdicts on
	// the free count differ by design.
	if !extra {
		for _, k := range crashAllowedKinds {
			if k == fat.KindFSInfo && kinds[fat.KindLost] {
				continue
			}
			if classes[k] != kinds[k] {
				return fmt.Errorf("fsck.fat and fverify disagree about %q: fsck.fat %v, fverify %v (%+v)", k, classes[k], kinds[k], fv.Problems)
			}
		}
	}
	return rr.checkTree(fv, kinds[fat.KindRename])
}

// fverifyKinds runs fverify on the state and returns its report and the
// kinds it found, or an error for a kind neither always allowed after a
// cut nor allowed by the case.
func (rr *replayRun) fverifyKinds(always []string) (*fverifyOut, map[string]bool, error) {
	fv, err := rr.fverify()
	if err != nil {
		return nil, nil, err
	}
	if fv.Error != "" {
		return nil, nil, fmt.Errorf("fverify cannot check the volume: %s", fv.Error)
	}
	kinds := map[string]bool{}
	for _, p := range fv.Problems {
		kinds[p.Kind] = true
		if !slices.Contains(always, p.Kind) && !slices.Contains(rr.rc.allowKinds, p.Kind) {
			return nil, nil, fmt.Errorf("fverify reports %s: %s %s", p.Kind, p.Path, p.Msg)
		}
	}
	return fv, kinds, nil
}

// checkTree reads the state's files and holds them to checkContents; a
// rename found (two names sharing clusters) must be an interrupted move.
func (rr *replayRun) checkTree(fv *fverifyOut, rename bool) error {
	st, err := readVolumeAt(rr.state, rr.rc.tableAt)
	if err != nil {
		return fmt.Errorf("reading the volume: %w", err)
	}
	if err := rr.checkContents(st); err != nil {
		return err
	}
	if rename && !rr.interruptedRename(st) {
		return fmt.Errorf("clusters shared by two names that are not the old and new name of a move: %+v", fv.Problems)
	}
	return nil
}

// interruptedRename reports whether st holds a moved file or directory
// under both its old and its new name.
func (rr *replayRun) interruptedRename(st *tree) bool {
	for _, m := range rr.rc.moved {
		_, oldFile := st.files[m[0]]
		_, newFile := st.files[m[1]]
		if (oldFile && newFile) || (st.dirs[m[0]] && st.dirs[m[1]]) {
			return true
		}
	}
	return false
}

// checkContents: every file holds its bytes from before or after the run;
// what the run kept is there; moved files are reachable under a name.
func (rr *replayRun) checkContents(st *tree) error {
	b, a := rr.before, rr.after
	for _, p := range slices.Sorted(maps.Keys(st.files)) {
		data := st.files[p]
		old, inB := b.files[p]
		nw, inA := a.files[p]
		switch {
		case inB && bytes.Equal(data, old), inA && bytes.Equal(data, nw):
		case len(data) == 0 && slices.Contains(rr.rc.mayEmpty, p):
		case inB && inA && slices.Contains(rr.rc.inPlace, p) && sectorsOldOrNew(data, old, nw):
		case !inB && !inA && b.short[p] != "" && bytes.Equal(data, b.files[b.short[p]]):
			// A deleted record whose long-name slots went first (they lie
			// in the sector before its short entry): the file is whole
			// under its short name.
		case !inB && !inA:
			return fmt.Errorf("/%s: a file of %d bytes that is there neither before the run nor after it", p, len(data))
		default:
			return fmt.Errorf("/%s: %d bytes that are neither its %d bytes before the run nor its %d after it (first difference at byte %d)",
				p, len(data), len(old), len(nw), firstDifference(data, old, nw))
		}
	}
	for p := range st.dirs {
		if !b.dirs[p] && !a.dirs[p] {
			return fmt.Errorf("/%s: a directory that is there neither before the run nor after it", p)
		}
	}
	for p := range b.files {
		if _, kept := a.files[p]; kept {
			if _, there := st.files[p]; !there && !rr.movedAway(p, st) {
				return fmt.Errorf("/%s: missing, though the run keeps it", p)
			}
		}
	}
	for p := range b.dirs {
		if a.dirs[p] && !st.dirs[p] {
			return fmt.Errorf("/%s: directory missing, though the run keeps it", p)
		}
	}
	for _, m := range rr.rc.moved {
		for p := range b.files {
			np, ok := movedPath(p, m)
			if !ok {
				continue
			}
			_, atOld := st.files[p]
			_, atNew := st.files[np]
			if !atOld && !atNew {
				return fmt.Errorf("/%s, moved to /%s: reachable under neither name", p, np)
			}
		}
	}
	return nil
}

// movedAway reports whether p is the old path of a move and st holds the
// file at its new path (a moved file may replace one the run keeps).
func (rr *replayRun) movedAway(p string, st *tree) bool {
	for _, m := range rr.rc.moved {
		if np, ok := movedPath(p, m); ok {
			if _, there := st.files[np]; there {
				return true
			}
		}
	}
	return false
}

// movedPath maps p below (or at) m's old path to its new path.
func movedPath(p string, m [2]string) (string, bool) {
	switch {
	case p == m[0]:
		return m[1], true
	case strings.HasPrefix(p, m[0]+"/"):
		return m[1] + p[len(m[0]):], true
	}
	return "", false
}

func firstDifference(data, old, nw []byte) int {
	d := func(x, y []byte) int {
		for i := range min(len(x), len(y)) {
			if x[i] != y[i] {
				return i
			}
		}
		return min(len(x), len(y))
	}
	return max(d(data, old), d(data, nw))
}

// checkFormatState holds a crash state of fmkfs to its rule: the volume is
// refused, or reported by both checkers, or it is a clean volume holding
// exactly what was there before the run or exactly the new, empty one.
//
// A run that writes a partition table first (tableAt) is held to what
// readers see: while sector 0 holds a FAT boot sector, the whole disk as
// that volume; once it holds a table, the partition; in between, nothing
// (fverify must not call it clean).
func (rr *replayRun) checkFormatState() error {
	off, target := int64(0), rr.state
	if rr.rc.tableAt != 0 {
		sec0 := make([]byte, 512)
		f, err := os.Open(rr.state)
		if err != nil {
			return err
		}
		_, err = f.ReadAt(sec0, 0)
		f.Close()
		if err != nil {
			return err
		}
		switch {
		case (sec0[0] == 0xEB || sec0[0] == 0xE9) && sec0[510] == 0x55 && sec0[511] == 0xAA:
			// The old volume's boot sector: the whole disk.
		case sec0[510] == 0x55 && sec0[511] == 0xAA:
			off, target = rr.rc.tableAt, rr.state+".part"
			dd := exec.Command("dd", "if="+rr.state, "of="+target, "bs=1M", "iflag=skip_bytes", fmt.Sprintf("skip=%d", off), "conv=sparse", "status=none")
			if out, err := dd.CombinedOutput(); err != nil {
				return fmt.Errorf("extracting the partition: %v %s", err, out)
			}
			defer os.Remove(target)
		default:
			// Neither a volume nor a table in sector 0.
			if fv, err := rr.fverify(); err != nil || fv.Error == "" && fv.Summary != nil && fv.Summary.Clean {
				return fmt.Errorf("sector 0 holds neither a boot sector nor a table, yet fverify calls the disk clean (%v)", err)
			}
			return nil
		}
	}
	r, _ := exec.Command("fsck.fat", "-n", target).CombinedOutput()
	fsckClean := true
	for _, line := range strings.Split(string(r), "\n") {
		if !regexp.MustCompile(`^(fsck\.fat .*|Leaving filesystem unchanged\.|.*: \d+ files, \d+/\d+ clusters|)$`).MatchString(line) {
			fsckClean = false
		}
	}
	fv, err := rr.fverify()
	if err != nil {
		return err
	}
	fvClean := fv.Error == "" && fv.Summary != nil && fv.Summary.Clean
	if fsckClean != fvClean {
		return fmt.Errorf("fsck.fat clean %v, fverify clean %v (%s %+v):\n%s", fsckClean, fvClean, fv.Error, fv.Problems, r)
	}
	if !fsckClean {
		return nil // refused or reported: a half-made volume is not taken for a good one
	}
	st, err := readVolumeAt(rr.state, off)
	if err != nil {
		return fmt.Errorf("both checkers call the volume clean, but it cannot be read: %w", err)
	}
	if !sameTree(st, rr.after) && !sameTree(st, rr.before) {
		return fmt.Errorf("both checkers call the volume clean, but it holds neither the old file system nor the new one: %d files, %d directories, label %q",
			len(st.files), len(st.dirs), st.label)
	}
	return nil
}

func sameTree(x, y *tree) bool {
	if len(x.files) != len(y.files) || len(x.dirs) != len(y.dirs) || x.label != y.label {
		return false
	}
	for p, d := range x.files {
		if e, ok := y.files[p]; !ok || !bytes.Equal(d, e) {
			return false
		}
	}
	for p := range x.dirs {
		if !y.dirs[p] {
			return false
		}
	}
	return true
}

// Host trees the cases copy from.

// hostFiles writes files of the given sizes into dir/name and returns the
// folder.
// manySizes is n small file sizes, for a tree of many names.
func manySizes(n int) []int {
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = 1 + i*37
	}
	return sizes
}

func hostFiles(t *testing.T, dir, name string, seed byte, sizes ...int) string {
	t.Helper()
	root := filepath.Join(dir, name)
	for i, n := range sizes {
		sub := root
		if i%3 == 2 {
			sub = filepath.Join(root, "sub folder")
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(sub, fmt.Sprintf("file with a long name %02d.bin", i)), n, seed+byte(i))
	}
	return root
}

// oldTree puts files into the image before the run: some with ftools,
// some with mtools (whose long-name records may straddle sectors), and
// the folders the move cases use.
func oldTree(t *testing.T, img, dir string) {
	t.Helper()
	need(t, "mcopy", "mmd")
	src := hostFiles(t, dir, "old", 100, 0, 1, 700, 3000, 9000, 40000)
	ok(t, "fcp", "-r", "-i", img, src, "::/old")
	ok(t, "fmkdir", "-i", img, "::/A", "::/B", "::/A/sub", "::/A/sub/deeper", "::/empty1", "::/empty2")
	for i, name := range []string{"HELLO.TXT", "a fairly long name 1.txt", "another long file name 2.dat", "x.bin"} {
		p := filepath.Join(dir, fmt.Sprintf("m%d", i))
		writeFile(t, p, 1000+i*1500, byte(i+1))
		ok(t, "mcopy", "-i", img, p, "::/A/"+name)
	}
	for i := 0; i < 9; i++ {
		p := filepath.Join(dir, fmt.Sprintf("b%d", i))
		writeFile(t, p, 600+i*100, byte(i+50))
		ok(t, "mcopy", "-i", img, p, fmt.Sprintf("::/B/b-file-name-%d.txt", i))
	}
	writeFile(t, filepath.Join(dir, "deep"), 5000, 77)
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "deep"), "::/A/sub/deeper/deep file.bin")
	ok(t, "mcopy", "-i", img, filepath.Join(dir, "deep"), "::/A/sub/s.bin")
}

// checkUndoState holds a state to checkState, or, where it fails, a copy
// of it with the undo file applied (the state itself stays as it is: the
// next states are built on it).
func (rr *replayRun) checkUndoState() error {
	err := rr.checkState()
	if err == nil {
		return nil
	}
	state := rr.state
	cp := state + ".undone"
	defer func() { rr.state = state; os.Remove(cp) }()
	if out, cerr := exec.Command("cp", "--sparse=always", state, cp).CombinedOutput(); cerr != nil {
		return fmt.Errorf("copying the state: %v %s", cerr, out)
	}
	undo := filepath.Join(filepath.Dir(state), strings.TrimPrefix(rr.rc.undo, "DIR/"))
	if out, uerr := exec.Command("fresize", "--undo-apply", undo, cp).CombinedOutput(); uerr != nil {
		return fmt.Errorf("%v; and fresize --undo-apply fails: %v %s", err, uerr, out)
	}
	rr.state = cp
	if uerr := rr.checkState(); uerr != nil {
		return fmt.Errorf("%v; and after fresize --undo-apply: %w", err, uerr)
	}
	return nil
}

// replayCases are the writers, each on a volume that holds files already.
func replayCases() []*replayCase {
	// fsck.fat's words for two names that share clusters (an interrupted
	// rename: checkState makes sure both names are there), and for what it
	// would do about it: truncate one name, and for a directory fix the
	// ".." entry under the name whose parent it does not name.
	interrupted := []*regexp.Regexp{
		regexp.MustCompile(`^/.*$`),
		regexp.MustCompile(`^  share clusters\.$`),
		regexp.MustCompile(`^  Truncating (first|second) to 0 bytes\.$`),
		regexp.MustCompile(`^  File size is \d+ bytes, cluster chain length is 0 bytes\.$`),
		regexp.MustCompile(`^  Truncating file to 0 bytes\.$`),
		regexp.MustCompile(`^  Invalid '\.\.' entry in the second slot\. Fixing\.$`),
	}
	// The boot sectors' label is written after the root directory's label
	// entry (what readers show; fsck.fat copies it into the boot sector):
	// a cut in between leaves the two different, and the FAT32 backup boot
	// sector may differ from the primary in the label's bytes (71-81).
	label := []*regexp.Regexp{
		regexp.MustCompile(`^Volume label '.*' stored in root directory and label '.*' stored in boot sector and different\.$`),
		regexp.MustCompile(`^  Auto-copying volume label from root directory to boot sector\.$`),
		regexp.MustCompile(`^There are differences between boot sector and its backup\.$`),
		regexp.MustCompile(`^This is mostly harmless\. Differences: \(offset:original/backup\)$`),
		regexp.MustCompile(`^  (, )?((65|7[1-9]|8[01]):[0-9a-f]{2}/[0-9a-f]{2}(, )?)+$`),
		regexp.MustCompile(`^  Not automatically fixing this\.$`),
	}
	// ffallocate makes a file longer by linking the new (zeroed) clusters
	// to its chain first and writing its new size only once they are
	// durable: a cut in between leaves the file with its old size and
	// bytes, and a chain longer than it (excess clusters, which fsck.fat
	// and fverify trim as they would lost ones). The other order would
	// leave a file longer than its chain, unreadable past the chain's end.
	extension := []*regexp.Regexp{
		regexp.MustCompile(`^/OLD/file with a long name 03\.bin$`),
		regexp.MustCompile(`^  File size is 3000 bytes, cluster chain length is > \d+ bytes\.$`),
		regexp.MustCompile(`^  Truncating file to 3000 bytes\.$`),
	}
	// fsort switches the FAT32 root by its boot sector field (bytes 44-47)
	// and then the backup's: a cut between leaves them different; a
	// directory below it switched before its subdirectories' ".." entries
	// leaves those stale. The FAT16 root is sorted in place, each entry
	// copied before its old place is freed: a cut between leaves it twice.
	sorted := append(append([]*regexp.Regexp{
		regexp.MustCompile(`^  (, )?((4[4-7]|65):[0-9a-f]{2}/[0-9a-f]{2}(, )?)+$`),
		regexp.MustCompile(`^  Duplicate directory entry\.$`),
		regexp.MustCompile(`^  (First|Second) +Size \d+ bytes, date .*$`),
		regexp.MustCompile(`^  Auto-renaming second\.$`),
		regexp.MustCompile(`^  Renamed to FSCK\d+\.\d+$`),
	}, label...), interrupted...)
	sortedRoot := [][2]string{{"A", "A"}, {"B", "B"}, {"old", "old"}, {"empty1", "empty1"}, {"empty2", "empty2"}}
	prepSrc := func(sizes ...int) func(t *testing.T, img, dir string) {
		return func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			hostFiles(t, dir, "src", 1, sizes...)
		}
	}
	return []*replayCase{
		{name: "fcp-new-files", fat: "32", prepare: prepSrc(0, 1, 511, 512, 513, 5000, 70000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src/.", "::/old"}, minFlushes: 3},
		{name: "fcp-tree", fat: "32", prepare: prepSrc(100, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 14000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/new tree"}, minFlushes: 3},
		{name: "fcp-big-dir", fat: "32", prepare: prepSrc(manySizes(60)...),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/new tree"}, minFlushes: 3},
		{name: "fcp-tree-fat16", fat: "16", prepare: prepSrc(100, 2000, 3000, 4000, 5000, 6000, 7000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/"}, minFlushes: 3},
		{name: "fcp-tree-fat12", fat: "12", prepare: prepSrc(100, 2000, 3000, 4000, 5000),
			args: []string{"fcp", "-r", "-i", "IMG", "DIR/src", "::/new"}, minFlushes: 2}, // FAT12 has no dirty bit
		{name: "fcp-replace", fat: "32", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			writeFile(t, filepath.Join(dir, "r1"), 12000, 201)
			writeFile(t, filepath.Join(dir, "r2"), 10, 202)
		}, args: []string{"fcp", "-i", "IMG", "DIR/r1", "::/old/file with a long name 03.bin"}, minFlushes: 3},
		{name: "fcp-replace-tight", fat: "16", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			tightVolume(t, img, dir, "::/kernel8.img", 3<<20, 1<<20)
			writeFile(t, filepath.Join(dir, "k2"), 3<<20+5000, 203)
		}, args: []string{"fcp", "-i", "IMG", "DIR/k2", "::/kernel8.img"}, mayEmpty: []string{"kernel8.img"}, minFlushes: 5},
		{name: "fcp-sync-file", fat: "32", prepare: prepSrc(100, 2000, 3000, 4000, 5000),
			args: []string{"fcp", "-r", "--sync", "file", "-i", "IMG", "DIR/src", "::/new"}, minFlushes: 6},
		{name: "fcp-sync-always", fat: "32", prepare: prepSrc(100, 2000, 3000),
			args: []string{"fcp", "-r", "--sync", "always", "-i", "IMG", "DIR/src", "::/new"}},
		{name: "fcp-sync-none", fat: "32", prepare: prepSrc(100, 2000, 3000, 4000),
			args: []string{"fcp", "-r", "--sync", "none", "-i", "IMG", "DIR/src", "::/new"}, prefixOnly: true},
		{name: "frm", fat: "32", prepare: oldTree,
			args: []string{"frm", "-i", "IMG", "::/old/file with a long name 03.bin", "::/A/a fairly long name 1.txt", "::/B/b-file-name-4.txt"}, minFlushes: 3},
		{name: "frm-r", fat: "32", prepare: oldTree,
			args: []string{"frm", "-r", "-i", "IMG", "::/A/sub"}, minFlushes: 3},
		{name: "fmv-within-dir", fat: "32", prepare: oldTree,
			args:  []string{"fmv", "-i", "IMG", "::/A/x.bin", "::/A/a much longer name for x.bin"},
			moved: [][2]string{{"A/x.bin", "A/a much longer name for x.bin"}}, allowFsck: interrupted, allowKinds: []string{fat.KindRename}, minFlushes: 3},
		{name: "fmv-across-dirs", fat: "32", prepare: oldTree,
			args:  []string{"fmv", "-i", "IMG", "::/A/HELLO.TXT", "::/B/"},
			moved: [][2]string{{"A/HELLO.TXT", "B/HELLO.TXT"}}, allowFsck: interrupted, allowKinds: []string{fat.KindRename}, minFlushes: 3},
		{name: "fmv-dir-across-dirs", fat: "32", prepare: oldTree,
			args:  []string{"fmv", "-i", "IMG", "::/A/sub", "::/B/moved sub"},
			moved: [][2]string{{"A/sub", "B/moved sub"}}, allowFsck: interrupted, allowKinds: []string{fat.KindRename, fat.KindDotDot}, minFlushes: 3},
		{name: "fmv-replace", fat: "32", prepare: oldTree,
			args:  []string{"fmv", "-i", "IMG", "::/A/another long file name 2.dat", "::/B/b-file-name-7.txt"},
			moved: [][2]string{{"A/another long file name 2.dat", "B/b-file-name-7.txt"}}, allowFsck: interrupted, allowKinds: []string{fat.KindRename}, minFlushes: 3},
		{name: "fmv-fat16-root", fat: "16", prepare: oldTree,
			args:  []string{"fmv", "-i", "IMG", "::/A/x.bin", "::/x moved to the root.bin"},
			moved: [][2]string{{"A/x.bin", "x moved to the root.bin"}}, allowFsck: interrupted, allowKinds: []string{fat.KindRename}, minFlushes: 3},
		{name: "fmkdir", fat: "32", prepare: oldTree,
			args: []string{"fmkdir", "-p", "-i", "IMG", "::/B/new folder/inside", "::/another new folder", "::/old/n"}, minFlushes: 3},
		{name: "frmdir", fat: "32", prepare: oldTree,
			args: []string{"frmdir", "-i", "IMG", "::/empty1", "::/empty2", "::/A"}, exit: 1, minFlushes: 3},
		{name: "fattrib", fat: "32", prepare: oldTree,
			args: []string{"fattrib", "+r", "+h", "-i", "IMG", "::/old/file with a long name 04.bin", "::/A/HELLO.TXT"}, minFlushes: 3},
		{name: "flabel", fat: "32", prepare: oldTree,
			args: []string{"flabel", "-i", "IMG", "NEW LABEL"}, allowFsck: label, allowKinds: []string{fat.KindLabel, fat.KindBackupBoot}, minFlushes: 3},
		{name: "flabel-fat16", fat: "16", prepare: oldTree,
			args: []string{"flabel", "-i", "IMG", "OTHER"}, allowFsck: label, allowKinds: []string{fat.KindLabel}, minFlushes: 3},
		{name: "ffallocate-new", fat: "32", prepare: oldTree,
			args: []string{"ffallocate", "-l", "300K", "-i", "IMG", "::/B/preallocated file.bin"}, minFlushes: 3},
		{name: "ffallocate-extend", fat: "32", prepare: oldTree,
			args:      []string{"ffallocate", "-l", "100K", "-i", "IMG", "::/old/file with a long name 03.bin"},
			allowFsck: extension, allowKinds: []string{fat.KindSize}, minFlushes: 3},
		{name: "fsinfo-next-cluster", fat: "32", prepare: oldTree,
			args: []string{"fsinfo", "--next-cluster", "5000", "IMG"}, minFlushes: 2},
		{name: "fsinfo-recount", fat: "32", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "fsinfo", "--free-count", "7", img)
		}, damaged: true, args: []string{"fsinfo", "--recount", "IMG"}, minFlushes: 2},
		{name: "ftrim", fat: "32", prepare: trimmable(oldTree),
			args: []string{"ftrim", "IMG"}},
		{name: "ftrim-fat16", fat: "16", prepare: trimmable(oldTree),
			args: []string{"ftrim", "--minimum", "4K", "IMG"}},
		{name: "fsort", fat: "32", prepare: oldTree,
			args: []string{"fsort", "-r", "IMG"}, allowFsck: sorted, allowKinds: []string{fat.KindBackupBoot, fat.KindRename, fat.KindDotDot}, minFlushes: 4},
		{name: "fsort-fat16", fat: "16", prepare: oldTree, moved: sortedRoot,
			args: []string{"fsort", "-r", "IMG"}, allowFsck: sorted, allowKinds: []string{fat.KindRename, fat.KindDotDot}, minFlushes: 4},
		{name: "fverify-repair", fat: "32", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "fsinfo", "--free-count", "7", img)
			damageFAT2(t, img)
		}, damaged: true, args: []string{"fverify", "--repair", "IMG"}, exit: 1, minFlushes: 1},
		// fresize: the boot sector (then its backup) is the last write;
		// a cut before it leaves the old size with the moved files whole
		// in their old or new clusters (lost clusters at worst), after
		// it the new size, and between the two boot sectors a backup
		// that differs from the primary.
		{name: "fresize-shrink", fat: "32", prepare: beyondEnd(36 << 20),
			args: []string{"fresize", "IMG", "36M"}, minFlushes: 6, allowFsck: backupDiffers, allowKinds: []string{fat.KindBackupBoot}},
		{name: "fresize-shrink-fat12", fat: "12", prepare: beyondEnd(1536 << 10),
			args: []string{"fresize", "IMG", "1536K"}, minFlushes: 5},
		{name: "fresize-grow-fat16", fat: "16", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "fresize", img, "12M")
			ok(t, "truncate", "-s", "16M", img)
		}, args: []string{"fresize", "IMG", "max"}, minFlushes: 3},
		{name: "fresize-grow", fat: "32", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "fresize", img, "36M")
			ok(t, "truncate", "-s", "40M", img)
		}, args: []string{"fresize", "IMG", "max"}, minFlushes: 3, allowFsck: backupDiffers, allowKinds: []string{fat.KindBackupBoot}},
		// With the partition: shrink the volume, then the MBR entry; grow
		// a GPT entry, then the volume (a partition larger than its
		// volume is valid).
		{name: "fresize-partition-mbr", fat: "32", size: "48M", tableAt: 1 << 20, prepare: inPartition("mbr", "48M"),
			args: []string{"fresize", "--resize-partition", "IMG", "40M"}, minFlushes: 4, allowFsck: backupDiffers, allowKinds: []string{fat.KindBackupBoot}},
		{name: "fresize-partition-gpt", fat: "32", size: "64M", tableAt: 1 << 20, prepare: func(t *testing.T, img, dir string) {
			inPartition("gpt", "64M")(t, img, dir)
			ok(t, "fresize", "--resize-partition", img, "40M")
		}, args: []string{"fresize", "--resize-partition", "IMG", "max"}, minFlushes: 4, allowFsck: backupDiffers, allowKinds: []string{fat.KindBackupBoot},
			noKill: "fresize opens the image twice (the table, then the volume): the kill harness reads the first close as the end of the run"},
		// Past the FATs' spare sectors: the data area moves, which no
		// order makes safe; every state is whole as it is or once the
		// undo file is applied.
		{name: "fresize-undo-fat16", fat: "16", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "truncate", "-s", "40M", img)
		}, args: []string{"fresize", "--force", "--undo", "DIR/undo", "IMG", "max"}, minFlushes: 3, undo: "DIR/undo",
			noKill: undoNoKill},
		{name: "fresize-undo", fat: "32", prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			ok(t, "truncate", "-s", "80M", img)
		}, args: []string{"fresize", "--force", "--undo", "DIR/undo", "IMG", "max"}, minFlushes: 3, undo: "DIR/undo", allowFsck: backupDiffers, allowKinds: []string{fat.KindBackupBoot},
			noKill: undoNoKill},
	}
}

// undoNoKill: the undo path's logged writes ride on few system calls (the
// rewrite goes out in large batches), so a kill after a given write lands
// after the run has ended; its states are the replay's.
const undoNoKill = "the kill does not land mid-run: a few large batches carry all its writes"

// inPartition makes the image a disk of size with a table of kind and a
// FAT32 in its one partition (at 1 MiB), holding the trees beyondEnd puts
// there for a shrink to 40 MiB.
func inPartition(kind, size string) func(t *testing.T, img, dir string) {
	return func(t *testing.T, img, dir string) {
		t.Helper()
		os.Remove(img)
		ok(t, "fmkfs", "--size", size, "--table", kind, "--fat", "32", "--cluster-size", "512", "--label", "OLDLABEL", img)
		ok(t, "fcp", "-r", "-i", img, hostFiles(t, dir, "old", 100, 0, 1, 700, 3000, 9000, 40000), "::/old")
		ok(t, "fmkdir", "-i", img, "::/A", "::/A/sub")
		writeFile(t, filepath.Join(dir, "filler"), 30<<20, 204)
		ok(t, "fcp", "-i", img, filepath.Join(dir, "filler"), "::/filler.bin")
		late := hostFiles(t, dir, "late", 30, 100, 3000, 9000, 2000)
		ok(t, "fcp", "-r", "-i", img, late, "::/A/sub/late")
		ok(t, "frm", "-i", img, "::/filler.bin")
	}
}

// backupDiffers are fsck.fat's words for a FAT32 backup boot sector that
// differs from the primary in any bytes (fresize writes the backup after
// the primary, each flushed).
var backupDiffers = []*regexp.Regexp{
	regexp.MustCompile(`^There are differences between boot sector and its backup\.$`),
	regexp.MustCompile(`^This is mostly harmless\. Differences: \(offset:original/backup\)$`),
	regexp.MustCompile(`^  (, )?((\d+):[0-9a-f]{2}/[0-9a-f]{2}(, )?)+$`),
	regexp.MustCompile(`^  Not automatically fixing this\.$`),
}

// beyondEnd is oldTree plus a tree that straddles byte end of the volume
// (a filler, written before it and removed after, takes the room below):
// shrinking to end moves its clusters past it, and the chains and
// folders that lead there.
func beyondEnd(end int64) func(t *testing.T, img, dir string) {
	return beyondEndOf(oldTree, end)
}

// beyondEndOf is beyondEnd on the tree prepare writes (oldTree on FAT,
// exfatOldTree on exFAT).
func beyondEndOf(prepare func(t *testing.T, img, dir string), end int64) func(t *testing.T, img, dir string) {
	return func(t *testing.T, img, dir string) {
		t.Helper()
		prepare(t, img, dir)
		var fi fsinfoJSON
		jsonOut(t, &fi, "fsinfo", "--json", img)
		fill := int64(fi.FreeClusters)*fi.ClusterSize - (fi.TotalSectors*int64(fi.BytesPerSector) - end) - 6*fi.ClusterSize
		writeFile(t, filepath.Join(dir, "filler"), int(fill), 204)
		ok(t, "fcp", "-i", img, filepath.Join(dir, "filler"), "::/filler.bin")
		late := hostFiles(t, dir, "late", 30, 100, 3000, 9000, 2000)
		ok(t, "fcp", "-r", "-i", img, late, "::/A/sub/late")
		ok(t, "fmkdir", "-i", img, "::/A/sub/late/empty")
		ok(t, "frm", "-i", img, "::/filler.bin")
	}
}

// trimmable is prepare (a tree of files) with one directory of them
// removed: free clusters that hold old data, for ftrim to discard.
func trimmable(prepare func(t *testing.T, img, dir string)) func(t *testing.T, img, dir string) {
	return func(t *testing.T, img, dir string) {
		prepare(t, img, dir)
		ok(t, "frm", "-r", "-i", img, "::/old")
	}
}

// tightVolume puts a file of size bytes at dst, then fills the volume
// until free bytes (rounded to clusters) are left: a new file larger than
// free fits only in dst's clusters.
func tightVolume(t *testing.T, img, dir, dst string, size, free int64) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "kernel"), int(size), 202)
	ok(t, "fcp", "-i", img, filepath.Join(dir, "kernel"), dst)
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	have := int64(fi.FreeClusters) * fi.ClusterSize
	fill := have - free
	if fill <= 0 {
		t.Fatalf("%d bytes free, want more than %d", have, free)
	}
	writeFile(t, filepath.Join(dir, "filler"), int(fill), 204)
	ok(t, "fcp", "-i", img, filepath.Join(dir, "filler"), "::/filler.bin")
}

// damageFAT2 flips a byte of the second FAT's free area, so that the
// copies differ while the first is intact.
func damageFAT2(t *testing.T, img string) {
	t.Helper()
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 512)
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	reserved := int64(b[14]) | int64(b[15])<<8
	fatSectors := int64(b[36]) | int64(b[37])<<8 | int64(b[38])<<16 | int64(b[39])<<24
	off := (reserved+fatSectors)*512 + 4*2000
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0x0f}, off); err != nil {
		t.Fatal(err)
	}
}

func TestReplayWriters(t *testing.T) {
	for i, rc := range replayCases() {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			rr := recordRun(t, rc)
			n, err := rr.replay(t, uint64(i+1))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// fmkfs over an image that holds another file system: a cut leaves the
// old volume, the new one, or something both checkers refuse or report;
// never a clean volume showing the old one's files through the new one.
//
// fat16-to-fat32 makes a FAT32 over a FAT16 whose files and directories lie
// where the new FATs go: zeroing them while the old boot sector survives
// would leave the old volume looking valid with zeroed data, so the old
// boot sector must be gone, durably, before anything else is zeroed.
func TestReplayFmkfs(t *testing.T) {
	thirtyDirs := func(t *testing.T, img, dir string) {
		src := filepath.Join(dir, "f.bin")
		writeFile(t, src, 5000, 31)
		ok(t, "fcp", "-i", img, src, "::/FILE.BIN")
		var dirs []string
		for i := 0; i < 30; i++ {
			dirs = append(dirs, fmt.Sprintf("::/DIR%02d", i))
		}
		ok(t, "fmkdir", append([]string{"-i", img}, dirs...)...)
	}
	// withHostTree prepares the image as prepare does and writes the host
	// tree fmkfs --from copies in: a cut while it fills the new volume
	// must leave it dirty (not clean and complete) until the fill is done.
	withHostTree := func(prepare func(t *testing.T, img, dir string)) func(t *testing.T, img, dir string) {
		return func(t *testing.T, img, dir string) {
			prepare(t, img, dir)
			host := filepath.Join(dir, "tree")
			mustMkdir(t, filepath.Join(host, "sub", "deeper"))
			for i, n := range []string{"a file with a long name.bin", "SHORT.TXT", "sub/big.bin", "sub/deeper/x.dat"} {
				writeFile(t, filepath.Join(host, n), 3000+i*70000, byte(40+i))
			}
		}
	}
	for i, tc := range []struct {
		name, fat, size, newFat string
		prepare                 func(t *testing.T, img, dir string)
		table                   string // fmkfs --table: the partition starts at 1 MiB
		from                    bool   // fmkfs --from DIR/tree
	}{
		{"fat32", "32", "", "32", oldTree, "", false},
		{"fat16", "16", "", "16", oldTree, "", false},
		{"fat16-to-fat32", "16", "40M", "32", thirtyDirs, "", false},
		{"fat32-table-mbr", "32", "", "32", oldTree, "mbr", false},
		{"fat16-table-gpt", "16", "", "16", oldTree, "gpt", false},
		{"fat16-from", "16", "", "16", withHostTree(oldTree), "", true},
		{"fat32-from-table-mbr", "32", "", "32", withHostTree(oldTree), "mbr", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"fmkfs", "--fat", tc.newFat, "--label", "NEWFS"}
			var at int64
			if tc.table != "" {
				args, at = append(args, "--table", tc.table, "--force"), 1<<20
			}
			if tc.from {
				args = append(args, "--from", "DIR/tree")
			}
			rc := &replayCase{name: "fmkfs-" + tc.name, fat: tc.fat, size: tc.size, prepare: tc.prepare, format: true, tableAt: at,
				args: append(args, "IMG"), minFlushes: 2}
			rr := recordRun(t, rc)
			if writelog.Discards(rr.ops) != 1 {
				t.Errorf("fmkfs logged %d discards, want 1 (the volume's range)", writelog.Discards(rr.ops))
			}
			rr.oldFilesZeroed(t)
			n, err := rr.replay(t, uint64(100+i))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// oldFilesZeroed checks, for each flush epoch of a fmkfs run, a state the
// random samples reach only by luck: every epoch before it whole, and of
// it only what lands on the old volume's file data. If the run zeroes or
// writes there before the wipe of the old boot sector is durable, the old
// volume still reads as valid, with its files' bytes gone.
func (rr *replayRun) oldFilesZeroed(t *testing.T) {
	t.Helper()
	orig := rr.state + ".orig"
	ok(t, "cp", "--sparse=always", rr.state, orig)
	defer ok(t, "cp", "--sparse=always", orig, rr.state)
	var old fsinfoJSON
	jsonOut(t, &old, "fsinfo", "--json", orig)
	dataOff := (int64(old.ReservedSectors)+int64(old.NumFATs)*old.FATSectors)*int64(old.BytesPerSector) + int64(old.RootEntries)*32
	var ls struct {
		Entries []struct {
			Size  int64  `json:"size"`
			First uint32 `json:"first_cluster"`
			Runs  int    `json:"runs"`
			Dir   bool   `json:"dir"`
		} `json:"entries"`
	}
	jsonOut(t, &ls, "fls", "--json", "-R", "-i", orig, "::/")
	var files [][2]int64 // byte ranges of the old files' data
	for _, e := range ls.Entries {
		if e.Dir || e.Size == 0 {
			continue
		}
		if e.Runs != 1 {
			t.Fatalf("an old file lies in %d runs; the test wants one", e.Runs)
		}
		start := dataOff + int64(e.First-2)*old.ClusterSize
		files = append(files, [2]int64{start, start + e.Size})
	}
	if len(files) == 0 {
		t.Fatal("the old volume holds no file data")
	}
	var epochs [][]writelog.Op
	cur := []writelog.Op{}
	for _, o := range rr.ops {
		if o.Kind == writelog.KindFlush {
			epochs, cur = append(epochs, cur), []writelog.Op{}
			continue
		}
		cur = append(cur, o)
	}
	epochs = append(epochs, cur)
	for e := range epochs {
		ok(t, "cp", "--sparse=always", orig, rr.state)
		f, err := os.OpenFile(rr.state, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		put := func(o writelog.Op, from, to int64) {
			if from >= to {
				return
			}
			b := make([]byte, to-from)
			if o.Kind == writelog.KindWrite {
				copy(b, o.Data[from-o.Off:])
			}
			if _, err := f.WriteAt(b, from); err != nil {
				t.Fatal(err)
			}
		}
		for k, ops := range epochs[:e+1] {
			for _, o := range ops {
				if k < e {
					put(o, o.Off, o.Off+o.N)
					continue
				}
				for _, r := range files {
					put(o, max(o.Off, r[0]), min(o.Off+o.N, r[1]))
				}
			}
		}
		f.Close()
		if err := rr.checkFormatState(); err != nil {
			t.Fatalf("epochs before %d landed, and of epoch %d only what lies on the old files' data: %v", e, e, err)
		}
	}
}

// errPlanted is what the planted misordering must make the harness say.
var errPlanted = errors.New("the harness found nothing wrong with a build that writes entries before data")

// The harness catches a writer that breaks the order: a build of fcp with
// the test-only hook ftools_plant_misorder writes directory entries and
// FATs before the file data, with no flush between. Replaying its run must
// find a state where an entry names data that is not there.
func TestReplayCatchesPlantedMisorder(t *testing.T) {
	planted := filepath.Join(t.TempDir(), "planted")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-tags", "ftools_plant_misorder", "-o", planted+"/", "./cmd/fcp")
	build.Dir = filepath.Dir(filepath.Dir(file))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the planted fcp: %v\n%s", err, out)
	}
	rc := &replayCase{name: "planted", fat: "32",
		prepare: func(t *testing.T, img, dir string) {
			oldTree(t, img, dir)
			hostFiles(t, dir, "src", 9, 3000, 5000, 7000)
		},
		args: []string{filepath.Join(planted, "fcp"), "-r", "-i", "IMG", "DIR/src", "::/new"}}
	rr := recordRun(t, rc)
	n, err := rr.replay(t, 7)
	if err == nil {
		t.Fatalf("%v (%d states)", errPlanted, n)
	}
	if !strings.Contains(err.Error(), "neither its") && !strings.Contains(err.Error(), "fsck.fat -n says") {
		t.Fatalf("the harness failed the planted build for another reason: %v", err)
	}
	t.Logf("caught after %d states: %v", n, firstLine(err.Error()))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
