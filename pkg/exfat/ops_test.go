package exfat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// TestRename moves files and directories within and across directories,
// replaces a file, changes case, and refuses what rename(2) refuses.
func TestRename(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	v := openVol(t, img, true)
	for _, d := range []string{"a", "a/sub", "b"} {
		if err := v.Mkdir(d, testTime); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, v, "a/f", pattern(1, 5000), 5000)
	writeFile(t, v, "a/sub/g", pattern(2, 5000), 5000)
	writeFile(t, v, "b/old", pattern(3, 7000), 7000)
	writeFile(t, v, "b/victim", pattern(4, 9000), 9000)
	if err := v.Rename("a/f", "b/f"); err != nil {
		t.Fatal(err)
	}
	if err := v.Rename("a/sub", "b/sub2"); err != nil {
		t.Fatal(err)
	}
	if err := v.Rename("b/old", "b/victim"); err != nil { // replaces
		t.Fatal(err)
	}
	if err := v.Rename("b/f", "b/F"); err != nil { // case only, in place
		t.Fatal(err)
	}
	if err := v.Rename("b/F", "b/a much longer name than before.txt"); err != nil {
		t.Fatal(err)
	}
	if err := v.Rename("b", "b/sub2/x"); !errors.Is(err, ErrIntoItself) {
		t.Fatalf("moving a directory into itself: %v", err)
	}
	if err := v.Rename("b/victim", "b/sub2"); !errors.Is(err, ErrIsDir) {
		t.Fatalf("file over directory: %v", err)
	}
	closeVol(t, v)
	fsckClean(t, img)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	for name, want := range map[string][]byte{
		"b/a much longer name than before.txt": pattern(1, 5000),
		"b/sub2/g":                             pattern(2, 5000),
		"b/victim":                             pattern(3, 7000),
	} {
		if got := readFile(t, v, name); !bytes.Equal(got, want) {
			t.Errorf("%s reads back wrong", name)
		}
	}
	for _, gone := range []string{"a/f", "a/sub", "b/old", "b/F"} {
		if _, err := v.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists: %v", gone, err)
		}
	}
	if fi, err := v.Stat("b/A MUCH LONGER NAME THAN BEFORE.TXT"); err != nil || fi.Name() != "a much longer name than before.txt" {
		t.Errorf("renamed file: %v %v", fi, err)
	}
}

// TestRemoveAllAttrLabel removes a tree, changes attributes and the label,
// and holds the label to exfatlabel's reading of it.
func TestRemoveAllAttrLabel(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{Label: "before"})
	v := openVol(t, img, true)
	free0 := v.FreeClusters()
	if err := v.MkdirAll("t/u/w", testTime); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		writeFile(t, v, fmt.Sprintf("t/u/w/f%d", i), pattern(uint64(i), 3000*i), 0)
	}
	writeFile(t, v, "keep", []byte("kept"), 4)
	if err := v.RemoveAll("t"); err != nil {
		t.Fatal(err)
	}
	if err := v.RemoveAll("nothing/here"); err != nil {
		t.Fatalf("RemoveAll of a missing name: %v", err)
	}
	if err := v.SetAttr("keep", AttrReadOnly|AttrHidden, AttrArchive); err != nil {
		t.Fatal(err)
	}
	if err := v.SetAttr("keep", AttrDirectory, 0); !errors.Is(err, ErrAttr) {
		t.Fatalf("setting the directory bit: %v", err)
	}
	if err := v.SetLabel("Ünïcödé 12"); err != nil {
		t.Fatal(err)
	}
	if err := v.SetLabel("twelve chars"); err == nil {
		t.Fatal("a 12-character label was accepted")
	}
	closeVol(t, v)
	fsckClean(t, img)
	if out, err := runTool(t, "exfatlabel", img); err != nil || !strings.Contains(out, "Ünïcödé 12") {
		t.Fatalf("exfatlabel: %v\n%s", err, out)
	}
	v = openVol(t, img, true)
	if got := v.FreeClusters(); got != free0-1 {
		t.Errorf("free clusters %d after RemoveAll, want %d", got, free0-1)
	}
	fi, err := v.Stat("keep")
	if err != nil {
		t.Fatal(err)
	}
	if a := fi.Sys().(*Record).Set.File.Attr; a != AttrReadOnly|AttrHidden || fi.Mode() != 0o444 {
		t.Errorf("attributes %v mode %v", a, fi.Mode())
	}
	if err := v.SetLabel(""); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	// exfatlabel writes the label; ftools reads it.
	if out, err := runTool(t, "exfatlabel", img, "Set by exfat"); err == nil {
		t.Fatalf("exfatlabel accepted a 12-character label:\n%s", out)
	}
	if out, err := runTool(t, "exfatlabel", img, "by exfatlab"); err != nil {
		t.Fatalf("exfatlabel: %v\n%s", err, out)
	}
	v = openVol(t, img, false)
	defer closeVol(t, v)
	if l, err := v.Label(); err != nil || l != "by exfatlab" {
		t.Errorf("label %q %v", l, err)
	}
}

