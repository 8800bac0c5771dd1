package exfat

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/resize"
	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

const resizeMiB = 1 << 20

// mkfsImage makes an image of size bytes with mkfs.exfat (4 KiB clusters,
// and args).
func mkfsImage(t testing.TB, size int64, args ...string) string {
	t.Helper()
	img := newImage(t, size)
	if out, err := runTool(t, "mkfs.exfat", append(append([]string{"-c", "4096"}, args...), img)...); err != nil {
		t.Fatalf("mkfs.exfat: %v\n%s", err, out)
	}
	return img
}

// resizeCase is a test's base volume: 40 MiB of 4 KiB clusters made by
// mkfs.exfat (with args) or by Format (with sector-byte sectors).
type resizeCase struct {
	mkfs   bool
	args   []string
	sector int
}

// String names the base volume in a subtest's name: "ours" or
// "mkfs.exfat", then what is not the default.
func (c resizeCase) String() string {
	s := "ours"
	if c.mkfs {
		s = "mkfs.exfat"
	}
	if c.sector != 0 {
		s += fmt.Sprintf(" with %d-byte sectors", c.sector)
	}
	for _, a := range c.args {
		s += " " + a
	}
	return s
}

func resizeBase(t *testing.T, c resizeCase) string {
	t.Helper()
	if c.mkfs {
		return mkfsImage(t, 40*resizeMiB, c.args...)
	}
	return formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB, SectorSize: c.sector, ClusterSize: 4096, Label: "RESIZE"})
}

// fillForResize puts filler files at the start of the heap, then the files
// the test cares about after them (a large contiguous file, a fragmented
// one, nested directories of several clusters, small files), then removes
// the filler (all of it, or every other file when holes is set, so that no
// large free run is left below). It returns every file's contents.
func fillForResize(t *testing.T, img string, holes bool) map[string][]byte {
	t.Helper()
	want := map[string][]byte{}
	v := openVol(t, img, true)
	if err := v.Mkdir("fill", testTime); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		writeFile(t, v, fmt.Sprintf("fill/f%02d", i), pattern(uint64(100+i), 800<<10), 800<<10)
	}
	put := func(name string, data []byte, hint int64) {
		writeFile(t, v, name, data, hint)
		want[name] = data
	}
	put("big.bin", pattern(1, 3*resizeMiB+1234), 3*resizeMiB+1234)
	for _, d := range []string{"d1", "d1/d2", "d1/d2/d3"} {
		if err := v.Mkdir(d, testTime); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 120 {
		// Long names: the directories grow past one cluster.
		put(fmt.Sprintf("d1/a file with a rather long name number %03d", i), pattern(uint64(200+i), 100+i*37), 0)
	}
	for i := range 40 {
		put(fmt.Sprintf("d1/d2/d3/deep file with a long name %02d", i), pattern(uint64(400+i), 5000+i), 0)
	}
	put("d1/d2/mid.bin", pattern(3, 300000), 300000)
	put("empty", nil, 0)
	// Two files appended in turn: FAT chains of many runs.
	var a, b []byte
	for i := range 12 {
		for _, f := range []struct {
			name string
			acc  *[]byte
		}{{"frag.bin", &a}, {"frag2.bin", &b}} {
			chunk := pattern(uint64(500+i*2+len(f.name)), 9000)
			u, err := v.OpenFile(f.name, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
			voltest.Put(t, u, err, chunk)
			*f.acc = append(*f.acc, chunk...)
		}
	}
	want["frag.bin"], want["frag2.bin"] = a, b
	if holes {
		for i := 0; i < 20; i += 2 {
			if err := v.Remove(fmt.Sprintf("fill/f%02d", i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i < 20; i += 2 {
			want[fmt.Sprintf("fill/f%02d", i)] = pattern(uint64(100+i), 800<<10)
		}
	} else if err := v.RemoveAll("fill"); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	rv := openVol(t, img, false)
	if rec(t, rv, "frag.bin").Set.Stream.NoFATChain() {
		t.Fatal("frag.bin is not fragmented: the test builds nothing it means to")
	}
	closeVol(t, rv)
	return want
}

// resizeImage resizes img to size bytes (growing the file first, cutting it
// after a shrink, as the caller does).
func resizeImage(t *testing.T, img string, o resize.Options) (*resize.Plan, error) {
	t.Helper()
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	if o.Size > fi.Size() && !o.DryRun {
		if err := os.Truncate(img, o.Size); err != nil {
			t.Fatal(err)
		}
	}
	// Writable even for a dry run: it must write nothing all the same.
	d, err := fio.Open(img, fio.Options{Write: true, Buffered: true, Sync: fio.SyncClose})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Resize(d, o)
	if cerr := d.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if err == nil && !o.DryRun && plan.NewSize < fi.Size() {
		if err := os.Truncate(img, plan.NewSize); err != nil {
			t.Fatal(err)
		}
	}
	return plan, err
}

// checkResized holds img to fsck.exfat -n and Check, and reads every file
// of want back.
func checkResized(t *testing.T, img string, want map[string][]byte, clusters uint32) {
	t.Helper()
	fsckClean(t, img)
	if rep := checkImage(t, img); !rep.Clean() {
		t.Fatalf("Check: %v", rep.Problems)
	}
	v := openVol(t, img, false)
	defer closeVol(t, v)
	if v.layout.Clusters != clusters {
		t.Fatalf("the volume has %d clusters, want %d", v.layout.Clusters, clusters)
	}
	if got, free := dumpFree(t, img), v.FreeClusters(); got != free {
		t.Errorf("dump.exfat counts %d free clusters, ftools %d", got, free)
	}
	for name, data := range want {
		if got := readFile(t, v, name); !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes read back differ from the %d written", name, len(got), len(data))
		}
	}
}

// hashFile hashes the file at p and its length.
func hashFile(t *testing.T, p string) string { return hashPrefix(t, p, 1<<62) }

// hashPrefix hashes the first n bytes of the file at p, and its length.
func hashPrefix(t *testing.T, p string, n int64) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, n)); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x:%d", h.Sum(nil), fi.Size())
}

