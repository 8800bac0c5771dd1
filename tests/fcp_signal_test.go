package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopWithin is how soon fcp must exit after a signal: "about a second",
// with room for a busy test machine.
const stopWithin = 3 * time.Second

// usedBytes is the space an image file takes on the host.
func usedBytes(t *testing.T, img string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(img, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// signalled is a finished fcp that a test signalled.
type signalled struct {
	code   int
	stderr string
	took   time.Duration // from the signal to the exit
}

// signalFcp starts fcp, waits until ready says the copy is where the test
// wants it, sends the signals (the first, then the others right after it)
// and waits for the exit.
func signalFcp(t *testing.T, stdin *os.File, ready func() bool, sigs []syscall.Signal, args ...string) signalled {
	t.Helper()
	cmd := exec.Command("fcp", args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("fcp %s ended before the signal: %v\n%s", strings.Join(args, " "), err, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the copy never reached the point to signal")
		}
	}
	start := time.Now()
	for i, s := range sigs {
		if i > 0 {
			// Later signals come while fcp stops, not in the same
			// instant: Linux hands signals sent together to whichever of
			// a process's threads runs first, so their order is not kept.
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(s)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("fcp did not exit within 30 s of %v", sigs)
	}
	return signalled{code: cmd.ProcessState.ExitCode(), stderr: errb.String(), took: time.Since(start)}
}

// checkStopped holds a stopped fcp to its promises: the status the signal
// gives, one message, and a volume that fsck.fat and fverify call clean
// (dirty bit cleared, no lost clusters: the partial file's are free).
func checkStopped(t *testing.T, r signalled, want int, sigName, img string) {
	t.Helper()
	t.Logf("exit %d %v after the signal: %s", r.code, r.took, strings.TrimSpace(r.stderr))
	if r.code != want {
		t.Errorf("exit status %d, want %d", r.code, want)
	}
	if r.took > stopWithin {
		t.Errorf("fcp took %v to stop, want under %v", r.took, stopWithin)
	}
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "interrupted by "+sigName) {
		t.Errorf("want one message naming %s, got:\n%s", sigName, r.stderr)
	}
	fsckClean(t, img, 0)
	if v := run(t, "fverify", img); v.code != 0 {
		t.Errorf("fverify: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if fi := volInfo(t, img, 0); fi.Dirty {
		t.Error("the dirty bit is still set")
	}
}

// SIGINT, SIGTERM and SIGHUP inside a large file stop fcp within about a
// second: the files copied before it are committed, the partial file is
// gone and its clusters are free, the dirty bit is cleared, and the status
// is 128 + the signal. A second signal while it stops changes nothing.
func TestFcpSignalInsideLargeFile(t *testing.T) {
	need(t, "fsck.fat", "mcopy")
	cases := []struct {
		name string
		sigs []syscall.Signal
		want int
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, 130},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143},
		{"SIGHUP", []syscall.Signal{syscall.SIGHUP}, 129},
		{"SIGINT", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT}, 130},
	}
	for i, tc := range cases {
		name := tc.name
		if len(tc.sigs) > 1 {
			name = "SIGINT-then-more"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			img := newImage(t, "--size", "1G")
			fresh := volInfo(t, img, 0)
			src := filepath.Join(dir, "tree")
			mustMkdir(t, src)
			a := writeFile(t, filepath.Join(src, "a.txt"), 5000, byte(i))
			b := writeFile(t, filepath.Join(src, "b.txt"), 70000, byte(i+1))
			// zz.bin comes last (name order) and is large; a sparse file
			// reads fast, and O_DSYNC writes of 64 KiB keep the copy slow
			// enough to be caught in the middle.
			big := filepath.Join(src, "zz.bin")
			writeFile(t, big, 0, 0)
			if err := os.Truncate(big, 900<<20); err != nil {
				t.Fatal(err)
			}
			base := usedBytes(t, img)
			inside := func() bool { return usedBytes(t, img) > base+16<<20 }
			r := signalFcp(t, nil, inside, tc.sigs, "-r", "--sync", "always", "--io-size", "64K", "-i", img, src+"/.", "::/")
			checkStopped(t, r, tc.want, tc.name, img)
			if got := mget(t, img, "/a.txt"); !bytes.Equal(got, a) {
				t.Error("a.txt, copied before the signal, reads back different bytes")
			}
			if got := mget(t, img, "/b.txt"); !bytes.Equal(got, b) {
				t.Error("b.txt, copied before the signal, reads back different bytes")
			}
			if mexists(t, img, "/zz.bin") {
				t.Error("the interrupted zz.bin is on the volume")
			}
			used := fresh.FreeClusters - volInfo(t, img, 0).FreeClusters
			if want := uint32((5000+fresh.ClusterSize-1)/fresh.ClusterSize + (70000+fresh.ClusterSize-1)/fresh.ClusterSize); used != want {
				t.Errorf("%d clusters in use after the stop, want %d (a.txt and b.txt): the partial file's were not freed", used, want)
			}
		})
	}
}

// A signal stops fcp while it waits for standard input that does not come.
func TestFcpSignalWhileReadingStdin(t *testing.T) {
	need(t, "fsck.fat", "mdir")
	img := newImage(t, "--size", "64M")
	// An OS pipe, handed to fcp as is (exec would copy from an io.Pipe in
	// a goroutine that Wait waits for).
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fed := make(chan struct{})
	go func() {
		pw.Write(make([]byte, 8<<20))
		close(fed)
	}()
	ready := func() bool {
		select {
		case <-fed:
			return true
		default:
			return false
		}
	}
	r := signalFcp(t, pr, ready, []syscall.Signal{syscall.SIGINT}, "-i", img, "-", "::/STDIN.BIN")
	pw.Close()
	checkStopped(t, r, 130, "SIGINT", img)
	if mexists(t, img, "/STDIN.BIN") {
		t.Error("the interrupted file is on the volume")
	}
}

// Before fcp writes anything (here: while it waits with --wait for a lock
// another process holds), a signal ends it at once with the same status.
func TestFcpSignalBeforeWriting(t *testing.T) {
	img := newImage(t, "--size", "64M")
	src := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, src, 10, 1)
	// flock(1) holds the image's lock as another writer would.
	lock := exec.Command("flock", img, "sleep", "30")
	if err := lock.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { lock.Process.Kill(); lock.Wait() }()
	time.Sleep(200 * time.Millisecond)
	cmd := exec.Command("fcp", "--wait", "-i", img, src, "::/")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("fcp waiting for a lock ignored SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 || time.Since(start) > stopWithin {
		t.Fatalf("exit %d after %v, want 143 at once\n%s", code, time.Since(start), errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted by SIGTERM") {
		t.Fatalf("message: %q", errb.String())
	}
}