// TestFallocate gives files contiguous zeroed clusters, keeping the valid
// data length at the written data, and holds the result to fsck.exfat.
func TestFallocate(t *testing.T) {
	img := formatImage(t, 16<<20, FormatParams{})
	v := openVol(t, img, true)
	res, err := v.Fallocate("new", 100_000, FallocateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Size != 100_000 || len(res.Extents) != 1 {
		t.Fatalf("new file: %+v", res)
	}
	data := pattern(9, 5000)
	writeFile(t, v, "grow", data, int64(len(data)))
	if res, err = v.Fallocate("grow", 1<<20, FallocateOptions{}); err != nil {
		t.Fatal(err)
	}
	if res.Size != 1<<20 || res.Created {
		t.Fatalf("extended file: %+v", res)
	}
	if _, err := v.Fallocate("grow", 10, FallocateOptions{KeepSize: true}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("KeepSize: %v", err)
	}
	if _, err := v.Fallocate("huge", 1<<30, FallocateOptions{}); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("beyond the free space: %v", err)
	}
	closeVol(t, v)
	fsckClean(t, img)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	got := readFile(t, v, "grow")
	if len(got) != 1<<20 || !bytes.Equal(got[:5000], data) || bytes.Count(got[5000:], []byte{0}) != len(got)-5000 {
		t.Fatalf("extended file reads %d bytes, data kept %v", len(got), bytes.Equal(got[:5000], data))
	}
	fi, _ := v.Stat("grow")
	s := fi.Sys().(*Record).Set.Stream
	if s.ValidDataLength != 1<<20 || s.DataLength != 1<<20 || !s.NoFATChain() {
		t.Errorf("stream %+v: want valid length and size 1 MiB (the new clusters are zeroed), contiguous", s)
	}
	if got := readFile(t, v, "new"); len(got) != 100_000 || bytes.Count(got, []byte{0}) != len(got) {
		t.Error("new file does not read as zeros")
	}
}

// TestManyLongNames puts 10,000 long names sharing a prefix in one
// directory, checks them with fsck.exfat and reads them back.
func TestManyLongNames(t *testing.T) {
	img := formatImage(t, 128<<20, FormatParams{})
	v := openVol(t, img, true)
	if err := v.Mkdir("many", testTime); err != nil {
		t.Fatal(err)
	}
	const n = 10000
	name := func(i int) string { return fmt.Sprintf("many/a long file name shared by all of them %05d.txt", i) }
	for i := range n {
		writeFile(t, v, name(i), []byte(fmt.Sprint(i)), 0)
	}
	closeVol(t, v)
	fsckClean(t, img)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	ents, err := v.ReadDir("many")
	if err != nil || len(ents) != n {
		t.Fatalf("ReadDir: %d entries, %v", len(ents), err)
	}
	for _, i := range []int{0, 1, 4999, n - 1} {
		if got := string(readFile(t, v, name(i))); got != fmt.Sprint(i) {
			t.Errorf("%s: %q", name(i), got)
		}
	}
	rep, err := Check(v, CheckOptions{})
	if err != nil || !rep.Clean() || rep.Files != n {
		t.Fatalf("Check: %v files %d: %v", err, rep.Files, rep.Problems)
	}
}

