package exfat

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/resize"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// copyImage copies the file at src to dst.
func copyImage(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestResizeCrashStates records every write and flush of a shrink that
// moves files, directories and a contiguous file that becomes a chain
// (pkg/io's write log), rebuilds every state a power cut could leave (each
// in-order prefix, each write of an epoch alone and all but one, torn
// samples), and holds each to what DESIGN.md allows: Check finds at most
// lost clusters and the dirty flag, and fsck.exfat -n passes; or, where a
// torn boot region or entry set is found, Repair (fverify --repair) makes
// it clean. Either way the volume is the old one or the new one, and every
// file reads back whole.
func TestResizeCrashStates(t *testing.T) {
	t.Run("shrink with moves", func(t *testing.T) {
		img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB, Label: "CRASH"})
		want := fillForResize(t, img, true)
		v := openVol(t, img, false)
		l := *v.layout
		closeVol(t, v)
		// Rounds of 40 files: the moves of one depth take several.
		defer func(n int) { resizeChunkItems = n }(resizeChunkItems)
		resizeChunkItems = 40
		replayResize(t, img, want, l.HeapOffset+16*resizeMiB+512*1024)
	})
	t.Run("shrink moving the bitmap, up-case table and root", func(t *testing.T) {
		img, want, size := systemFilesHigh(t)
		replayResize(t, img, want, size)
	})
	t.Run("grow extending the bitmap", func(t *testing.T) {
		img, want := bitmapRoomAfter(t)
		size := int64(48 * resizeMiB)
		if err := os.Truncate(img, size); err != nil {
			t.Fatal(err)
		}
		replayResize(t, img, want, size)
	})
	t.Run("grow moving the bitmap", func(t *testing.T) {
		// 512-byte clusters: the bitmap takes 20 of them, and growing by
		// a few MiB needs more while the up-case table follows it.
		img := formatImage(t, 40*resizeMiB, FormatParams{Size: 40 * resizeMiB, ClusterSize: 512, Label: "CRASH"})
		want := fillForResize(t, img, true)
		size := int64(48 * resizeMiB)
		if err := os.Truncate(img, size); err != nil {
			t.Fatal(err)
		}
		plan := replayResize(t, img, want, size)
		if !strings.Contains(strings.Join(plan.Steps, "\n"), "move the allocation bitmap") {
			t.Fatalf("the grow did not move the bitmap: %q", plan.Steps)
		}
	})
}

// replayResize resizes img to size with its writes logged, then replays
// the log over a copy of img as it was and checks every state.
func replayResize(t *testing.T, img string, want map[string][]byte, size int64) *resize.Plan {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.img")
	copyImage(t, img, base)
	logPath := filepath.Join(dir, "resize.log")
	lg, err := writelog.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := fio.Open(img, fio.Options{Write: true, Buffered: true, Sync: fio.SyncClose})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Record(lg); err != nil {
		t.Fatal(err)
	}
	plan, err := Resize(d, resize.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	ops, err := writelog.ReadOps(logPath, img)
	if err != nil {
		t.Fatal(err)
	}
	writes, flushes := writelog.Counts(ops)
	t.Logf("the resize moved %d clusters in %d writes and %d flushes", plan.MoveClusters, writes, flushes)

	scratch := filepath.Join(dir, "scratch.img")
	seen := map[string]int{}
	layouts := map[uint32]int{}
	repaired := 0
	check := func(s writelog.State) error {
		target := base
		rep := checkImage(t, base)
		clean := true
		for _, p := range rep.Problems {
			seen[p.Kind]++
			switch p.Kind {
			case KindLost, KindDirty:
			case KindBackupBoot, KindBootChecksum:
				// A cut between the main boot region and the backup, or
				// inside the main one: Repair puts the pair right.
				clean = false
			default:
				t.Fatalf("%v: %v", s, p)
			}
		}
		if clean {
			if out, err := runTool(t, "fsck.exfat", "-n", base); err != nil {
				t.Fatalf("%v: fsck.exfat -n: %v\n%s", s, err, out)
			}
		} else {
			// What fverify --repair does.
			repaired++
			copyImage(t, base, scratch)
			rv := openVol(t, scratch, true)
			rrep, err := Check(rv, CheckOptions{})
			if err != nil {
				t.Fatalf("%v: %v", s, err)
			}
			if _, err := Repair(rv, rrep, RepairOptions{}); err != nil {
				t.Fatalf("%v: Repair of %v: %v", s, rep.Problems, err)
			}
			closeVol(t, rv)
			if again := checkImage(t, scratch); !again.Clean() {
				t.Fatalf("%v: after Repair of %v: %v", s, rep.Problems, again.Problems)
			}
			fsckClean(t, scratch)
			target = scratch
		}
		sv := openVol(t, target, false)
		defer closeVol(t, sv)
		n := sv.layout.Clusters
		if n != plan.OldClusters && n != plan.NewClusters {
			t.Fatalf("%v: %d clusters: neither the old %d nor the new %d", s, n, plan.OldClusters, plan.NewClusters)
		}
		layouts[n]++
		for name, data := range want {
			if got := readFile(t, sv, name); !bytes.Equal(got, data) {
				t.Fatalf("%v: %s: %d bytes read back differ from the %d written", s, name, len(got), len(data))
			}
		}
		return nil
	}
	n, err := writelog.Replay(base, ops, writelog.Options{Family: 6, Samples: 2, Seed: 7}, check)
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]string, 0, len(seen))
	for k := range seen {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	t.Logf("%d states: %d with the old layout, %d with the new; %d repaired; problems seen: %v %v", n, layouts[plan.OldClusters], layouts[plan.NewClusters], repaired, kinds, seen)
	if layouts[plan.OldClusters] == 0 || layouts[plan.NewClusters] == 0 {
		t.Fatal("the replay did not cross the resize's commit")
	}
	return plan
}
