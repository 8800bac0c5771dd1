package tests

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// allowedAfterCrash are the only things fsck.fat -n may say about a volume
// whose writer was killed (or lost power): the dirty bit, lost (unused but
// allocated) clusters, a stale free count, and FAT copies that differ while
// the first is intact (the copies are written one after the other; fsck.fat
// and the Linux driver use the first). Never a cross-link, a file longer
// than its chain, or a damaged directory. The dirty bit lives in the
// primary boot sector only (as Linux keeps it), so fsck.fat also notes that
// the backup differs in exactly that byte (0x41 on FAT32, 0x25 on
// FAT12/16).
var allowedAfterCrash = regexp.MustCompile(`^(fsck\.fat .*|There are differences between boot sector and its backup\.|This is mostly harmless\. Differences: \(offset:original/backup\)|  (65|37):01/00|  Not automatically fixing this\.|Dirty bit is set\. Fs was not properly unmounted and some data may be corrupt\.| Automatically removing dirty bit\.|FATs differ but appear to be intact\.|  Using first FAT\.|Reclaimed \d+ unused clusters? \(\d+ bytes\)( in \d+ chains?)?\.|Free cluster summary wrong \(\d+ vs\. really \d+\)|  Auto-correcting\.|Leaving filesystem unchanged\.|.*: \d+ files, \d+/\d+ clusters|)$`)

// The kill tests. A process crash (SIGKILL) leaves on the device exactly
// the writes the process had issued, in order: an in-order prefix of its
// write log. Each kill here lands at a chosen write: the command runs
// under strace, which delays every write, zeroing call and flush on entry,
// and the test reads the command's write log (FTOOLS_WRITE_LOG) as it
// grows and sends SIGKILL once the chosen number of writes is done, while
// the next one waits. The test asserts that the kill landed mid-run (at
// least one write done, the device not closed, the command killed rather
// than finished) and holds the image to the same rules as the replay
// tests: fsck.fat's allowed list, fverify agreeing, everything the run kept
// still there, every file holding exactly its bytes from before or after
// the run.

// killDelay is how long strace holds each write before it runs: the time
// the test has to send the kill. killAt tries once more with five times
// as long when a loaded machine let the command finish first.
const killDelay = 20 * time.Millisecond

// killAt runs the case's command on a copy of base and kills it once it
// has done k writes (zeroing calls included). It returns the killed image
// and the writes that landed.
func killAt(t *testing.T, rc *replayCase, base, dir string, k int) (string, int) {
	t.Helper()
	img, writes, finished := killAtDelay(t, rc, base, dir, k, killDelay)
	if finished {
		t.Logf("%s finished before the kill after write %d; again with a longer delay", rc.name, k)
		img, writes, finished = killAtDelay(t, rc, base, dir, k, 5*killDelay)
	}
	if finished {
		t.Fatalf("%s finished before the kill after write %d, twice: the kill did not land mid-run", rc.name, k)
	}
	return img, writes
}

// killAtDelay is one try of killAt, strace holding each write for delay;
// finished says the command ended before the kill.
func killAtDelay(t *testing.T, rc *replayCase, base, dir string, k int, delay time.Duration) (string, int, bool) {
	t.Helper()
	need(t, "strace")
	img := filepath.Join(dir, fmt.Sprintf("killed-%d.img", k))
	ok(t, "cp", "--sparse=always", base, img)
	logPath := filepath.Join(dir, fmt.Sprintf("kill-%d.log", k))
	os.Remove(logPath)
	args := rc.expand(img, filepath.Dir(base))
	sargs := append([]string{"-f", "-qq", "-o", "/dev/null",
		"-e", "trace=pwrite64,pwritev,fallocate,fdatasync,ioctl",
		"-e", fmt.Sprintf("inject=pwrite64,pwritev,fallocate,fdatasync,ioctl:delay_enter=%d", delay.Microseconds())},
		args...)
	cmd := exec.Command("strace", sargs...)
	cmd.Env = append(os.Environ(), fio.EnvWriteLog+"="+logPath)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	abs, _ := filepath.Abs(img)
	var (
		pos            int64
		dev            uint64
		writes, closes int
		killed         bool
	)
	deadline := time.Now().Add(2 * time.Minute)
	for !killed {
		select {
		case <-done:
			return img, writes, true // it ended on its own, whatever its status
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s: no write %d after 2 minutes", strings.Join(args, " "), k)
		}
		b := readFrom(logPath, pos)
		for off := int64(0); off < int64(len(b)); {
			rec, n, err := writelog.Decode(b[off:])
			if errors.Is(err, writelog.ErrShort) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			pos, off = pos+int64(n), off+int64(n)
			switch {
			case rec.Kind == writelog.KindOpen && rec.Path == abs:
				dev = rec.Dev
			case rec.Dev != dev || dev == 0:
			case rec.Kind == writelog.KindWrite || rec.Kind == writelog.KindZero || rec.Kind == writelog.KindDiscard:
				writes++ // as writelog.Counts counts them
			case rec.Kind == writelog.KindClose:
				closes++
			}
		}
		if writes >= k {
			// The device numbers of a log start from the writer's PID.
			if err := syscall.Kill(int(dev>>20), syscall.SIGKILL); err != nil {
				t.Fatalf("killing %d: %v", dev>>20, err)
			}
			killed = true
			break
		}
		time.Sleep(time.Millisecond)
	}
	err := <-done
	// strace passes the death on: it exits with 128+9, or kills itself
	// with the same signal. Any other status: the command ended before
	// the kill reached it.
	var ee *exec.ExitError
	ws, _ := cmdWaitStatus(err, &ee)
	if !(ws.Exited() && ws.ExitStatus() == 128+int(syscall.SIGKILL)) && !(ws.Signaled() && ws.Signal() == syscall.SIGKILL) {
		return img, writes, true
	}
	if writes < 1 || closes > 0 {
		t.Fatalf("%s: killed after %d writes with the device closed %d times: not mid-run", strings.Join(args, " "), writes, closes)
	}
	return img, writes, false
}