// TestFragmented fills a volume with interleaved writers so that files
// get FAT chains, and also grows a directory past contiguous space.
func TestFragmented(t *testing.T) {
	img := formatImage(t, 8<<20, FormatParams{})
	v := openVol(t, img, true)
	if err := v.Mkdir("d", testTime); err != nil {
		t.Fatal(err)
	}
	writeInterleaved(t, v, "x", "y", 40)
	for i := range 300 { // grows "d" while files take the clusters after it
		writeFile(t, v, fmt.Sprintf("d/file with a long name number %d", i), pattern(uint64(i), 100), 0)
	}
	closeVol(t, v)
	fsckClean(t, img)
	v = openVol(t, img, false)
	defer closeVol(t, v)
	f, err := v.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.(*File).Extents()); n < 2 {
		t.Fatalf("x has %d runs, want a fragmented file", n)
	}
	cs := int(v.Layout().ClusterSize)
	got := readFile(t, v, "x")
	for i := range 40 {
		if !bytes.Equal(got[i*cs:(i+1)*cs], pattern(uint64(10+i), cs)) {
			t.Fatalf("x cluster %d reads back wrong", i)
		}
	}
	if fi, err := v.Stat("d"); err != nil || fi.Sys().(*Record).Set.Stream.NoFATChain() {
		t.Fatalf("directory d: %v; want it grown past its contiguous space into a FAT chain", err)
	}
	rep, err := Check(v, CheckOptions{})
	if err != nil || !rep.Clean() {
		t.Fatalf("Check: %v %v", err, rep.Problems)
	}
}

// TestDirtyFlagAndGUID checks that VolumeDirty is on disk while a writer
// has changes pending and off after Close, with PercentInUse recorded, and
// that a volume GUID is written and read back.
func TestDirtyFlagAndGUID(t *testing.T) {
	guid := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	img := formatImage(t, 8<<20, FormatParams{GUID: &guid})
	v := openVol(t, img, true)
	if g, ok := v.VolumeGUID(); !ok || g != guid {
		t.Fatalf("GUID from Format: %v %v", g, ok)
	}
	writeFile(t, v, "half", pattern(1, 3<<20), 3<<20)
	if b := voltest.ReadFileAt(t, img, offVolumeFlags, 1); b[0]&FlagVolumeDirty == 0 {
		t.Fatal("VolumeDirty is not set while changes are pending")
	}
	other := [16]byte{0xAA}
	if err := v.SetVolumeGUID(&other); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	b := voltest.ReadFileAt(t, img, 0, 512)
	bs, err := DecodeBootSector(b)
	if err != nil {
		t.Fatal(err)
	}
	if bs.Dirty() || bs.PercentInUse != 50 { // 772 of 1,536 clusters
		t.Fatalf("after Close: dirty %v, percent in use %d", bs.Dirty(), bs.PercentInUse)
	}
	v = openVol(t, img, true)
	if g, ok := v.VolumeGUID(); !ok || g != other || FormatGUID(g) == "" {
		t.Fatalf("GUID after SetVolumeGUID: %v %v", g, ok)
	}
	if rep, err := Check(v, CheckOptions{}); err != nil || !rep.Clean() {
		t.Fatalf("Check with a GUID entry: %v %v", err, rep.Problems)
	}
	if err := v.SetVolumeGUID(nil); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	fsckClean(t, img) // fsck.exfat 1.2.0 takes a GUID entry for an unknown one: it must be gone
}
