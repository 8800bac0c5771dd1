package fat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// repairBytes checks img in memory, repairs it and returns the repaired
// bytes with the report.
func repairBytes(t *testing.T, img []byte, opts CheckOptions) ([]byte, *Report) {
	t.Helper()
	dev := memDevice(t, img)
	v, rep := checkDev(t, dev, opts)
	if _, err := Repair(v, rep, RepairOptions{}); err != nil {
		t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
	}
	return memBytes(t, dev), rep
}

// mustClean checks img again and fails unless it is clean.
func mustClean(t *testing.T, img []byte) *Volume {
	t.Helper()
	v, rep := checkBytes(t, img)
	if !rep.Clean() {
		t.Fatalf("after the repair:\n%s", dumpProblems(rep))
	}
	return v
}

// A crash under --sync file between the FAT writes and the entry leaves
// FAT 1 holding a new chain no entry names and FAT 2 without it, with
// FSINFO's count FAT 2's. FAT 1 is the sound copy: its lost clusters are
// counted against it, it is copied over FAT 2, and the free count after
// the repair is the FAT's (issue 17 item 3).
func TestRepairCrashFAT1Newer(t *testing.T) {
	for _, salvage := range []bool{false, true} {
		t.Run(fmt.Sprintf("salvage=%v", salvage), func(t *testing.T) {
			img := buildCheckImage(t, checkParams["FAT32"])
			v0, _ := checkBytes(t, img)
			l := v0.layout
			freeBefore := v0.FreeClusters()
			for _, c := range []Cluster{100, 101, 102} {
				next := c + 1
				if c == 102 {
					next = 0x0FFFFFFF
				}
				patchEntry(img, l, c, next, 0)
			}
			v, rep := checkBytes(t, img)
			_ = v
			if !hasKind(rep, KindFATCopies) || rep.LostClusters != 3 || rep.LostChains != 1 || !hasKind(rep, KindFSInfo) {
				t.Fatalf("lost %d in %d chains:\n%s", rep.LostClusters, rep.LostChains, dumpProblems(rep))
			}
			if plan := strings.Join(rep.Plan(), "\n"); !strings.Contains(plan, "copy FAT 1 over FAT 2") {
				t.Fatalf("plan:\n%s", plan)
			}
			out, rep := repairBytes(t, img, CheckOptions{Salvage: salvage})
			if rep.Remaining() != 0 {
				t.Fatalf("left:\n%v", rep.Left)
			}
			if !bytes.Equal(out[l.FATCopyOffset(0):l.FATCopyOffset(1)], out[l.FATCopyOffset(1):l.FATCopyOffset(2)]) {
				t.Fatal("the FATs differ after the repair")
			}
			v2 := mustClean(t, out)
			want := freeBefore
			if salvage {
				want -= 3
				if fi, err := fs.Stat(v2, "FSCK0000.REC"); err != nil || fi.Size() != 3*l.ClusterSize {
					t.Fatalf("FSCK0000.REC: %v %v", fi, err)
				}
			}
			if got := binary.LittleEndian.Uint32(out[l.FSInfoOffset+offFSInfoFree:]); got != want || v2.FreeClusters() != want {
				t.Fatalf("FSINFO free count %d, FAT %d, want %d", got, v2.FreeClusters(), want)
			}
		})
	}
}

// When FAT 1 is damaged and FAT 2 is sound, the repair uses FAT 2: no file
// is cut where fsck.fat, which takes FAT 1, would cut it.
func TestRepairFromSoundFAT2(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT16"])
	v0, _ := checkBytes(t, img)
	_, big := fileEntry(t, v0, "/sub/big.bin")
	want, err := fs.ReadFile(v0, "sub/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	patchEntry(img, v0.layout, big.Cluster+2, 0, 0)
	out, rep := repairBytes(t, img, CheckOptions{})
	if !hasKind(rep, KindFATCopies) || hasKind(rep, KindChain) || rep.Remaining() != 0 {
		t.Fatalf("%d left:\n%s", rep.Remaining(), dumpProblems(rep))
	}
	got, err := fs.ReadFile(mustClean(t, out), "sub/big.bin")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("big.bin after the repair: %d bytes, %v", len(got), err)
	}
}

