package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quickStart extracts the README's quick start: the sh block after the
// <!-- quickstart --> marker.
func quickStart(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- quickstart -->")
	if i < 0 {
		t.Fatal("README.md has no <!-- quickstart --> marker")
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	end := strings.Index(s[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no ```sh block after the quickstart marker")
	}
	return s[start+6 : start+6+end]
}

// The README's quick start works as written, from the checkout, with Go's
// usual install directory.
func TestReadmeQuickStart(t *testing.T) {
	script := quickStart(t)
	for _, want := range []string{"go install ./cmd/...", "fmkfs", "fcp -r", "fls", "fverify", "--next-cluster", "ffallocate"} {
		if !strings.Contains(script, want) {
			t.Fatalf("the quick start lost %q:\n%s", want, script)
		}
	}
	tmp := t.TempDir()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = repoRoot(t)
	// A GOPATH of its own, so go install does not touch the user's; the
	// module cache stays where it is.
	cmd.Env = append(os.Environ(), "GOPATH="+filepath.Join(tmp, "gopath"), "GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"GOFLAGS=-modcacherw", "TMPDIR="+tmp, "PATH=/usr/bin:/bin:/usr/sbin:/sbin:"+filepath.Dir(goBinary(t)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quick start failed: %v\n%s", err, out)
	}
	for _, want := range []string{"beach at noon.jpg", "clean", "video.bin"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(string(out), "FSINFO next cluster:") {
		t.Errorf("fsinfo output missing:\n%s", out)
	}
}

// goBinary finds the go command the tests run with.
func goBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