// readFrom returns the bytes of the file at path from offset pos on.
func readFrom(path string, pos int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= pos {
		return nil
	}
	b := make([]byte, fi.Size()-pos)
	n, _ := f.ReadAt(b, pos)
	return b[:n]
}

// cmdWaitStatus is the wait status behind a command's error.
func cmdWaitStatus(err error, ee **exec.ExitError) (syscall.WaitStatus, bool) {
	if !errors.As(err, ee) {
		return 0, false
	}
	ws, ok := (*ee).Sys().(syscall.WaitStatus)
	return ws, ok
}

// killPoints spreads up to n kill points over a run of w writes: each
// after k writes, 1 <= k < w.
func killPoints(w, n int) []int {
	var ks []int
	for i := 1; i <= n; i++ {
		k := i * w / (n + 1)
		if k >= 1 && k < w && (len(ks) == 0 || ks[len(ks)-1] != k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// Every writer, killed at spread points of its run.
func TestKillEveryWriter(t *testing.T) {
	for _, rc := range replayCases() {
		if rc.prefixOnly || strings.Contains(strings.Join(rc.args, " "), "--sync") {
			continue // the policy does not change what a kill leaves
		}
		if rc.noKill != "" {
			t.Logf("%s: not killed: %s", rc.name, rc.noKill)
			continue
		}
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			killCase(t, rc, 4)
		})
	}
	for _, f := range []string{"32", "16"} {
		rc := &replayCase{name: "fmkfs-" + f, fat: f, prepare: oldTree, format: true,
			args: []string{"fmkfs", "--fat", f, "--label", "NEWFS", "IMG"}}
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			killCase(t, rc, 4)
		})
	}
}

// killCase records a full run of rc, then kills it at up to n points and
// checks each image.
func killCase(t *testing.T, rc *replayCase, n int) {
	t.Helper()
	rr := recordRun(t, rc)
	base := rr.state
	w, _ := writelog.Counts(rr.ops)
	for _, k := range killPoints(w, n) {
		img, writes := killAt(t, rc, base, t.TempDir(), k)
		rr.state = img
		var err error
		if rc.format {
			err = rr.checkFormatState()
		} else {
			err = rr.checkState()
		}
		if err != nil {
			t.Fatalf("%s killed after %d of %d writes: %v", rc.name, writes, w, err)
		}
	}
}

// A large tree copy (150 files of 256 KiB; 40 under --sync file, which
// makes seven requests of each) killed at spread points: the files that
// were there before are unchanged, and every copied file that is there
// holds exactly its source's bytes. (The test reads the whole write log
// of the run: bigger files would swell the test process, whose peak
// resident set every command it starts inherits as its own starting
// peak, which TestDamagedCorpus bounds.)
func TestCrashConsistency(t *testing.T) {
	need(t, "fsck.fat")
	for _, c := range []struct {
		sync  string
		files int
	}{{"close", 150}, {"file", 40}} {
		sync := c.sync
		t.Run(sync, func(t *testing.T) {
			t.Parallel()
			rc := &replayCase{name: "fcp-big-tree-" + sync, fat: "32",
				prepare: func(t *testing.T, img, dir string) {
					old := filepath.Join(dir, "old")
					bigTree(t, old, 20, 100_000)
					ok(t, "fcp", "-r", "-i", img, old, "::/old")
					bigTree(t, filepath.Join(dir, "src"), c.files, 256<<10)
				},
				args: []string{"fcp", "-r", "--sync", sync, "-i", "IMG", "DIR/src", "::/new"}}
			rc.size = "100M"
			killCase(t, rc, 6)
		})
	}
}