// pastEnd lists the files of want with a cluster at or past end.
func pastEnd(t *testing.T, img string, want map[string][]byte, end Cluster) (n int, noFAT bool) {
	t.Helper()
	v := openVol(t, img, false)
	defer closeVol(t, v)
	for name := range want {
		r := rec(t, v, name)
		exts, err := v.recordExtents(r)
		if err != nil {
			t.Fatal(err)
		}
		if pastOf(exts, end) > 0 {
			n++
			if r.Set.Stream.NoFATChain() && exts[0].Start < end {
				noFAT = true // a contiguous run across the end
			}
		}
	}
	return n, noFAT
}

func TestResizeShrink(t *testing.T) {
	for _, tc := range []struct {
		base  resizeCase
		holes bool
	}{
		{resizeCase{}, false},
		{resizeCase{}, true},
		{resizeCase{sector: 4096}, true},
		{resizeCase{mkfs: true}, false},
		{resizeCase{mkfs: true}, true},
		{resizeCase{mkfs: true, args: []string{"--pack-bitmap"}}, false},
	} {
		name := tc.base.String()
		if tc.holes {
			name += " with holes"
		}
		t.Run(name, func(t *testing.T) {
			img := resizeBase(t, tc.base)
			want := fillForResize(t, img, tc.holes)
			v := openVol(t, img, false)
			l := *v.layout
			closeVol(t, v)
			// The new end falls inside big.bin, the first file after the
			// filler.
			size := l.HeapOffset + 16*resizeMiB + 512*1024
			end := Cluster((size-l.HeapOffset)/l.ClusterSize) + FirstCluster
			n, across := pastEnd(t, img, want, end)
			if n < 5 || !across {
				t.Fatalf("%d files lie past the new end (across it contiguous: %v): the test moves too little", n, across)
			}
			// Too far: refused, the image unchanged.
			before := hashFile(t, img)
			_, err := resizeImage(t, img, resize.Options{Size: 6 * resizeMiB})
			if !errors.Is(err, resize.ErrTooSmall) || !strings.Contains(err.Error(), "/big.bin") {
				t.Fatalf("shrinking below the data: %v, want ErrTooSmall naming /big.bin", err)
			}
			t.Log(err)
			if hashFile(t, img) != before {
				t.Fatal("a refused shrink changed the image")
			}
			// Dry run: a plan, nothing written.
			plan, err := resizeImage(t, img, resize.Options{Size: size, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if hashFile(t, img) != before {
				t.Fatal("a dry run changed the image")
			}
			if plan.MoveClusters == 0 || len(plan.Steps) == 0 || plan.NewClusters >= plan.OldClusters {
				t.Fatalf("dry-run plan: %+v", plan)
			}
			got, err := resizeImage(t, img, resize.Options{Size: size})
			if err != nil {
				t.Fatal(err)
			}
			if got.MoveClusters != plan.MoveClusters || got.NewClusters != plan.NewClusters {
				t.Fatalf("the resize did %+v, the dry run planned %+v", got, plan)
			}
			t.Logf("moved %d clusters; %d -> %d clusters; steps %q", got.MoveClusters, got.OldClusters, got.NewClusters, got.Steps)
			checkResized(t, img, want, got.NewClusters)
			if tc.holes {
				// No 3 MiB run was free below the end: big.bin is chained now.
				v := openVol(t, img, false)
				if rec(t, v, "big.bin").Set.Stream.NoFATChain() {
					t.Error("big.bin kept NoFatChain though no run of its size was free")
				}
				closeVol(t, v)
			}
		})
	}
}

func TestResizeGrow(t *testing.T) {
	for _, tc := range []struct {
		base     resizeCase
		size     int64
		relocate bool // the bitmap needs a second cluster, and the one after it is in use
	}{
		{resizeCase{}, 100 * resizeMiB, false},
		{resizeCase{}, 300 * resizeMiB, true},
		{resizeCase{sector: 4096}, 300 * resizeMiB, true},
		{resizeCase{mkfs: true}, 100 * resizeMiB, false},
		{resizeCase{mkfs: true}, 300 * resizeMiB, true},
		{resizeCase{mkfs: true, args: []string{"--pack-bitmap"}}, 300 * resizeMiB, true},
	} {
		name := tc.base.String() + " within the bitmap"
		if tc.relocate {
			name = tc.base.String() + " moving the bitmap"
		}
		t.Run(name, func(t *testing.T) {
			img := resizeBase(t, tc.base)
			want := fillForResize(t, img, true)
			v := openVol(t, img, false)
			oldBitmap := v.bitmapEnt
			closeVol(t, v)
			before := hashFile(t, img)
			plan, err := resizeImage(t, img, resize.Options{Size: tc.size, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if hashFile(t, img) != before {
				t.Fatal("a dry run changed the image")
			}
			got, err := resizeImage(t, img, resize.Options{Size: tc.size})
			if err != nil {
				t.Fatal(err)
			}
			if got.NewClusters != plan.NewClusters || got.NewClusters <= got.OldClusters {
				t.Fatalf("the resize did %+v, the dry run planned %+v", got, plan)
			}
			t.Logf("%d -> %d clusters, FAT %d -> %d sectors, bitmap %d -> %d bytes; steps %q", got.OldClusters, got.NewClusters,
				got.OldFATSectors, got.NewFATSectors, got.OldBitmapBytes, got.NewBitmapBytes, got.Steps)
			checkResized(t, img, want, got.NewClusters)
			v = openVol(t, img, false)
			moved := v.bitmapEnt.FirstCluster != oldBitmap.FirstCluster
			closeVol(t, v)
			if moved != tc.relocate {
				t.Fatalf("the bitmap moved: %v, want %v", moved, tc.relocate)
			}
			// The new clusters hold data.
			v = openVol(t, img, true)
			huge := pattern(9, int(tc.size-50*resizeMiB))
			writeFile(t, v, "huge.bin", huge, int64(len(huge)))
			closeVol(t, v)
			want["huge.bin"] = huge
			checkResized(t, img, want, got.NewClusters)
		})
	}
}

// TestResizeDryRunPastDeviceEnd: a dry run plans a grow past the end of
// the device (the caller extends it only once the plan holds), as FAT's
// Resize does; the grow itself is refused, naming the device's size, and
// writes nothing.
func TestResizeDryRunPastDeviceEnd(t *testing.T) {
	img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB})
	before := hashPrefix(t, img, 40*resizeMiB)
	plan, err := resizeImage(t, img, resize.Options{Size: 80*resizeMiB + 100, DryRun: true})
	if err != nil || plan.NewSize != 80*resizeMiB || !plan.DryRun {
		t.Fatalf("a dry run growing past the device's end: %+v, %v", plan, err)
	}
	d, err := fio.Open(img, fio.Options{Write: true, Buffered: true, Sync: fio.SyncClose})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resize(d, resize.Options{Size: 80*resizeMiB + 100})
	if cerr := d.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if want := fmt.Sprintf("resize to %d bytes: the device or image holds only %d bytes", 80*resizeMiB, 40*resizeMiB); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("growing past the device's end: %v, want %q", err, want)
	}
	if hashPrefix(t, img, 40*resizeMiB) != before {
		t.Fatal("a dry run or a refused grow changed the image")
	}
}

func TestResizeRefusals(t *testing.T) {
	img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB})
	// Past exFAT's cluster count: refused before the device is looked at.
	if _, err := resizeImage(t, img, resize.Options{Size: (1<<32 + 10000) * 4096, DryRun: true}); !errors.Is(err, resize.ErrTypeLimit) {
		t.Fatalf("growing past 2^32-11 clusters: %v, want ErrTypeLimit", err)
	}
	// A FAT that would reach past the gap before the cluster heap: the
	// first size whose FAT does not fit.
	v := openVol(t, img, false)
	l := *v.layout
	closeVol(t, v)
	entries := (l.HeapOffset - l.FATOffset) / 4
	big := l.HeapOffset + (entries-1)*l.ClusterSize
	if err := os.Truncate(img, big); err != nil {
		t.Fatal(err)
	}
	// Whatever a grow writes lies in the old volume's 40 MiB.
	before := hashPrefix(t, img, 40*resizeMiB)
	_, err := resizeImage(t, img, resize.Options{Size: big})
	var full *resize.FATFullError
	if !errors.As(err, &full) || !errors.Is(err, resize.ErrFATFull) || !strings.Contains(err.Error(), "the cluster heap would move") {
		t.Fatalf("growing the FAT past the heap: %v, want a FATFullError naming the heap", err)
	}
	if full.Largest != big-l.ClusterSize || full.Asked != big {
		t.Errorf("the refusal carries %d bytes as the largest size (asked %d), want %d", full.Largest, full.Asked, big-l.ClusterSize)
	}
	t.Log(err)
	if hashPrefix(t, img, 40*resizeMiB) != before {
		t.Fatal("a refused grow changed the image")
	}
	// One cluster less, the largest size the error names: the FAT just fits.
	if !strings.Contains(err.Error(), fmt.Sprintf("is %d bytes", big-l.ClusterSize)) {
		t.Errorf("the refusal does not name the largest size %d", big-l.ClusterSize)
	}
	if _, err := resizeImage(t, img, resize.Options{Size: big - l.ClusterSize, DryRun: true}); err != nil {
		t.Fatalf("growing the FAT to the heap's start: %v", err)
	}
}