// The dirty bit is cleared only when nothing is left: a lost chain that
// cannot be saved (the FAT16 root is full) keeps it set (issue 11 item 4).
func TestRepairKeepsDirtyBitWhenDamageIsLeft(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT16"])
	v0, _ := checkBytes(t, img)
	l := v0.layout
	for off := l.RootDirOffset; off < l.RootDirOffset+l.RootDirSize; off += DirEntrySize {
		if img[off] == SlotEnd || img[off] == SlotDeleted {
			e := DirEntry{Attr: AttrArchive}
			copy(e.Name[:], fmt.Sprintf("F%07dTXT", off/DirEntrySize))
			e.Encode(img[off:])
		}
	}
	patchEntry(img, l, 200, 0xFFFF, 0, 1)
	img[ext16+relState] |= stateDirty
	out, rep := repairBytes(t, img, CheckOptions{Salvage: true})
	if rep.Remaining() == 0 || !hasKind(rep, KindDirty) {
		t.Fatalf("nothing left:\n%s", dumpProblems(rep))
	}
	for _, p := range rep.Problems {
		if p.Kind == KindDirty && p.Fixed {
			t.Fatalf("the dirty bit counts as fixed: %v", p)
		}
	}
	if out[ext16+relState]&stateDirty == 0 {
		t.Fatal("the dirty bit was cleared with a lost chain left")
	}
	// Freeing the chain leaves nothing: then the bit is cleared.
	out, rep = repairBytes(t, out, CheckOptions{})
	if rep.Remaining() != 0 || out[ext16+relState]&stateDirty != 0 {
		t.Fatalf("%d left, dirty %v:\n%s", rep.Remaining(), out[ext16+relState]&stateDirty != 0, dumpProblems(rep))
	}
	mustClean(t, out)
}

// An out-of-range next free hint is a warning: readers check the hint
// before they use it (issue 17 item 8).
func TestFSInfoHintIsAWarning(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT32"])
	v0, _ := checkBytes(t, img)
	binary.LittleEndian.PutUint32(img[v0.layout.FSInfoOffset+offFSInfoNext:], 0x0FFFFFF0)
	_, rep := checkBytes(t, img)
	if !rep.Clean() || !strings.Contains(strings.Join(rep.Warnings, "\n"), "next free cluster hint") {
		t.Fatalf("warnings %q, problems:\n%s", rep.Warnings, dumpProblems(rep))
	}
}

// A move between directories cut short leaves two entries naming one
// file. The repair keeps one: for a directory, the one its ".." names.
func TestRepairInterruptedRename(t *testing.T) {
	for _, moved := range []bool{false, true} {
		t.Run(fmt.Sprintf("dotdot-updated=%v", moved), func(t *testing.T) {
			img := buildCheckImage(t, checkParams["FAT32"])
			v0, _ := checkBytes(t, img)
			off, e := fileEntry(t, v0, "/sub/deeper")
			root, err := v0.rootDir()
			if err != nil {
				t.Fatal(err)
			}
			slot := FindFreeSlots(root.raw, 1, 0)
			dst := root.offsetOf(int64(slot) * DirEntrySize)
			copy(img[dst:dst+DirEntrySize], img[off:off+DirEntrySize])
			if moved {
				dd := v0.layout.ClusterOffset(e.Cluster) + DirEntrySize
				binary.LittleEndian.PutUint16(img[dd+direntClusterLow:], 0)
				binary.LittleEndian.PutUint16(img[dd+direntClusterHigh:], 0)
			}
			_, rep := checkBytes(t, img)
			if !hasKind(rep, KindRename) || hasKind(rep, KindCrossLink) {
				t.Fatalf("problems:\n%s", dumpProblems(rep))
			}
			out, rep := repairBytes(t, img, CheckOptions{})
			if rep.Remaining() != 0 {
				t.Fatalf("left %v", rep.Left)
			}
			v := mustClean(t, out)
			keep, gone := "sub/deeper/empty", "deeper"
			if moved {
				keep, gone = "deeper/empty", "sub/deeper"
			}
			if _, err := fs.Stat(v, keep); err != nil {
				t.Fatalf("%s: %v", keep, err)
			}
			if _, err := fs.Stat(v, gone); err == nil {
				t.Fatalf("%s is still there", gone)
			}
		})
	}
}

