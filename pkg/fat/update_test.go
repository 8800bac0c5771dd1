package fat

import (
	"io/fs"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// updateVolume makes a FAT16 volume (512-byte sectors, clusterSectors per
// cluster) holding "a/f.bin" of size bytes and, right after it, "b.bin",
// so that f grows into clusters apart from its own.
func updateVolume(t *testing.T, clusterSectors int, size int) (*Volume, []byte, func() *Volume) {
	t.Helper()
	dev, v := formatMem(t, FormatParams{Size: 16 << 20, Type: FAT16, SectorsPerCluster: clusterSectors}, time.Unix(0, 0))
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	if err := v.Mkdir("a", mtime); err != nil {
		t.Fatal(err)
	}
	data := voltest.Pattern(size, 1)
	for _, f := range []struct {
		name string
		data []byte
	}{{"a/f.bin", data}, {"b.bin", voltest.Pattern(3000, 2)}} {
		w, err := v.Create(f.name, int64(len(f.data)), mtime)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	reopen := func() *Volume {
		t.Helper()
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		nv, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		v = nv
		return nv
	}
	return reopen(), data, reopen
}

func TestUpdaterWrites(t *testing.T) {
	var v *Volume
	var reopen func() *Volume
	start := func(t *testing.T, tc voltest.UpdateCase) *Updater {
		v, _, reopen = updateVolume(t, tc.ClusterSize/512, tc.Size)
		u, err := v.OpenFile("a/f.bin", tc.Flag)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	done := func(t *testing.T) (fs.FS, []string, int) {
		v = reopen()
		rep, err := Check(v, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		for _, p := range rep.Problems {
			problems = append(problems, p.String())
		}
		fi, err := v.Stat("a/f.bin")
		if err != nil {
			t.Fatal(err)
		}
		exts, err := chainOrNil(v, fi.Sys().(*Record).Entry.Cluster)
		if err != nil {
			t.Fatal(err)
		}
		return v, problems, len(exts)
	}
	voltest.UpdateTable(t, start, done)
}

// OpenFile's refusals change nothing and say why.
func TestUpdaterRefusals(t *testing.T) {
	v, _, _ := updateVolume(t, 1, 1000)
	read := func(name string) ([]byte, error) { return fs.ReadFile(v, name) }
	voltest.UpdateRefusals(t, v.OpenFile, ErrIsDir, read)
}
