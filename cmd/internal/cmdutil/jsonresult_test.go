package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestWantsJSON(t *testing.T) {
	for args, want := range map[string]bool{
		"fcp --json a b":       true,
		"fcp -json a b":        true,
		"fcp a --json=true b":  true,
		"fcp --json=false a b": false,
		"fcp a b":              false,
		"fcp -- --json":        false,
		"fcp --jsonx a":        false,
		"fcp ::/--json --json": true,
		"fcp":                  false,
	} {
		if got := WantsJSON(splitArgs(args)); got != want {
			t.Errorf("WantsJSON(%q) = %v, want %v", args, got, want)
		}
	}
}

func splitArgs(s string) []string {
	var out []string
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, string(f))
	}
	return out
}

// Under --json a failure before the report is one JSON object on stdout;
// a report already printed is not followed by another object.
func TestJSONErrors(t *testing.T) {
	fail := func(args []string, stdout, stderr io.Writer) error { return Exit(3, errors.New("bad image")) }
	var out bytes.Buffer
	err := JSONErrors(fail)([]string{"x", "--json"}, &out, io.Discard)
	var rep Outcome
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil || rep.Error != "bad image" || rep.ExitStatus != 3 || ExitStatus(err) != 3 {
		t.Fatalf("%q, %v: %+v", out.String(), jerr, rep)
	}
	out.Reset()
	JSONErrors(fail)([]string{"x"}, &out, io.Discard)
	if out.Len() != 0 {
		t.Fatalf("without --json: %q", out.String())
	}
	printed := func(args []string, stdout, stderr io.Writer) error {
		PrintJSON(stdout, map[string]int{"files": 1})
		return Exit(1, nil)
	}
	out.Reset()
	JSONErrors(printed)([]string{"x", "--json"}, &out, io.Discard)
	dec := json.NewDecoder(&out)
	var v map[string]any
	n := 0
	for dec.Decode(&v) == nil {
		n++
	}
	if n != 1 {
		t.Fatalf("%d JSON objects on stdout, want 1", n)
	}
}

// A list in ftools' JSON is never null: PrintJSON writes nil slices and
// maps, at any depth, as [] and {}.
func TestPrintJSONFillsNil(t *testing.T) {
	type inner struct {
		Names []string       `json:"names"`
		Kinds map[string]int `json:"kinds"`
		Raw   []byte         `json:"raw"`
	}
	type rep struct {
		Items  []inner  `json:"items"`
		Nested *inner   `json:"nested"`
		Empty  []string `json:"empty"`
		Outcome
	}
	var b bytes.Buffer
	PrintJSON(&b, rep{Items: []inner{{}}, Nested: &inner{}})
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := `{"empty":[],"exit_status":0,"items":[{"kinds":{},"names":[],"raw":null}],"nested":{"kinds":{},"names":[],"raw":null}}`
	if out, _ := json.Marshal(got); string(out) != want {
		t.Errorf("PrintJSON: %s\nwant %s", out, want)
	}
}