// Two files sharing clusters both keep their bytes: the second gets
// copies of the shared clusters.
func TestRepairCrossLinkCopies(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT12"])
	v0, _ := checkBytes(t, img)
	aOff, a := fileEntry(t, v0, "/a.txt")
	_, big := fileEntry(t, v0, "/sub/big.bin")
	patchEntry(img, v0.layout, a.Cluster, big.Cluster+1, 0, 1)
	binary.LittleEndian.PutUint32(img[aOff+direntSize:], 3000)
	v1, _ := checkBytes(t, img)
	wantA, err1 := fs.ReadFile(v1, "a.txt")
	wantBig, err2 := fs.ReadFile(v1, "sub/big.bin")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	out, rep := repairBytes(t, img, CheckOptions{})
	if !hasKind(rep, KindCrossLink) || rep.Remaining() != 0 {
		t.Fatalf("%d left:\n%s", rep.Remaining(), dumpProblems(rep))
	}
	v := mustClean(t, out)
	gotA, _ := fs.ReadFile(v, "a.txt")
	gotBig, _ := fs.ReadFile(v, "sub/big.bin")
	if !bytes.Equal(gotA, wantA) || !bytes.Equal(gotBig, wantBig) {
		t.Fatalf("a.txt %d bytes (want %d), big.bin %d (want %d)", len(gotA), len(wantA), len(gotBig), len(wantBig))
	}
}

// A dry run plans and verifies, and writes nothing.
func TestRepairDryRun(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT16"])
	v0, _ := checkBytes(t, img)
	patchEntry(img, v0.layout, 300, 0xFFFF, 0, 1)
	dev := memDevice(t, img)
	v, rep := checkDev(t, dev, CheckOptions{})
	plan, err := Repair(v, rep, RepairOptions{DryRun: true})
	if err != nil || len(plan) == 0 || len(rep.Left) != 0 {
		t.Fatalf("plan %q, left %v, %v", plan, rep.Left, err)
	}
	if !bytes.Equal(memBytes(t, dev), img) {
		t.Fatal("a dry run wrote to the volume")
	}
	for _, p := range rep.Problems {
		if p.Fixed {
			t.Fatalf("a dry run marks %v fixed", p)
		}
	}
}

// A directory entry whose start cluster is free on disk but was just
// given to a file as a copy of a shared cluster (the file's chain on disk
// does not lead there) makes the directory give way: the check ends,
// where it used to walk the directory again and again until the stack
// ran out.
func TestRepairDirOnPlannedCopy(t *testing.T) {
	img := smallVolume(t, "/a.bin", "/b.bin", "/d/")
	v0, _ := checkBytes(t, img)
	_, a := fileEntry(t, v0, "/a.bin")
	_, b := fileEntry(t, v0, "/b.bin")
	dOff, _ := fileEntry(t, v0, "/d")
	// b.bin's second cluster becomes a.bin's second: b.bin, checked
	// second, gets copies of a.bin's last two clusters.
	patchEntry(img, v0.layout, b.Cluster, a.Cluster+1, 0, 1)
	// Now /d starts where that copy goes.
	out, rep := repairStartingOnCopy(t, img, a.Cluster+1, dOff)
	v1 := mustClean(t, out)
	for name, want := range map[string]byte{"a.bin": 'a', "b.bin": 'b'} {
		got, err := fs.ReadFile(v1, name)
		if err != nil || len(got) != 3*512 {
			t.Fatalf("%s: %d bytes, %v\n%s", name, len(got), err, dumpProblems(rep))
		}
		if name == "a.bin" && !bytes.Equal(got, bytes.Repeat([]byte{want}, 3*512)) {
			t.Fatalf("a.bin's bytes changed")
		}
	}
}

// repairStartingOnCopy repairs img, in which /b.bin runs into cluster
// shared (another file's), once to learn the free cluster b.bin gets as
// its copy, then again with the entry at entryOff starting on that
// cluster, and returns the second repair's bytes and report, which must
// fix the cross-link and leave nothing.
func repairStartingOnCopy(t *testing.T, img []byte, shared Cluster, entryOff int64) ([]byte, *Report) {
	t.Helper()
	fixed, _ := repairBytes(t, slices.Clone(img), CheckOptions{})
	vf := mustClean(t, fixed)
	_, bf := fileEntry(t, vf, "/b.bin")
	copyAt := vf.table.Get(bf.Cluster)
	if copyAt == shared || copyAt < FirstCluster {
		t.Fatalf("b.bin's second cluster is %d after the repair, not a copy", copyAt)
	}
	binary.LittleEndian.PutUint16(img[entryOff+direntClusterLow:], uint16(copyAt))
	out, rep := repairBytes(t, img, CheckOptions{})
	if !hasKind(rep, KindCrossLink) || rep.Remaining() != 0 {
		t.Fatalf("%d left:\n%s", rep.Remaining(), dumpProblems(rep))
	}
	return out, rep
}

