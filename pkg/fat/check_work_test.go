package fat

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// Images whose damage spans the whole volume, built the same way on every
// run: the check must stay linear in their clusters, chains and entries.

// fullFATImage is a 50 MiB FAT32 of 512-byte clusters (as mkfs.fat makes
// it) whose every data cluster but the root's holds an end-of-chain mark
// in both FATs: each is a lost chain of one cluster (fatcat's "full-fat").
func fullFATImage(t testing.TB) []byte {
	t.Helper()
	dev, v := formatMem(t, FormatParams{Size: 50 << 20, Type: FAT32, SectorsPerCluster: 1}, checkClock)
	l := v.layout
	img := memBytes(t, dev)
	for k := range l.NumFATs {
		fat := img[l.FATCopyOffset(k):]
		for c := uint32(FirstCluster); c < l.Entries(); c++ {
			if Cluster(c) != l.RootCluster {
				binary.LittleEndian.PutUint32(fat[4*c:], 0x0FFFFFFF)
			}
		}
	}
	return img
}

// rootSpanImage is a 64 MiB FAT32 of 512-byte clusters whose root
// directory's chain links every data cluster in order, each full of
// random bytes (the same ones on every run).
func rootSpanImage(t testing.TB) []byte {
	t.Helper()
	dev, v := formatMem(t, FormatParams{Size: 64 << 20, Type: FAT32, SectorsPerCluster: 1}, checkClock)
	l := v.layout
	img := memBytes(t, dev)
	for k := range l.NumFATs {
		fat := img[l.FATCopyOffset(k):]
		for c := uint32(FirstCluster); c < l.Entries(); c++ {
			next := c + 1
			if next == l.Entries() {
				next = 0x0FFFFFFF
			}
			binary.LittleEndian.PutUint32(fat[4*c:], next)
		}
	}
	r := rand.New(rand.NewPCG(21, 3))
	data := img[l.DataOffset : l.DataOffset+int64(l.Clusters)*l.ClusterSize]
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], r.Uint64())
	}
	return img
}

// TestWriteWorkImages writes the images for scripts/bench and by-hand
// timing: FTOOLS_WORK_IMAGES=dir go test -run TestWriteWorkImages.
func TestWriteWorkImages(t *testing.T) {
	dir := os.Getenv("FTOOLS_WORK_IMAGES")
	if dir == "" {
		t.Skip("FTOOLS_WORK_IMAGES names no directory")
	}
	for name, build := range map[string]func(testing.TB) []byte{"full-fat.img": fullFATImage, "root-span.img": rootSpanImage} {
		if err := os.WriteFile(dir+"/"+name, build(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckWorkLinear checks and repairs volumes whose damage spans every
// cluster, and holds the steps counted (chain links, FAT entries,
// directory slots, names tried) to a bound linear in the clusters: each
// pass follows every link, reads every entry and slot a few times at
// most. Saving or freeing one lost chain per cluster, or renaming every
// junk entry of a root that spans the volume, must not cost a sweep of
// the volume or of the names taken so far each.
func TestCheckWorkLinear(t *testing.T) {
	for _, tc := range []struct {
		name    string
		build   func(testing.TB) []byte
		salvage bool
		lost    int // lost chains Check finds
	}{
		{"full-fat free", fullFATImage, false, 100791},
		{"full-fat salvage", fullFATImage, true, 100791},
		{"root-span free", rootSpanImage, false, -1},
		{"root-span salvage", rootSpanImage, true, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := memDevice(t, tc.build(t))
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			v.Clock = func() time.Time { return checkClock }
			// The budget cuts a quadratic search short once the bound
			// is passed: the test then fails at once.
			bound := workPerCluster * int64(v.layout.Clusters)
			rep, err := Check(v, CheckOptions{Salvage: tc.salvage, workBudget: bound})
			if err != nil {
				t.Fatal(err)
			}
			if tc.lost >= 0 && rep.LostChains != tc.lost {
				t.Errorf("%d lost chains, want %d", rep.LostChains, tc.lost)
			}
			w := rep.plan.work
			t.Logf("check: %+v for %d clusters", w, rep.Clusters)
			if w.total() > bound {
				t.Errorf("Check took %d steps (%+v), more than %d for %d clusters", w.total(), w, bound, rep.Clusters)
			}
			if _, err := Repair(v, rep, RepairOptions{}); err != nil {
				t.Fatal(err)
			}
			w = rep.plan.work
			t.Logf("check and repair: %+v", w)
			if w.total() > bound {
				t.Errorf("Check and Repair took %d steps (%+v), more than %d for %d clusters", w.total(), w, bound, rep.Clusters)
			}
			if tc.salvage {
				return // a full root leaves lost chains unsaved
			}
			v, err = Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Check(v, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !again.Clean() {
				t.Errorf("after the repair: %d problems, first %v", again.Remaining(), again.Problems[0])
			}
		})
	}
}

// workPerCluster bounds the steps a check and its repair (with its
// verification passes) take per cluster of the volumes above, whose
// clusters hold 16 directory slots each.
const workPerCluster = 24
