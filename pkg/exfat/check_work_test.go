package exfat

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// sharedExtentImage makes a 64 MiB volume of 4 KiB clusters holding one
// 56 MiB file, big, and a directory d of n entries whose stream
// extensions all name big's clusters: with sameSize their sizes are
// big's (one file left under n+1 names), otherwise each is a byte
// shorter than the one before (n+1 files sharing every cluster). The
// entry sets are written with their checksums and name hashes right, as
// damaged images have them.
//
// With chained, big is 40 MiB written a MiB at a time between the four
// KiB writes of another file, so that its clusters are a FAT chain of 40
// runs that every entry's check walks.
func sharedExtentImage(t *testing.T, n int, sameSize, chained bool) string {
	t.Helper()
	img := formatImage(t, 64<<20, FormatParams{ClusterSize: 4096})
	v := openVol(t, img, true)
	if chained {
		big, err := v.Create("big", 0, testTime)
		if err != nil {
			t.Fatal(err)
		}
		pad, err := v.Create("pad", 0, testTime)
		if err != nil {
			t.Fatal(err)
		}
		for range 40 {
			if _, err := big.Write(make([]byte, 1<<20)); err != nil {
				t.Fatal(err)
			}
			if _, err := pad.Write(make([]byte, 4096)); err != nil {
				t.Fatal(err)
			}
		}
		if err := big.Close(); err != nil {
			t.Fatal(err)
		}
		if err := pad.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		writeChunks(t, v, "big", 56<<20, make([]byte, 1<<20))
	}
	if err := v.Mkdir("d", testTime); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		writeFile(t, v, fmt.Sprintf("d/f%04d", i), nil, 0)
	}
	closeVol(t, v)
	v = openVol(t, img, false)
	_, big, err := v.lookup("test", "big")
	if err != nil {
		t.Fatal(err)
	}
	if big.Set.Stream.NoFATChain() == chained {
		t.Fatalf("big has NoFatChain %v", big.Set.Stream.NoFATChain())
	}
	type patch struct {
		off int64
		raw []byte
	}
	var patches []patch
	for i := range n {
		d, r, err := v.lookup("test", fmt.Sprintf("d/f%04d", i))
		if err != nil {
			t.Fatal(err)
		}
		set := r.Set
		set.Stream.Flags = big.Set.Stream.Flags
		set.Stream.FirstCluster = big.Set.Stream.FirstCluster
		set.Stream.DataLength = big.Set.Stream.DataLength
		if !sameSize {
			set.Stream.DataLength -= uint64(i + 1)
		}
		set.Stream.ValidDataLength = set.Stream.DataLength
		raw := set.Encode(v.up)
		for k := 0; k < len(raw); k += EntrySize {
			patches = append(patches, patch{d.entryOffset(r.Slot + k/EntrySize), raw[k : k+EntrySize]})
		}
	}
	closeVol(t, v)
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range patches {
		if _, err := f.WriteAt(p.raw, p.off); err != nil {
			t.Fatal(err)
		}
	}
	return img
}

// TestCheckWorkSharedExtent checks volumes where hundreds of entries name
// the same 14,336 clusters (or a FAT chain of 10,240), and holds the steps counted to a bound linear
// in the clusters and entries: claiming a run of clusters met before, and
// naming the owners of the clusters they share, must not cost a step per
// cluster per entry (400 entries took seconds and hundreds of MiB).
func TestCheckWorkSharedExtent(t *testing.T) {
	const n = 400
	for _, tc := range []struct {
		name     string
		sameSize bool
		chained  bool
		kind     string
	}{
		{"sizes differ", false, false, KindCrossLink},
		{"same size", true, false, KindRename},
		{"chained sizes differ", false, true, KindCrossLink},
		{"chained same size", true, true, KindRename},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := sharedExtentImage(t, n, tc.sameSize, tc.chained)
			v := openVol(t, img, true)
			defer closeVol(t, v)
			rep, err := Check(v, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bound := workPerUnit * (int64(rep.Clusters) + n + 1)
			w := rep.work
			t.Logf("check: %+v for %d clusters and %d entries", w, rep.Clusters, n+1)
			if w.total() > bound {
				t.Errorf("Check took %d steps (%+v), more than %d for %d clusters and %d entries", w.total(), w, bound, rep.Clusters, n+1)
			}
			var found *Problem
			for i, p := range rep.Problems {
				if p.Kind == tc.kind {
					if found != nil {
						t.Errorf("a second %s problem: %v", tc.kind, p)
					}
					found = &rep.Problems[i]
				} else {
					t.Errorf("unexpected problem %v", p)
				}
			}
			if found == nil {
				t.Fatalf("no %s problem among %v", tc.kind, kinds(rep))
			}
			if len(found.Paths) != n+1 || found.Paths[0] != "/big" || found.Paths[n] != fmt.Sprintf("/d/f%04d", n-1) {
				t.Errorf("%s names %d paths, want /big and the %d entries of /d", tc.kind, len(found.Paths), n)
			}
			bigClusters := 56 << 20 / 4096
			if tc.chained {
				bigClusters = 40 << 20 / 4096
			}
			if tc.kind == KindCrossLink && !strings.HasPrefix(found.Message, fmt.Sprintf("%d clusters are used by /big and /d/f0000 and ", bigClusters)) {
				t.Errorf("cross-link message %.120q", found.Message)
			}
			fixes, err := Repair(v, rep, RepairOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("repair: %q", fixes)
			if tc.sameSize {
				// The second and later names are deleted: the file stays
				// as big, and the volume is clean.
				if len(fixes) != 1 || !strings.Contains(fixes[0], fmt.Sprintf("%d files", n)) {
					t.Errorf("repair did %q", fixes)
				}
			} else if len(fixes) != 0 {
				t.Errorf("repair did %q to a cross-link", fixes)
			}
		})
	}
}

// workPerUnit bounds the steps a check takes per cluster and entry of
// the volumes above.
const workPerUnit = 4

// TestWriteWorkImages writes the images for scripts/bench and by-hand
// timing: FTOOLS_WORK_IMAGES=dir go test -run TestWriteWorkImages.
func TestWriteWorkImages(t *testing.T) {
	dir := os.Getenv("FTOOLS_WORK_IMAGES")
	if dir == "" {
		t.Skip("FTOOLS_WORK_IMAGES names no directory")
	}
	for _, x := range []struct {
		name              string
		sameSize, chained bool
	}{
		{"shared-extent.img", false, false},
		{"shared-extent-renamed.img", true, false},
		{"shared-chain.img", false, true},
	} {
		data, err := os.ReadFile(sharedExtentImage(t, 400, x.sameSize, x.chained))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+x.name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