// relocateUpcase copies the up-case table to the first free run at or
// after from, chained, and repoints its entry (committed; its old
// clusters are freed by the next commit).
func relocateUpcase(t *testing.T, v *Volume, from Cluster) {
	t.Helper()
	l := v.layout
	up, err := v.upcaseExtents()
	if err != nil {
		t.Fatal(err)
	}
	n := uint32(extentsClusters(up))
	raw, err := v.readExtents(up, int64(v.upcaseEnt.DataLength))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.begin(); err != nil {
		t.Fatal(err)
	}
	dst, ok := v.bitmap.findRun(from, l.MaxCluster(), n)
	if !ok {
		t.Fatal("no room for the up-case table")
	}
	v.bitmap.mark(dst, true)
	if err := v.fat.setChain([]Extent{dst}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.dev.WriteAt(raw, l.ClusterOffset(dst.Start)); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	(&resizer{v: v}).setSysEntry(TypeUpcase, func(e *AllocEntry) { e.FirstCluster = dst.Start })
	v.pendingFree = append(v.pendingFree, up...)
}

// systemFilesHigh makes a volume (512-byte clusters) whose allocation
// bitmap and up-case table lie high in the heap with free space below
// them: filler first, a grow that moves the bitmap past the filler, the
// up-case table copied past it too, then the filler removed. It returns
// the image, its files, and a size whose end lies below both.
func systemFilesHigh(t *testing.T) (string, map[string][]byte, int64) {
	t.Helper()
	img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB, ClusterSize: 512, Label: "SYSTEM"})
	v := openVol(t, img, true)
	if err := v.Mkdir("fill", testTime); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		writeFile(t, v, fmt.Sprintf("fill/f%02d", i), pattern(uint64(600+i), resizeMiB), resizeMiB)
	}
	closeVol(t, v)
	if _, err := resizeImage(t, img, resize.Options{Size: 48 * resizeMiB}); err != nil {
		t.Fatal(err)
	}
	v = openVol(t, img, true)
	l := v.layout
	// The up-case table, copied to the first free run past the filler.
	relocateUpcase(t, v, v.bitmap.exts[0].End())
	if err := v.RemoveAll("fill"); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for i := range 5 {
		name := fmt.Sprintf("after%d.bin", i)
		want[name] = pattern(uint64(700+i), 200000+i)
		writeFile(t, v, name, want[name], 0)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	// The root directory, copied to a free run past the rest and named
	// by the boot region.
	root := v.root()
	rn := uint32(extentsClusters(root.exts))
	dst, ok := v.bitmap.findRun(v.upcaseEnt.FirstCluster+Cluster(4000), l.MaxCluster(), rn)
	if !ok {
		t.Fatal("no room for the root directory")
	}
	v.bitmap.mark(dst, true)
	if err := v.fat.setChain([]Extent{dst}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.dev.WriteAt(root.raw, l.ClusterOffset(dst.Start)); err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	oldRoot := root.exts
	rz := &resizer{v: v, secs: v.boot.VolumeLength, fatLen: v.boot.FATLength, newN: l.Clusters, newRoot: dst.Start}
	if err := rz.writeBoot(); err != nil {
		t.Fatal(err)
	}
	root.exts = []Extent{dst}
	v.pendingFree = append(v.pendingFree, oldRoot...)
	bm, upc, rc := v.bitmapEnt.FirstCluster, v.upcaseEnt.FirstCluster, l.RootCluster
	closeVol(t, v)
	size := l.HeapOffset + 8*resizeMiB
	if end := Cluster((size-l.HeapOffset)/l.ClusterSize) + FirstCluster; bm < end || upc < end || rc < end {
		t.Fatalf("the bitmap (cluster %d), the up-case table (%d) or the root (%d) lies below the new end %d", bm, upc, rc, end)
	}
	fsckClean(t, img)
	return img, want, size
}

func TestResizeShrinkSystemFiles(t *testing.T) {
	img, want, size := systemFilesHigh(t)
	plan, err := resizeImage(t, img, resize.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("steps %q", plan.Steps)
	checkResized(t, img, want, plan.NewClusters)
	v := openVol(t, img, false)
	defer closeVol(t, v)
	if bm, upc := v.bitmapEnt, v.upcaseEnt; !v.layout.ValidCluster(bm.FirstCluster) || !v.layout.ValidCluster(upc.FirstCluster) {
		t.Fatalf("bitmap at %d, up-case table at %d: outside the %d clusters", bm.FirstCluster, upc.FirstCluster, v.layout.Clusters)
	}
	if l := v.layout; !l.ValidCluster(l.RootCluster) {
		t.Fatalf("the root directory at %d: outside the %d clusters", l.RootCluster, l.Clusters)
	}
	// Both are one run each: the Linux driver reads them as contiguous.
	up, err := v.upcaseExtents()
	if err != nil {
		t.Fatal(err)
	}
	bm, err := v.fullBitmapExtents()
	if err != nil {
		t.Fatal(err)
	}
	if len(up) != 1 || len(bm) != 1 {
		t.Fatalf("the up-case table lies in %v, the bitmap in %v: not one run each", up, bm)
	}
}

// TestResizeShrinkLargeFile moves a 24 MiB contiguous file across the new
// end in several copy requests, and stops a second shrink through its
// context: the volume stays the old one, whole.
func TestResizeShrinkLargeFile(t *testing.T) {
	img := formatImage(t, 128*resizeMiB, FormatParams{Size: 128 * resizeMiB})
	v := openVol(t, img, true)
	for i := range 6 {
		writeFile(t, v, fmt.Sprintf("fill%d", i), pattern(uint64(800+i), 10*resizeMiB), 10*resizeMiB)
	}
	want := map[string][]byte{"large.bin": pattern(8, 24*resizeMiB+77)}
	writeFile(t, v, "large.bin", want["large.bin"], int64(len(want["large.bin"])))
	for i := range 6 {
		if err := v.Remove(fmt.Sprintf("fill%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		name := fmt.Sprintf("small%02d", i)
		want[name] = pattern(uint64(900+i), 40000)
		writeFile(t, v, name, want[name], 0)
	}
	closeVol(t, v)
	size := int64(70 * resizeMiB)

	// Cancelled once the first bytes are copied: the chunk under way
	// ends whole, nothing after it starts.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := 0
	_, err := resizeImage(t, img, resize.Options{Size: size, Context: ctx, Progress: func(done, total int64) {
		progress++
		cancel()
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled shrink: %v", err)
	}
	old := checkImage(t, img)
	if !old.Clean() {
		t.Fatalf("after a cancelled shrink: %v", old.Problems)
	}
	v = openVol(t, img, false)
	oldN := v.layout.Clusters
	closeVol(t, v)
	checkResized(t, img, want, oldN)

	plan, err := resizeImage(t, img, resize.Options{Size: size, Progress: func(done, total int64) { progress++ }})
	if err != nil {
		t.Fatal(err)
	}
	checkResized(t, img, want, plan.NewClusters)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	if !rec(t, v, "large.bin").Set.Stream.NoFATChain() {
		t.Error("large.bin lost NoFatChain though a run of its length was free")
	}
	if progress < 6 {
		t.Errorf("%d progress reports: the large file went in fewer requests than its 24 MiB need at 4 MiB each", progress)
	}
}

// bitmapRoomAfter makes a volume (512-byte clusters, so that the bitmap
// takes 20) whose up-case table was moved away from just after the
// bitmap: a grow of a few MiB extends the bitmap in place.
func bitmapRoomAfter(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB, ClusterSize: 512, Label: "EXTEND"})
	want := map[string][]byte{}
	v := openVol(t, img, true)
	for i := range 4 {
		name := fmt.Sprintf("f%d", i)
		want[name] = pattern(uint64(1000+i), 300000)
		writeFile(t, v, name, want[name], 0)
	}
	relocateUpcase(t, v, v.layout.MaxCluster()/2)
	closeVol(t, v)
	fsckClean(t, img)
	return img, want
}

func TestResizeGrowExtendsBitmap(t *testing.T) {
	img, want := bitmapRoomAfter(t)
	v := openVol(t, img, false)
	before := v.bitmapEnt
	closeVol(t, v)
	size := int64(48 * resizeMiB)
	plan, err := resizeImage(t, img, resize.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("steps %q", plan.Steps)
	checkResized(t, img, want, plan.NewClusters)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	bm, err := v.fullBitmapExtents()
	if err != nil {
		t.Fatal(err)
	}
	if v.bitmapEnt.FirstCluster != before.FirstCluster || len(bm) != 1 || extentsClusters(bm) <= int64(before.DataLength)/v.layout.ClusterSize {
		t.Fatalf("the bitmap lies in %v (it started at %d with %d bytes): not extended in place", bm, before.FirstCluster, before.DataLength)
	}
}
