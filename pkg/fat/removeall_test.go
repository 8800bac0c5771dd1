package fat

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

func TestRemoveAll(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img := verbImage(t, bits)
			v := openVerb(t, img)
			free := v.FreeClusters()
			// SUB (1) + INNER.TXT (3) + DEEP (1) + X (3) clusters.
			if err := v.RemoveAll("sub"); err != nil {
				t.Fatal(err)
			}
			if err := v.RemoveAll("SUB"); err != nil {
				t.Errorf("RemoveAll of a missing name: %v", err)
			}
			if err := v.RemoveAll("/"); !errors.Is(err, fs.ErrPermission) {
				t.Errorf("RemoveAll(/) = %v", err)
			}
			if err := v.RemoveAll("A.TXT"); err != nil {
				t.Fatal(err)
			}
			closeVerb(t, v)
			fsckClean(t, img)
			v = openVerb(t, img)
			if got := v.FreeClusters(); got != free+11 {
				t.Errorf("free clusters %d, want %d + 11", got, free)
			}
			ents, err := v.ReadDir(".")
			if err != nil || len(ents) != 1 || ents[0].Name() != "Long Name.bin" {
				t.Errorf("root after RemoveAll: %v %v", ents, err)
			}
			if out, err := runTool(t, "mdir", "-b", "-i", img, "::/"); err != nil || strings.Contains(out, "SUB") {
				t.Errorf("mdir: %v\n%s", err, out)
			}
		})
	}
}

// A damaged tree is refused before anything changes: RemoveAll names where
// the damage lies, and the image stays byte for byte as it was (it used to
// remove what it could, report a failure, and leave lost clusters behind).
func TestRemoveAllRefusesDamagedTree(t *testing.T) {
	for _, c := range []struct {
		name, where string
		damage      func(t *testing.T, v *Volume)
	}{
		{"loop", "/SUB/DEEP/LOOP", func(t *testing.T, v *Volume) {
			sub := recOf(t, v, "SUB")
			d, err := v.loadDir(recOf(t, v, "SUB/DEEP").Entry.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.add("LOOP", DirEntry{Attr: AttrDirectory, Cluster: sub.Entry.Cluster}); err != nil {
				t.Fatal(err)
			}
		}},
		{"chain into a free cluster", "/SUB/INNER.TXT", func(t *testing.T, v *Volume) {
			c := recOf(t, v, "SUB/INNER.TXT").Entry.Cluster
			v.table.Set(v.table.Get(c), 0)
		}},
		{"chain loop", "/SUB/INNER.TXT", func(t *testing.T, v *Volume) {
			c := recOf(t, v, "SUB/INNER.TXT").Entry.Cluster
			v.table.Set(v.table.Get(v.table.Get(c)), c)
		}},
		{"cross-link", "/SUB/DEEP/X", func(t *testing.T, v *Volume) {
			inner := recOf(t, v, "SUB/INNER.TXT").Entry.Cluster
			x := recOf(t, v, "SUB/DEEP/X").Entry.Cluster
			v.table.Set(v.table.Get(v.table.Get(x)), v.table.Get(inner))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := verbImage(t, "16")
			v := openVerb(t, img)
			c.damage(t, v)
			if err := v.FlushFAT(); err != nil {
				t.Fatal(err)
			}
			closeVerb(t, v)
			before := voltest.SumFile(t, img)
			v = openVerb(t, img)
			err := v.RemoveAll("SUB")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.where+":") {
				t.Errorf("RemoveAll of a damaged tree = %v, want ErrCorrupt naming %s", err, c.where)
			}
			if _, err := v.Stat("SUB/INNER.TXT"); err != nil {
				t.Errorf("the refused removal removed something: %v", err)
			}
			closeVerb(t, v)
			if voltest.SumFile(t, img) != before {
				t.Error("the refused removal changed the image")
			}
		})
	}
}
