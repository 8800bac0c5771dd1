package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bashComplete completes the end of line with the bash script, driven as
// bash drives it: COMP_LINE and COMP_POINT, and COMP_WORDS split as
// readline splits them (at ":" and "="). It returns COMPREPLY, one entry a
// line, sorted, run in dir.
func bashComplete(t *testing.T, dir, line string) []string {
	t.Helper()
	script := filepath.Join(repoRoot(t), "completion", "ftools.bash")
	prog := `source "$1"
COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
# COMP_WORDS as bash splits the line: blanks, and ":" and "=" apart.
read -ra COMP_WORDS <<<"$(sed -e 's/\(::*\)/ \1 /g' -e 's/=/ = /g' <<<"$COMP_LINE")"
[[ $COMP_LINE =~ [[:space:]]$ ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_ftools_complete
printf '%s\n' "${COMPREPLY[@]}" | sort
`
	cmd := exec.Command("bash", "-c", prog, "bash", script, line)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("completing %q: %v\n%s", line, err, out)
	}
	return lines(string(out))
}

// zshComplete completes words with the zsh script: compadd and _files are
// stand-ins that print what they were given.
func zshComplete(t *testing.T, dir string, words ...string) string {
	t.Helper()
	script := filepath.Join(repoRoot(t), "completion", "_ftools")
	prog := `compadd() { print -r -- "compadd $*" }
_files() { print -r -- "_files" }
words=("${(@)argv[2,-1]}"); CURRENT=${#words}
source "$1"`
	cmd := exec.Command("zsh", append([]string{"-f", "-c", prog, "zsh", script}, words...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsh completing %q: %v\n%s", words, err, out)
	}
	return string(out)
}

// Completion: flags after "-", values of enumerated flags, and paths
// inside the image named on the line, read by ftools itself.
func TestCompletion(t *testing.T) {
	need(t, "bash", "zsh", "sed")
	dir := t.TempDir()
	ok(t, "fmkfs", "--size", "16M", filepath.Join(dir, "c.img"))
	ok(t, "fmkdir", "-i", filepath.Join(dir, "c.img"), "::/Docs", "::/Data", "::/Docs/Inner")
	ok(t, "ffallocate", "-l", "1K", "-i", filepath.Join(dir, "c.img"), "::/My File.txt")
	for _, tc := range []struct {
		line string
		want string
	}{
		{"frm --re", "--recursive"},
		{"fcp --", ""}, // checked below: every long flag
		{"fcp --sync ", "always|close|file|none"},
		{"fcp --sync=cl", "close"},
		{"fmkfs -F ", "12|16|32"},
		{"fmkfs --table ", "gpt|mbr|none"},
		{"fmkfs --type ", "exfat|fat"},
		{"fmkfs --mbr=", "a|n|y"},
		{"fmkfs --fr", "--free|--from"},
		{"fmkfs --set-", "--set-hidden|--set-read-only|--set-system"},
		{"fmkfs --clash ", "A|O|R|S|a|o|r|s"},
		{"fmkfs --from ", ""}, // a host folder: bash completes file names
		{"fcp -D ", "A|M|O|R|S|a|m|o|r|s"},
		{"fcp --alloc f", "first-fit"},
		{"fls --codepage 43", "437"},
		{"fls c.img::/D", "/Data/|/Docs/"},
		{"fls c.img::/docs/", "/docs/Inner/"},
		{"fls -i c.img ::/m", `/My\ File.txt`},
		{"fcat c.img::", "/Data/|/Docs/|/My\\ File.txt"},
		{"fls c", ""}, // no candidates: bash completes file names
	} {
		got := bashComplete(t, dir, tc.line)
		if tc.line == "fcp --" {
			all := " " + strings.Join(got, " ") + " "
			for _, f := range []string{"--recursive", "--sync", "--alloc", "--clash", "--json", "--verbose", "--help", "--version"} {
				if !strings.Contains(all, " "+f+" ") {
					t.Errorf("completing %q: %q lacks %s", tc.line, got, f)
				}
			}
			continue
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("completing %q: %q, want %q", tc.line, strings.Join(got, "|"), tc.want)
		}
	}
	// The script is registered for every command.
	script := filepath.Join(repoRoot(t), "completion", "ftools.bash")
	reg := ok(t, "bash", "-c", `source "$1"; complete -p`, "bash", script)
	for _, c := range commands {
		if !strings.Contains(reg, "_ftools_complete "+c+"\n") {
			t.Errorf("no bash completion for %s:\n%s", c, reg)
		}
	}

	if out := zshComplete(t, dir, "fls", "-i", "c.img", "::/D"); !strings.Contains(out, "compadd -U -S  -- ::/Data/ ::/Docs/") {
		t.Errorf("zsh, fls -i c.img ::/D: %q", out)
	}
	if out := zshComplete(t, dir, "fcp", "--sync", ""); !strings.Contains(out, "compadd -U -- none close file always") {
		t.Errorf("zsh, fcp --sync: %q", out)
	}
	if out := zshComplete(t, dir, "fmkfs", "--ta"); !strings.Contains(out, "compadd -U -- --table") {
		t.Errorf("zsh, fmkfs --ta: %q", out)
	}
	if out := zshComplete(t, dir, "fls", "c"); strings.TrimSpace(out) != "_files" {
		t.Errorf("zsh, fls c: %q", out)
	}
}