// smallVolume formats a FAT16 image holding the named members of the
// root, in order: a name ending in "/" a directory, any other a file of
// three clusters of bytes 'a', 'b', 'c' ... by its place among the files.
func smallVolume(t *testing.T, names ...string) []byte {
	t.Helper()
	dev, v := formatMem(t, checkParams["FAT16"], checkClock)
	files := 0
	for _, name := range names {
		if strings.HasSuffix(name, "/") {
			if err := v.Mkdir(strings.TrimSuffix(name, "/"), checkClock); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := v.Create(name, 3*512, checkClock)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(bytes.Repeat([]byte{byte('a' + files)}, 3*512)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return memBytes(t, dev)
}

// threeFiles formats a FAT16 image holding /a.bin, /b.bin and /c.bin,
// three clusters each, of bytes 'a', 'b' and 'c'.
func threeFiles(t *testing.T) []byte { return smallVolume(t, "/a.bin", "/b.bin", "/c.bin") }

// A file that starts on the free cluster the plan gives another file as a
// copy of a shared cluster gets a copy of that copy: the bytes the plan
// puts there, which is what the copies, made in plan order, leave there
// for it. b.bin runs into a.bin's second cluster and gets copies of
// a.bin's last two; c.bin's entry names the first of those copies.
// Execution used to read that cluster while b.bin's copy was queued for
// it (the old bytes, or the new ones when the queue had gone out), and
// the verification of the plan read the old ones: on a wrecked volume,
// garbage directories copied that way were written other than
// verified, and --repair said nothing was left where a check afterwards
// found 95,000 problems.
func TestRepairCopyOfPlannedCopy(t *testing.T) {
	img := threeFiles(t)
	v0, _ := checkBytes(t, img)
	l := v0.layout
	_, a := fileEntry(t, v0, "/a.bin")
	_, b := fileEntry(t, v0, "/b.bin")
	cOff, _ := fileEntry(t, v0, "/c.bin")
	patchEntry(img, l, b.Cluster, a.Cluster+1, 0, 1)
	// The free clusters the copies go to hold stale bytes.
	for cl := Cluster(FirstCluster); cl < Cluster(l.Clusters)+FirstCluster; cl++ {
		if v0.table.IsFree(v0.table.Get(cl)) {
			copy(img[l.ClusterOffset(cl):], bytes.Repeat([]byte{'x'}, int(l.ClusterSize)))
		}
	}
	out, rep := repairStartingOnCopy(t, img, a.Cluster+1, cOff)
	v := mustClean(t, out)
	for name, want := range map[string]string{
		"a.bin": strings.Repeat("a", 3*512),
		"b.bin": strings.Repeat("b", 512) + strings.Repeat("a", 2*512),
	} {
		if got, err := fs.ReadFile(v, name); err != nil || string(got) != want {
			t.Errorf("%s: %v\n got %q\nwant %q", name, err, got, want)
		}
	}
	got, err := fs.ReadFile(v, "c.bin")
	if err != nil || len(got) == 0 || strings.Trim(string(got), "a") != "" {
		t.Errorf("c.bin: %v: %q, want a copy of b.bin's copy (bytes 'a')\n%s\n%s", err, got, strings.Join(rep.Plan(), "\n"), dumpProblems(rep))
	}
}

// With more problems than MaxProblems lists, Fixed still counts the
// ones not listed: every problem here is fixed, and Problems less
// Remaining is what Fixed says.
func TestRepairFixedCountsOmitted(t *testing.T) {
	img := threeFiles(t)
	v0, _ := checkBytes(t, img)
	_, a := fileEntry(t, v0, "/a.bin")
	_, b := fileEntry(t, v0, "/b.bin")
	_, c := fileEntry(t, v0, "/c.bin")
	patchEntry(img, v0.layout, b.Cluster, a.Cluster+1, 0, 1)
	patchEntry(img, v0.layout, c.Cluster, b.Cluster, 0, 1)
	_, all := repairBytes(t, slices.Clone(img), CheckOptions{})
	n := len(all.Problems) + all.Omitted
	if n < 3 || all.Omitted != 0 || all.Remaining() != 0 || all.Fixed() != n {
		t.Fatalf("unbounded: %d problems, %d omitted, %d fixed, %d left", n, all.Omitted, all.Fixed(), all.Remaining())
	}
	_, rep := repairBytes(t, img, CheckOptions{MaxProblems: 1})
	if len(rep.Problems) != 1 || rep.Omitted != n-1 {
		t.Fatalf("%d listed, %d omitted, want 1 and %d", len(rep.Problems), rep.Omitted, n-1)
	}
	if rep.Remaining() != 0 || rep.Fixed() != n {
		t.Fatalf("%d fixed, %d left, want %d and 0", rep.Fixed(), rep.Remaining(), n)
	}
}
