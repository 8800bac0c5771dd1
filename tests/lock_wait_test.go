package tests

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

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
