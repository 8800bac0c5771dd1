package cmdutil

import (
	"bytes"
	"strings"
	"testing"
)

func TestConfirm(t *testing.T) {
	for _, tc := range []struct {
		in  string
		yes bool
	}{
		{"y\n", true}, {"yes\n", true}, {" Y \n", true}, {"YES", true},
		{"\n", false}, {"", false}, {"n\n", false}, {"no\n", false}, {"yy\n", false}, {"maybe y\n", false},
	} {
		var out bytes.Buffer
		if got := Confirm(strings.NewReader(tc.in), &out, "go on?"); got != tc.yes || out.String() != "go on? [y/N] " {
			t.Errorf("%q: %v, prompt %q; want %v", tc.in, got, out.String(), tc.yes)
		}
	}
}

// Neither a pipe nor a buffer is a terminal to ask on.
func TestCanAskNeedsTerminals(t *testing.T) {
	var b bytes.Buffer
	if CanAsk(strings.NewReader("y\n"), &b) || CanAsk(&b, &b) {
		t.Error("CanAsk is true without terminals")
	}
}
