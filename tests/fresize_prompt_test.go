package tests

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A growth past the FATs' spare sectors, which a cut could leave half
// done, asks on a terminal (stdin and stderr) before it starts: "n" (or
// no terminal at all, without --force) leaves the image as it was and
// writes no undo file; "y" resizes, and fsck.fat finds the result clean.
func TestFresizeAsksBeforeUnsafeGrowth(t *testing.T) {
	need(t, "fsck.fat")
	for _, answer := range []string{"", "n", "y"} {
		t.Run(fmt.Sprintf("answer %q", answer), func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "a.img")
			undo := filepath.Join(dir, "undo")
			ok(t, "fmkfs", "--fat", "16", "--size", "20M", img)
			ok(t, "fcp", "-r", "-i", img, hostFiles(t, dir, "f", 5, 100, 7000, 90000), "::/f")
			same := imageKept(t, img)
			args := []string{"--undo", undo, img, "40M"}
			if answer == "" {
				msg := fails(t, "fresize", args...)
				if !strings.Contains(msg, "--force") || !strings.Contains(msg, "no terminal") {
					t.Errorf("without a terminal: %s", msg)
				}
			} else {
				code, shown := onTerminal(t, answer+"\n", "fresize", args...)
				if !strings.Contains(shown, "not crash-safe") || !strings.Contains(shown, "[y/N]") {
					t.Errorf("the question:\n%s", shown)
				}
				if answer == "y" {
					if code != 0 {
						t.Fatalf("answered y: exit %d\n%s", code, shown)
					}
					fsckClean(t, img, 0)
					if fi, err := os.Stat(img); err != nil || fi.Size() != 40<<20 {
						t.Errorf("the image is %v bytes, want 40 MiB (%v)", fi.Size(), err)
					}
					return
				}
				if code != 1 || !strings.Contains(shown, "left unchanged") {
					t.Errorf("answered n: exit %d\n%s", code, shown)
				}
			}
			same("the refusal")
			if _, err := os.Stat(undo); !os.IsNotExist(err) {
				t.Errorf("the refusal wrote the undo file (%v)", err)
			}
		})
	}
}

// onTerminal runs a command with stdin and stderr on a new pseudo-terminal,
// types answer once it asks ("[y/N]"), and returns its exit status and what
// it showed on the terminal.
func onTerminal(t *testing.T, answer, name string, args ...string) (int, string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Fatalf("a pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var mu sync.Mutex
	var shown bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		typed := false
		for {
			k, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:k])
			ask := !typed && strings.Contains(shown.String(), "[y/N]")
			mu.Unlock()
			if ask {
				io.WriteString(master, answer)
				typed = true
			}
			if err != nil {
				return
			}
		}
	}()
	err = cmd.Wait()
	<-done // the last close of the terminal's other end ends the reads
	mu.Lock()
	defer mu.Unlock()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), shown.String() + stdout.String()
}
