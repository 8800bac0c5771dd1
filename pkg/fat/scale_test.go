package fat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// scaleImage formats an image file of size bytes as FAT32 with 512-byte
// clusters and opens it read-write (buffered). It returns the image's path
// and the volume.
func scaleImage(t *testing.T, size int64) (string, *Volume) {
	t.Helper()
	return formatImage(t, size, FormatParams{Size: size, Type: FAT32, SectorsPerCluster: 1})
}

// formatImage formats an image file of size bytes as p says and opens it
// read-write (buffered). It returns the image's path and the volume.
func formatImage(t *testing.T, size int64, p FormatParams) (string, *Volume) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true, Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Format(dev, p, time.Unix(1e9, 0)); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return img, v
}

// small sets a package budget for the test's duration.
func small[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// reopenRead opens img read-only.
func reopenRead(t *testing.T, img string) *Volume {
	t.Helper()
	dev, err := fio.Open(img, fio.Options{Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	r, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// diskEntry reads FAT 1's entry c from the device, as a cut would leave it.
func diskEntry(t *testing.T, v *Volume, c Cluster) uint32 {
	t.Helper()
	b := make([]byte, 4)
	if _, err := v.Device().ReadAt(b, v.layout.FATOffset+4*int64(c)); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(b) & mask32
}

// A volume whose FAT is far larger than the windows it may keep: writing
// across all of it spills changed windows early, and a link held for a
// later phase (a directory growing) keeps its old value on disk until
// then. The result is consistent (fsck.fat), and reads back.
func TestFATWindowsSpillKeepsHeldLinks(t *testing.T) {
	small(t, &fatMaxResident, 2)
	img, v := scaleImage(t, 64<<20) // 131,000-odd clusters: 8 windows
	if v.table.nwin < 8 {
		t.Fatalf("%d windows", v.table.nwin)
	}
	if err := v.Mkdir("dir", time.Unix(1e9, 0)); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	d, err := v.loadDir(recOf(t, v, "dir").Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	held := len(d.chain) - 1
	last := d.chain[held]
	// Enough long names to grow the directory (its last cluster's link
	// is held for phaseEntries), then files over every window.
	for i := 0; i < 40; i++ {
		raPut(t, v, fmt.Sprintf("dir/a long file name %03d.txt", i), []byte("x"))
	}
	if len(d.chain) < 2 {
		t.Fatal("the directory did not grow")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string][]byte{}
	for i := 0; i < 12; i++ {
		data := make([]byte, 5<<20)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		name := fmt.Sprintf("big%02d.bin", i)
		raPut(t, v, name, data)
		want[name] = data
	}
	if got := diskEntry(t, v, last); got != eoc32 {
		t.Fatalf("the held link of cluster %d reached the disk early: %#x", last, got)
	}
	writes := v.Device().Stats().WriteRequests
	if writes == 0 {
		t.Fatal("no FAT window was written early")
	}
	if v.table.resident > fatMaxResident+1 {
		t.Fatalf("%d windows in memory, at most %d wanted", v.table.resident, fatMaxResident)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if got := diskEntry(t, v, last); got != uint32(d.chain[held+1]) {
		t.Fatalf("cluster %d links to %#x on disk, want %d", last, got, d.chain[held+1])
	}
	fsckClean(t, img)
	r := reopenRead(t, img)
	for name, data := range want {
		f, err := r.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, %v", name, len(got), err)
		}
	}
	ents, err := r.ReadDir("dir")
	if err != nil || len(ents) != 40 {
		t.Fatalf("dir: %d entries, %v", len(ents), err)
	}
}

// The counting pass agrees with a count over the whole table: free and
// bad clusters, and the free clusters other entries link to (here from
// every window to every other, with the deferred lookups resolved
// several times over).
func TestFATCountMatchesWholeTable(t *testing.T) {
	small(t, &fatMaxResident, 3)
	small(t, &maxDeferred, 7)
	_, v := scaleImage(t, 64<<20)
	tb := v.table
	rng := rand.New(rand.NewPCG(3, 4))
	maxC := Cluster(tb.entries - 1)
	for i := 0; i < 20000; i++ {
		c := Cluster(2 + rng.IntN(int(maxC-1)))
		switch rng.IntN(5) {
		case 0:
			tb.Set(c, bad32)
		case 1:
			tb.Set(c, eoc32)
		default:
			tb.Set(c, Cluster(2+rng.IntN(int(maxC-1))))
		}
	}
	if err := v.FlushFAT(); err != nil {
		t.Fatal(err)
	}
	// The same on disk, counted in a fresh volume that has changed a few
	// entries in memory first (they must count as they are now).
	v2, err := Open(v.Device())
	if err != nil {
		t.Fatal(err)
	}
	v2.writable = true
	for i := 0; i < 50; i++ {
		v2.table.Set(Cluster(2+rng.IntN(int(maxC-1))), 0)
	}
	whole, err := NewTable(FAT32, bytes.Clone(v2.table.Bytes()), v2.layout.Clusters)
	if err != nil {
		t.Fatal(err)
	}
	var free, bad uint32
	inUse := map[Cluster]bool{}
	for c := FirstCluster; c <= maxC; c++ {
		x := whole.Get(c)
		switch {
		case x == 0:
			free++
		case x == bad32:
			bad++
		case x >= 2 && x <= maxC && whole.Get(x) == 0:
			inUse[x] = true
		}
	}
	if got := v2.FreeClusters(); got != free {
		t.Fatalf("free %d, want %d", got, free)
	}
	if got := v2.BadClusters(); got != bad {
		t.Fatalf("bad %d, want %d", got, bad)
	}
	if len(v2.table.inUse) != len(inUse) {
		t.Fatalf("%d clusters in use although free, want %d", len(v2.table.inUse), len(inUse))
	}
	for c := range inUse {
		if _, ok := v2.table.inUse[c]; !ok {
			t.Fatalf("cluster %d (free, linked to) not found", c)
		}
	}
}

// The allocator's searches through the summary find what a scan of every
// entry finds: the first run of n from a cluster on, and the largest run.
func TestAllocSummaryMatchesScan(t *testing.T) {
	small(t, &fatMaxResident, 3)
	_, v := scaleImage(t, 64<<20)
	tb := v.table
	maxC := Cluster(tb.entries - 1)
	rng := rand.New(rand.NewPCG(5, 6))
	// Used stretches of random length, free holes of random length, and
	// some whole windows free or used.
	for c := Cluster(3); c <= maxC; {
		n := Cluster(1 + rng.IntN(3000))
		if rng.IntN(3) > 0 {
			for x := c; x < min(c+n, maxC+1); x++ {
				tb.Set(x, eoc32)
			}
		}
		c += n
	}
	brute := func(from, to Cluster, n uint32) (Cluster, bool) {
		var run uint32
		for c := from; c <= min(to, maxC); c++ {
			if tb.Get(c) != 0 {
				run = 0
				continue
			}
			if run++; run == n {
				return c - Cluster(n) + 1, true
			}
		}
		return 0, false
	}
	v.freeCount()
	for i := 0; i < 300; i++ {
		from := Cluster(2 + rng.IntN(int(maxC-1)))
		to := from + Cluster(rng.IntN(int(maxC)))
		n := uint32(1 + rng.IntN(5000))
		gs, gok := tb.findRun(from, to, n)
		ws, wok := brute(from, to, n)
		if gs != ws || gok != wok {
			t.Fatalf("findRun(%d, %d, %d) = %d %v, want %d %v", from, to, n, gs, gok, ws, wok)
		}
	}
	var best Extent
	var run uint32
	for c := Cluster(2); c <= maxC+1; c++ {
		if c <= maxC && tb.Get(c) == 0 {
			run++
			continue
		}
		if run > best.Len {
			best = Extent{c - Cluster(run), run}
		}
		run = 0
	}
	if got := tb.largestRun(); got != best {
		t.Fatalf("largestRun %v, want %v", got, best)
	}
}

// A tree far larger than the directory budget: directories are dropped
// once clean, the volume commits when those with changes grow past their
// budget, and everything reads back.
func TestDirCacheBounded(t *testing.T) {
	small(t, &dirBudget, 64<<10)
	small(t, &dirtyBudget, 128<<10)
	img, v := scaleImage(t, 64<<20)
	want := map[string]string{}
	for d := 0; d < 40; d++ {
		for f := 0; f < 60; f++ {
			name := fmt.Sprintf("folder %02d/a file with a long name %03d.txt", d, f)
			if f == 0 {
				if err := v.Mkdir(fmt.Sprintf("folder %02d", d), time.Unix(1e9, 0)); err != nil {
					t.Fatal(err)
				}
			}
			raPut(t, v, name, []byte(name))
			want[name] = name
		}
		if v.dircache.Cost() > 4*dirtyBudget {
			t.Fatalf("directories charged %d after %d folders", v.dircache.Cost(), d+1)
		}
	}
	if v.commits < 3 {
		t.Fatalf("%d commits: the volume never committed on its own", v.commits)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	fsckClean(t, img)
	r := reopenRead(t, img)
	voltest.ReadTreeBack(t, r, want, r.dircache.Cost, 2*dirBudget+4*(2<<20))
}

// ScanFAT streams FAT 1 as the volume holds it (changes included) and the
// other copies as the disk holds them; ReadFAT reads a copy's raw bytes.
func TestScanFAT(t *testing.T) {
	small(t, &fatMaxResident, 2)
	_, v := scaleImage(t, 64<<20)
	tb := v.table
	maxC := Cluster(tb.entries - 1)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 3000; i++ {
		tb.Set(Cluster(2+rng.IntN(int(maxC-1))), Cluster(2+rng.IntN(int(maxC-1))))
	}
	if err := v.FlushFAT(); err != nil {
		t.Fatal(err)
	}
	// A change in memory only, in FAT 1.
	tb.Set(77, 1234)
	whole, err := NewTable(FAT32, bytes.Clone(v.table.Bytes()), v.layout.Clusters)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < v.layout.NumFATs; k++ {
		next := Cluster(0)
		err := v.ScanFAT(k, func(first Cluster, vals []uint32) error {
			if first != next {
				return fmt.Errorf("run at %d, want %d", first, next)
			}
			for i, x := range vals {
				c := first + Cluster(i)
				want := uint32(whole.Get(c))
				if k > 0 && c == 77 {
					want = uint32(diskEntry(t, v, 77)) // FAT 2 has FAT 1's old value
				}
				if x != want {
					return fmt.Errorf("FAT %d entry %d: %#x, want %#x", k+1, c, x, want)
				}
			}
			next = first + Cluster(len(vals))
			return nil
		})
		if err != nil || uint32(next) != tb.entries {
			t.Fatalf("FAT %d: %v (ended at %d of %d)", k+1, err, next, tb.entries)
		}
	}
	raw := make([]byte, 4096)
	if err := v.ReadFAT(1, raw, 4096); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1024; i++ {
		c := Cluster(1024 + i)
		if got := binary.LittleEndian.Uint32(raw[4*i:]) & mask32; got != uint32(whole.Get(c)) {
			t.Fatalf("ReadFAT: entry %d is %#x, want %#x", c, got, whole.Get(c))
		}
	}
	if err := v.ReadFAT(2, raw, 0); err == nil {
		t.Fatal("ReadFAT of a third FAT: no error")
	}
}
