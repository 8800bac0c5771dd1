package exfat

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// Format over an old volume, cut anywhere (a write lost, torn, or landed
// out of order within a flush), leaves the old volume whole, no exFAT
// volume at all, or the new one clean (either may have lost its main
// or its backup boot region, but not both): never a boot region that names a
// FAT, bitmap or root not yet written, nor the old boot region over new
// zeros.
func TestFormatCrashOrder(t *testing.T) {
	img := baseImage(t)
	old, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "write.log")
	t.Setenv(fio.EnvWriteLog, logPath)
	dev, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	// Another cluster size: the new FAT, bitmap and root lie elsewhere.
	if _, _, err := Format(dev, FormatParams{Label: "NEW", ClusterSize: 16384}, testTime); err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fio.EnvWriteLog, "")
	recs, err := writelog.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(img)
	ops, err := writelog.Ops(recs, abs)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.img")
	if err := os.WriteFile(state, old, 0o644); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	n, err := writelog.Replay(state, ops, writelog.Options{Samples: 8, Family: 8, Seed: 7}, func(s writelog.State) error {
		d, err := fio.Open(state, fio.Options{})
		if err != nil {
			return err
		}
		defer d.Close()
		v, err := Open(d)
		if err != nil {
			kinds["no volume"]++
			return nil
		}
		defer v.Close()
		label, _ := v.Label()
		rep, err := Check(v, CheckOptions{})
		if err != nil {
			return fmt.Errorf("label %q: check: %v", label, err)
		}
		for _, p := range rep.Problems {
			// Clearing the old boot sectors, or writing the new ones, may
			// land one region of two: a boot/backup difference, which
			// DESIGN.md allows (the other region is whole).
			if p.Kind != KindBackupBoot && p.Kind != KindBootChecksum {
				return fmt.Errorf("a volume labelled %q that is not clean: %v", label, rep.Problems)
			}
		}
		kinds[label]++
		return nil
	})
	if err != nil {
		t.Fatalf("after %d states: %v", n, err)
	}
	if kinds["CHECK"] == 0 || kinds["NEW"] == 0 {
		t.Fatalf("states seen: %v; want the old volume and the new among them", kinds)
	}
	t.Logf("%d states: %v", n, kinds)
}
