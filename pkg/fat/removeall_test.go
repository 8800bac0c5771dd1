package fat

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
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

// A directory entry that loops back to an ancestor is reported, not followed
// for ever, and the volume stays usable.
func TestRemoveAllLoop(t *testing.T) {
	img := verbImage(t, "16")
	v := openVerb(t, img)
	sub := recOf(t, v, "SUB")
	d, err := v.loadDir(recOf(t, v, "SUB/DEEP").Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.add("LOOP", DirEntry{Attr: AttrDirectory, Cluster: sub.Entry.Cluster}); err != nil {
		t.Fatal(err)
	}
	err = v.RemoveAll("SUB")
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("RemoveAll of a looping tree = %v, want ErrCorrupt", err)
	}
	closeVerb(t, v)
	fsckClean(t, img)
}
