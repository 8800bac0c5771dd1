package cmdutil

import (
	"bytes"
	"errors"
	"runtime/debug"
	"testing"
)

func TestWarnSanitizesAndPrefixes(t *testing.T) {
	var b bytes.Buffer
	err := errors.Join(errors.New("first \x01bad\x7f name"), errors.New("second line"))
	if code := Report(&b, "fls", err); code != 1 {
		t.Fatalf("exit %d", code)
	}
	want := "fls: first \\x01bad\\x7f name\nfls: second line\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	if got := Sanitize("Ünïcødé ok"); got != "Ünïcødé ok" {
		t.Fatalf("printable text changed: %q", got)
	}
	if got := Sanitize("bad\xffutf8\n"); got != "bad\\xffutf8\\x0a" {
		t.Fatalf("got %q", got)
	}
}

// --version names a release, or the commit and its date; never "(devel)"
// alone.
func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		v        string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3"},
		{"(devel)", vcs, "devel (commit 0123456789ab of 2026-01-02T03:04:05Z, with uncommitted changes)"},
		{"v0.0.0-20260102030405-0123456789ab+dirty", vcs[:2], "v0.0.0-20260102030405-0123456789ab+dirty (commit 0123456789ab of 2026-01-02T03:04:05Z)"},
		{"(devel)", nil, "devel (built without version control information: build with make, or go build in a git clone)"},
	} {
		if got := versionOf(tc.v, tc.settings); got != tc.want {
			t.Errorf("versionOf(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
	buildCommit, buildDate = "fedcba9876543210", "2026-02-03T04:05:06+00:00"
	defer func() { buildCommit, buildDate = "", "" }()
	if got := versionOf("(devel)", nil); got != "devel (commit fedcba987654 of 2026-02-03T04:05:06+00:00)" {
		t.Errorf("with the Makefile's commit: %q", got)
	}
}
