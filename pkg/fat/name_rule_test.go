package fat

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/names"
)

// Every call that gives an entry a name applies the one rule
// (pkg/internal/names): the library refuses what the commands strip, and
// what nobody stores, with the reason.
func TestNewNamesFollowTheRule(t *testing.T) {
	v := allocVolume(t)
	at := time.Unix(0, 0)
	w, err := v.Create("/ok", 0, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for bad, why := range map[string]string{"x.": "ends in '.'", "y ": "ends in ' '", "CON": "DOS device", "aux.txt": "DOS device", "a*b": "holds '*'", "del\x7f": "holds '\\x7f'"} {
		for op, err := range map[string]error{
			"mkdir":     v.Mkdir("/"+bad, at),
			"rename":    v.Rename("/ok", "/"+bad),
			"create":    func() error { _, err := v.Create("/"+bad, 0, at); return err }(),
			"fallocate": func() error { _, err := v.Fallocate("/"+bad, 10, FallocateOptions{}); return err }(),
		} {
			var ne *names.Error
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), why) {
				t.Errorf("%s %q: %v, want a refusal saying %q", op, bad, err, why)
			}
		}
	}
}
