package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFresizeUndoFileTakenChangesNothing: when the --undo file cannot be
// created (it exists), a growth that moves the data area is refused
// before the image file is extended or the partition table rewritten:
// exit 1, with or without --json, the image byte-identical, the file that
// was there left alone.
func TestFresizeUndoFileTakenChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		mk   []string
		args []string
	}{
		{"plain", []string{"--size", "40M", "--fat", "16"}, []string{"100M"}},
		{"gpt", []string{"--size", "40M", "--table", "gpt", "--fat", "16"}, []string{"--resize-partition", "100M"}},
	} {
		for _, js := range []bool{false, true} {
			name := tc.name
			if js {
				name += "-json"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				img := filepath.Join(dir, "c.img")
				ok(t, "fmkfs", append(tc.mk, img)...)
				taken := filepath.Join(dir, "taken")
				if err := os.WriteFile(taken, []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
				orig := readImage(t, img)
				args := []string{"--force", "--undo", taken}
				if js {
					args = append(args, "--json")
				}
				args = append(append(args, img), tc.args[:len(tc.args)-1]...)
				args = append(args, tc.args[len(tc.args)-1])
				r := run(t, "fresize", args...)
				if r.code != 1 || !strings.Contains(r.stderr+r.stdout, "file exists") {
					t.Errorf("fresize %s: exit %d, want 1 naming the undo file\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
				}
				if !bytes.Equal(readImage(t, img), orig) {
					t.Error("the refusal changed the image")
				}
				if b, _ := os.ReadFile(taken); string(b) != "mine" {
					t.Error("the refusal changed the file that was there")
				}
			})
		}
	}
}
