package tests

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// straceCounts runs a command under strace -f -c and returns how many
// times it made each system call.
func straceCounts(t *testing.T, name string, args ...string) map[string]int {
	t.Helper()
	need(t, "strace")
	out := filepath.Join(t.TempDir(), "strace.txt")
	cmd := exec.Command("strace", append([]string{"-f", "-c", "-o", out, name}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace %s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// % time  seconds  usecs/call  calls  [errors]  syscall
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		if n, err := strconv.Atoi(fields[3]); err == nil {
			counts[fields[len(fields)-1]] += n
		}
	}
	return counts
}

// fcp -r copying small host files in does the host's part of each file
// with few system calls: it lists each folder once per walk and looks at
// each member relative to it (one fstatat per walk), and opens, reads
// and closes each file, with nothing more per file: one read, which
// returns the data short of the byte more it asks and so meets the end,
// and no fcntl from wrapping a descriptor it only reads and closes.
func TestFcpHostSyscallsPerFile(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const folders, per = 10, 100
	for d := 0; d < folders; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("folder %d", d))
		mustMkdir(t, sub)
		for f := 0; f < per; f++ {
			writeFile(t, filepath.Join(sub, fmt.Sprintf("a file named %03d.txt", f)), 10+f, byte(f))
		}
	}
	img := filepath.Join(dir, "img")
	if r := run(t, "fmkfs", "-F", "32", "--size", "64M", img); r.code != 0 {
		t.Fatalf("fmkfs: %s", r.stderr)
	}
	counts := straceCounts(t, "fcp", "-r", "-i", img, tree, "::/")
	const files = folders * per
	limits := map[string]int{
		"fcntl":      60,
		"openat":     files + 60,
		"close":      files + 60,
		"read":       files + 60,
		"newfstatat": 2*files + 60,
	}
	for call, max := range limits {
		if counts[call] > max {
			t.Errorf("%s: %d calls for %d files, want at most %d", call, counts[call], files, max)
		}
	}
	fsckClean(t, img, 0)
}
