package tests

import (
	"strings"
	"testing"
)

// commands lists every command ftools builds.
var commands = []string{"fmkfs", "fsinfo", "fcp", "ffallocate", "fverify",
	"fls", "fcat", "frm", "fmkdir", "frmdir", "fmv", "fattrib", "flabel", "ftrim", "fsort", "fresize"}

// Every command answers --help and --version, and refuses an unknown flag
// with a one-line error.
func TestHelpAndVersion(t *testing.T) {
	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			if out := ok(t, cmd, "--help"); !strings.Contains(out, "USAGE") || !strings.Contains(out, cmd) {
				t.Fatalf("%s --help:\n%s", cmd, out)
			}
			if out := ok(t, cmd, "--version"); !strings.Contains(out, cmd) {
				t.Fatalf("%s --version: %q", cmd, out)
			}
			msg := fails(t, cmd, "--no-such-flag", "x")
			if !strings.Contains(msg, "no-such-flag") {
				t.Fatalf("%s with an unknown flag: %q", cmd, msg)
			}
		})
	}
}
