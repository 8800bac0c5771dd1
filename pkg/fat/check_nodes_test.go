package fat

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// The tree walk holds a small node per file, not a path: what stays live
// after walking 40,000 files (40 folders of 1,000 one-cluster files) is
// counted per file, and must stay under 100 bytes (the walk kept a
// 104-byte node and a path string each, some 170 bytes, and a million
// files took fverify past 300 MiB).
func TestCheckTreeBytesPerFile(t *testing.T) {
	const dirs, per = 40, 1000
	v := manyFilesVolume(t, dirs, per)
	opts := CheckOptions{MaxDepth: DefaultMaxDepth, MaxProblems: DefaultMaxProblems}
	p := newPlan(v, opts)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tc, err := runTree(&image{v: v, tb: v.table}, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if tc.rep.Files != dirs*per || len(tc.rep.Problems) != 0 {
		t.Fatalf("walk found %d files and %d problems, want %d and none: %v", tc.rep.Files, len(tc.rep.Problems), dirs*per, tc.rep.Problems)
	}
	perFile := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / (dirs * per)
	t.Logf("%d bytes live per file", perFile)
	if perFile > 100 {
		t.Errorf("the walk holds %d bytes per file, want at most 100", perFile)
	}
	runtime.KeepAlive(tc)
	tc.release()
}

// manyFilesVolume is a FAT32 volume of 512-byte clusters with dirs
// folders of per one-byte files each.
func manyFilesVolume(t *testing.T, dirs, per int) *Volume {
	t.Helper()
	size := int64(dirs*per)*512 + 16<<20
	dev, v := smallClusterVolume(t, size)
	for d := range dirs {
		dir := fmt.Sprintf("/folder%04d", d)
		if err := v.Mkdir(dir, checkClock); err != nil {
			t.Fatal(err)
		}
		for f := range per {
			w, err := v.Create(fmt.Sprintf("%s/file_%07d.dat", dir, d*per+f), 1, checkClock)
			voltest.Put(t, w, err, []byte{'x'})
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := Open(memDevice(t, memBytes(t, dev)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
