package exfat

import (
	"errors"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/names"
)

// Every call that gives an entry a name applies the one rule
// (pkg/internal/names), as on FAT; the errors wrap ErrBadName.
func TestNewNamesFollowTheRule(t *testing.T) {
	_, v := memVolume(t, 4<<20, FormatParams{ClusterSize: 4096})
	writeFile(t, v, "ok", nil, 0)
	for bad, why := range map[string]string{"x.": "ends in '.'", "y ": "ends in ' '", "CON": "DOS device", "aux.txt": "DOS device", "a*b": "holds '*'"} {
		for op, err := range map[string]error{
			"mkdir":     v.Mkdir(bad, testTime),
			"rename":    v.Rename("ok", bad),
			"create":    func() error { _, err := v.Create(bad, 0, testTime); return err }(),
			"fallocate": func() error { _, err := v.Fallocate(bad, 10, FallocateOptions{}); return err }(),
			"validate":  ValidateName(bad),
		} {
			var ne *names.Error
			if !errors.As(err, &ne) || !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), why) {
				t.Errorf("%s %q: %v, want a refusal saying %q", op, bad, err, why)
			}
		}
	}
	// DEL is an exFAT name character.
	if err := v.Mkdir("del\x7f", testTime); err != nil {
		t.Error(err)
	}
}
