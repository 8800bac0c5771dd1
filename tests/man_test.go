package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the directory that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// longFlag finds the long flag names in a help text's OPTIONS section.
var longFlag = regexp.MustCompile(`(?:^|[\s,])--([a-z0-9][a-z0-9-]*)`)

// helpFlags returns the long flags `cmd --help` lists.
func helpFlags(t *testing.T, cmd string) []string {
	t.Helper()
	out := ok(t, cmd, "--help")
	i := strings.Index(out, "OPTIONS:")
	if i < 0 {
		t.Fatalf("%s --help has no OPTIONS section:\n%s", cmd, out)
	}
	var flags []string
	seen := map[string]bool{}
	for _, m := range longFlag.FindAllStringSubmatch(out[i:], -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			flags = append(flags, m[1])
		}
	}
	if len(flags) < 2 {
		t.Fatalf("%s --help: found only %v", cmd, flags)
	}
	return flags
}

// Every command has a man page that groff reads without a warning and that
// documents every long flag the command's help lists.
func TestManPages(t *testing.T) {
	need(t, "groff")
	root := repoRoot(t)
	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			page := filepath.Join(root, "man", cmd+".1")
			src, err := os.ReadFile(page)
			if err != nil {
				t.Fatalf("no man page: %v", err)
			}
			lint := exec.Command("groff", "-man", "-ww", "-z", page)
			if out, err := lint.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("groff -man -ww -z %s: %v\n%s", page, err, out)
			}
			for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH EXIT STATUS", ".SH EXAMPLES", ".SH SEE ALSO"} {
				if !strings.Contains(string(src), sec) {
					t.Errorf("%s lacks %q", page, sec)
				}
			}
			for _, f := range helpFlags(t, cmd) {
				roff := `\-\-` + strings.ReplaceAll(f, "-", `\-`)
				if !strings.Contains(string(src), roff) {
					t.Errorf("%s does not document --%s (as %s)", page, f, roff)
				}
			}
		})
	}
}

// The helper that finds flags must see them: a page missing one is caught.
func TestHelpFlagsParse(t *testing.T) {
	got := strings.Join(helpFlags(t, "fls"), " ")
	for _, want := range []string{"image", "long", "all", "recursive", "partition", "io-size", "buffered", "stats", "json", "help", "version"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("flags of fls --help %q lack %q", got, want)
		}
	}
}

// make install puts every file under $(DESTDIR)$(PREFIX), and installs
// what make built: sudo make install works where root's PATH has no go,
// and a rebuild then uses the go that make used.
func TestMakeInstall(t *testing.T) {
	need(t, "make", "install", "git")
	root := repoRoot(t)
	build, dest := t.TempDir(), t.TempDir()
	mk := func(path string, args ...string) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-C", root, "BUILDDIR=" + build}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s (PATH=%s): %v\n%s", strings.Join(args, " "), path, err, out)
		}
	}
	mk(os.Getenv("PATH"), "build")
	// root's PATH under sudo, without the go that built the commands.
	noGo := "/usr/bin:/bin"
	for _, d := range filepath.SplitList(noGo) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			t.Fatalf("%s holds a go: the test needs a PATH without one", d)
		}
	}
	mk(noGo, "install", "DESTDIR="+dest, "PREFIX=/opt/ftools")
	want := []string{"opt/ftools/share/bash-completion/completions/ftools", "opt/ftools/share/zsh/site-functions/_ftools"}
	for _, c := range commands {
		want = append(want, "opt/ftools/share/man/man1/"+c+".1", "opt/ftools/bin/"+c, "opt/ftools/share/bash-completion/completions/"+c)
	}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(dest, w)); err != nil {
			t.Errorf("make install did not install %s: %v", w, err)
		}
	}
	// A rebuild under a PATH without go uses the go the build recorded.
	if err := os.Remove(filepath.Join(build, ".built")); err != nil {
		t.Fatal(err)
	}
	mk(noGo, "install", "DESTDIR="+t.TempDir(), "PREFIX=/usr")
}
