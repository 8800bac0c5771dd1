package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// nullable are the keys whose value may be null: single values that may be
// absent (never lists).
var nullable = map[string]bool{"root_label": true, "free_count": true, "next_cluster": true}

// oneObject checks that out is exactly one JSON object and nothing else,
// without a null list anywhere, and returns it.
func oneObject(t *testing.T, what, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("%s: stdout is not one JSON object: %v\n%s", what, err, out)
	}
	var rest json.RawMessage
	if err := dec.Decode(&rest); err != io.EOF {
		t.Fatalf("%s: more than one JSON value on stdout (%v):\n%s", what, err, out)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case nil:
			key := path[strings.LastIndex(path, ".")+1:]
			if !nullable[key] {
				t.Errorf("%s: %s is null\n%s", what, path, out)
			}
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	walk("", obj)
	return obj
}

// Every command speaks one JSON shape: under --json, one object on stdout
// and nothing else, on success and on failure; "exit_status" is the exit
// status, "error" says why on failure and is absent on success; lists are
// never null.
func TestJSONShapeEveryCommand(t *testing.T) {
	need(t, "mcopy")
	img, _ := verbsImage(t, "32")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	writeFile(t, src, 100, 5)
	missing := filepath.Join(dir, "missing.img")
	type call struct {
		args []string
		code int // the exit status wanted
	}
	cases := map[string][2]call{
		"fmkfs":      {{[]string{"--size", "16M", filepath.Join(dir, "new.img")}, 0}, {[]string{"--fat", "7", "--size", "16M", filepath.Join(dir, "bad.img")}, 1}},
		"fsinfo":     {{[]string{img}, 0}, {[]string{missing}, 1}},
		"fcp":        {{[]string{"-i", img, src, "::/"}, 0}, {[]string{"-i", img, filepath.Join(dir, "nope"), "::/"}, 1}},
		"ffallocate": {{[]string{"-l", "8K", "-i", img, "::/pre"}, 0}, {[]string{"-l", "8K", "-i", img, "::/nodir/pre"}, 1}},
		"fls":        {{[]string{"-R", "-i", img}, 0}, {[]string{"-i", img, "::/nope*"}, 1}},
		"frm":        {{[]string{"-i", img, "::/pre"}, 0}, {[]string{"-i", img, "::/nope"}, 1}},
		"fmkdir":     {{[]string{"-i", img, "::/NEWDIR"}, 0}, {[]string{"-i", img, "::/NEWDIR"}, 1}},
		"frmdir":     {{[]string{"-i", img, "::/NEWDIR"}, 0}, {[]string{"-i", img, "::/DIR"}, 1}},
		"fmv":        {{[]string{"-i", img, "::/src.txt", "::/moved.txt"}, 0}, {[]string{"-i", img, "::/nope", "::/x"}, 1}},
		"fattrib":    {{[]string{"-i", img, "::/moved.txt"}, 0}, {[]string{"+h", "-i", img, "::/nope"}, 1}},
		"flabel":     {{[]string{img}, 0}, {[]string{missing}, 1}},
		"fverify":    {{[]string{img}, 0}, {[]string{missing}, 8}},
		"ftrim":      {{[]string{img}, 0}, {[]string{missing}, 1}},
		"fsort":      {{[]string{img}, 0}, {[]string{missing}, 1}},
		"fresize":    {{[]string{"-n", img, "max"}, 0}, {[]string{missing, "1M"}, 1}},
		"fcat":       {{}, {[]string{"-i", img, "::/A.TXT"}, 1}}, // fcat refuses --json: stdout is the data
	}
	for _, cmd := range commands {
		cs, found := cases[cmd]
		if !found {
			t.Errorf("%s: no JSON case", cmd)
			continue
		}
		for i, c := range cs {
			if c.args == nil {
				continue
			}
			args := append([]string{"--json"}, c.args...)
			what := cmd + " " + strings.Join(args, " ")
			r := run(t, cmd, args...)
			if r.code != c.code {
				t.Errorf("%s: exit %d, want %d\n%s%s", what, r.code, c.code, r.stdout, r.stderr)
				continue
			}
			obj := oneObject(t, what, r.stdout)
			msg, hasErr := obj["error"].(string)
			if i == 0 && hasErr {
				t.Errorf("%s: success with an error %q", what, msg)
			}
			if i == 1 && (!hasErr || msg == "") {
				t.Errorf("%s: failure without an error message:\n%s", what, r.stdout)
			}
			if st, err := obj["exit_status"].(json.Number).Int64(); err != nil || int(st) != r.code {
				t.Errorf("%s: exit_status %v, exit %d", what, obj["exit_status"], r.code)
			}
		}
	}
	// With --stats the statistics are in the object, not on stderr.
	r := run(t, "fls", "--json", "--stats", "-i", img)
	obj := oneObject(t, "fls --json --stats", r.stdout)
	if _, ok := obj["stats"].(map[string]any); !ok || r.stderr != "" {
		t.Errorf("fls --json --stats: stats %v, stderr %q", obj["stats"], r.stderr)
	}
	// A flag error under --json is JSON too, and names the flag as typed.
	r = run(t, "frm", "--json", "--bogus", "-i", img, "::/x")
	obj = oneObject(t, "frm --json --bogus", r.stdout)
	if !strings.Contains(obj["error"].(string), "--bogus") || r.code == 0 {
		t.Errorf("frm --json --bogus: %v", obj)
	}
	if !bytes.Contains([]byte(r.stderr), []byte("--bogus")) {
		t.Errorf("frm --bogus: stderr %q", r.stderr)
	}
}

// ffallocate with no operands and no --length printed urfave/cli's whole
// help on stdout before its JSON error object, so --json gave jq no valid
// input (issue 13: one object on stdout, also on error).
func TestFfallocateJSONNoOperands(t *testing.T) {
	for _, args := range [][]string{{"--json"}, {"--json", "-i", "x.img"}} {
		r := run(t, "ffallocate", args...)
		var v map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 1 || v["error"] == nil {
			t.Errorf("ffallocate %v: exit %d, want one JSON object with an error on stdout (%v):\n%s", args, r.code, err, r.stdout)
		}
	}
	if r := run(t, "ffallocate"); r.stdout != "" || !strings.Contains(r.stderr, "missing operand") {
		t.Errorf("ffallocate without operands: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
