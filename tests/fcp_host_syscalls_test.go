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

// smallFilesTree makes tree, of folders folders of per files each (file
// f of size(f) bytes), and an empty FAT32 image beside it, returned.
func smallFilesTree(t *testing.T, tree string, folders, per int, size func(int) int) string {
	t.Helper()
	for d := 0; d < folders; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("folder %d", d))
		mustMkdir(t, sub)
		for f := 0; f < per; f++ {
			writeFile(t, filepath.Join(sub, fmt.Sprintf("a file named %03d.txt", f)), size(f), byte(f))
		}
	}
	img := filepath.Join(filepath.Dir(tree), "img")
	if r := run(t, "fmkfs", "-F", "32", "--size", "64M", img); r.code != 0 {
		t.Fatalf("fmkfs: %s", r.stderr)
	}
	return img
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
	img := smallFilesTree(t, tree, folders, per, func(f int) int { return 10 + f })
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

// fcp -r copying small files out of a volume does the host's part of
// each file in four system calls: it creates the file (open with
// O_NOFOLLOW, not a look for a link first), writes it, sets its time on
// the open descriptor (not by path) and closes it; nothing more per file
// (no stat, no fcntl or epoll from wrapping the descriptor in an
// os.File).
func TestFcpOutHostSyscallsPerFile(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	const folders, per = 10, 100
	img := smallFilesTree(t, tree, folders, per, func(f int) int { return 10 + f*37 })
	if r := run(t, "fcp", "-r", "-i", img, tree, "::/"); r.code != 0 {
		t.Fatalf("fcp in: %s", r.stderr)
	}
	out := filepath.Join(dir, "out")
	mustMkdir(t, out)
	counts := straceCounts(t, "fcp", "-r", "-i", img, "::/tree", out)
	const files = folders * per
	limits := map[string]int{
		"openat":     files + 60,
		"write":      files + 60,
		"utimensat":  files + folders + 60,
		"close":      files + 60,
		"newfstatat": 60,
		"fstat":      60,
		"fcntl":      60,
		"epoll_ctl":  60,
	}
	for call, max := range limits {
		if counts[call] > max {
			t.Errorf("%s: %d calls for %d files, want at most %d", call, counts[call], files, max)
		}
	}
	for d := 0; d < folders; d++ {
		for f := 0; f < per; f += 33 {
			name := filepath.Join(fmt.Sprintf("folder %d", d), fmt.Sprintf("a file named %03d.txt", f))
			want, err := os.ReadFile(filepath.Join(tree, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, "tree", name))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s: copied out wrong (%v)", name, err)
			}
		}
	}
}
