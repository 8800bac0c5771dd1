package cmdutil

import (
	"bytes"
	"errors"
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
