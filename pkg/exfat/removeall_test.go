package exfat

import (
	"errors"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// A damaged tree is refused before anything changes: RemoveAll names where
// the damage lies and writes nothing (it used to remove what it could,
// report a failure, and leave the clusters of what it skipped lost). The
// damage is made in memory only, so that any write would show.
func TestRemoveAllRefusesDamagedTree(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	v := openVol(t, img, true)
	if err := v.MkdirAll("t/u", testTime); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"t/u/f1", "t/u/f2"} {
		writeFile(t, v, name, pattern(uint64(i), 10000), 0)
	}
	closeVol(t, v)
	tree := voltest.ReadFile(t, img)
	for _, c := range []struct {
		name, where string
		damage      func(t *testing.T, v *Volume)
	}{
		{"loop", "/t/u", func(t *testing.T, v *Volume) {
			rec(t, v, "t/u").Set.Stream = rec(t, v, "t").Set.Stream
		}},
		{"chain into a free cluster", "/t/u/f1", func(t *testing.T, v *Volume) {
			rec(t, v, "t/u/f1").Set.Stream.Flags &^= streamNoFATChain
		}},
		{"cross-link", "/t/u/f2", func(t *testing.T, v *Volume) {
			rec(t, v, "t/u/f2").Set.Stream.FirstCluster = rec(t, v, "t/u/f1").Set.Stream.FirstCluster + 1
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := voltest.ImageFile(t, tree)
			before := voltest.SumFile(t, img)
			v := openVol(t, img, true)
			c.damage(t, v)
			err := v.RemoveAll("t")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.where+":") {
				t.Errorf("RemoveAll of a damaged tree = %v, want ErrCorrupt naming %s", err, c.where)
			}
			closeVol(t, v)
			if voltest.SumFile(t, img) != before {
				t.Error("the refused removal changed the image")
			}
		})
	}
}

// rec is the record of name on v.
func rec(t *testing.T, v *Volume, name string) *Record {
	t.Helper()
	return voltest.Sys[*Record](t, v.Stat, name)
}
